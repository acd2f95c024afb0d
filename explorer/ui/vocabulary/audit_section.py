"""The Vocabulary page's "Audit" section: a vocabulary audit (explorer.measures.audit) of this run (at
its last step or after k merges or rounds), of a tokenizer uploaded on the Compare page (the
session's uploads) or of a bundled pretrained tokenizer, on this run's training corpus (a stated
sample of it, the one Compare measures), with its headline figures, its per-script table and its
tables of stepping stones, unreachable and unused tokens. A token of our run links to the Merge
history page at the step that made it.

The audit runs in a worker process of the server's pool (explorer.work.tasks.audit_task), never in
its threads, when the section is first shown: a link that names an audit shows it. Its key is an
HMAC (the store's `run_key`) of the corpus digest, what is audited (the run by its store key and
step, an upload by its key (`serving.upload_key`, an HMAC of its files), or the bundled name) and
the sample, so the same audit asked by any visitor is one job and one stored result (an upload's
goes to the worker under a neutral name: the name a visitor gave its files stays in that
session, which shows it); the run keeps the results it has shown in memory too (`AUDITS_KEPT`).
A run trained from word counts has no running text: the section says so and audits a sample
picked instead (explorer.ui.common.stand_in).
The page waits for it up to `INLINE_SECONDS`, then a poller redraws the page when it is in.

The choice goes into the page's link (`audit`, `audit_step`: explorer.views.audit_tables),
and a link's choice is put in the widgets on the session's first view; an upload it names that the
session does not hold is read again from the run store (explorer.session.upload_jobs
.stored_uploads, as Compare's links do), or, gone from it, a warning and this run. An upload only
the tokenizers library reads cannot be audited: the section says so in one sentence.

What it does not do: compute the audit, or build its tables (explorer.views.audit_tables).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping

import streamlit as st

from explorer.compare import UploadedTokenizer
from explorer.compare.upload_checks import keep_uploads
from explorer.drawing.markdown_literal import markdown_literal
from explorer.drawing.wording import plural
from explorer.pretrained import BUNDLED
from explorer.runs.run import MergeRun, Run, per_run
from explorer.runs.settings import limits_or_defaults
from explorer.runstore import canonical_json, keys, run_key
from explorer.session import serving, upload_jobs
from explorer.ui.common import frame, link, stand_in, state, worker_results
from explorer.ui.common.html_view import html_view
from explorer.views import audit_tables as tables
from explorer.views.run_views import labels
from explorer.views.stand_in_text import stand_in_sample
from explorer.work import tasks

W = state.Widget
INLINE_SECONDS = 20.0
AUDIT_TIME_LIMIT = 600.0
AUDITS_KEPT = 6  # audit results a run keeps in memory (a pretrained one can hold 200,000 ids)
NO_CORPUS = "The corpus of this run is no longer in the session: train it again to audit on it."
UPLOAD_NAME = "uploaded tokenizer"  # an upload's name in the worker and the shared result


def audit_key(run: Run, choice: tables.AuditChoice, sample: dict) -> str:
    described = {
        "audit": choice.described(run.store_key or canonical_json(run.settings.to_query_params())),
        "sample": sample,
    }
    return run_key(serving.secret(), run.key.corpus_sha256, canonical_json(described))


def session_uploads() -> OrderedDict[str, UploadedTokenizer]:
    """The tokenizers uploaded in this session (on the Compare page, or brought back by a link)."""
    return state.get(state.UPLOADED_TOKENIZERS) or OrderedDict()


def upload_spec(upload: UploadedTokenizer) -> dict | None:
    """The audit task's `subject` for an upload: its column's spec under a neutral name; None for
    an upload only the tokenizers library reads (the audit cannot take it: tasks.NOT_AUDITED)."""
    if upload.library_json is not None:
        return None
    spec = upload.column.spec  # special tokens as the tokenizer itself treats them
    return None if spec is None else {**spec, "name": UPLOAD_NAME}


def subject_spec(run: Run, choice: tables.AuditChoice) -> dict | None:
    """The audit task's `subject`: a bundled name, an upload's spec (None: it cannot be audited),
    or this run's tokenizer.json at the step. Its name is neutral ("this run"): the stored result
    is shared, a session's run number is not."""
    if choice.pretrained is not None:
        return {"pretrained": choice.pretrained}
    if choice.upload is not None:
        upload = session_uploads().get(choice.upload)
        return None if upload is None else upload_spec(upload)
    from explorer.pipeline.tokenizer_json import tokenizer_to_json

    name = "this run" if choice.step is None else f"this run after {choice.step} {run.history.step_noun}s"
    return {"name": name, "tokenizer_json": tokenizer_to_json(run.history.tokenizer_at(choice.step))}


@per_run
def _kept(run: Run) -> dict[str, dict]:
    """The run's audit results by key, its last `AUDITS_KEPT` (shared by the sessions showing it)."""
    return {}


@per_run
def _merge_steps(run: MergeRun) -> tables.MergeSteps:
    return tables.merge_steps(run.history.merges)


def _keep(run: Run, key: str, result: dict) -> dict:
    kept = _kept(run)
    kept[key] = result
    while len(kept) > AUDITS_KEPT:
        kept.pop(next(iter(kept)))
    return result


def audit_result(
    run: Run, choice: tables.AuditChoice, subject: dict, corpus_text: str
) -> tuple[dict | None, str | None]:
    """(the audit task's result, None) when known; (None, a sentence) when it failed; (None, None)
    while it still runs in a worker (after waiting up to INLINE_SECONDS). `subject`:
    `subject_spec(run, choice)`."""
    sample = tables.audit_sample(corpus_text)
    if run.from_counts:  # a stand-in text, keyed apart from a training corpus
        sample = stand_in_sample(sample, corpus_text)
    key = audit_key(run, choice, sample)
    known = _kept(run).get(key)
    if known is not None:
        return known, None
    result, problem = worker_results.worker_result(
        state.AUDIT_JOBS,
        key,
        "audit",
        lambda: serving.pool().request(
            key, tasks.audit_task, corpus_text, subject, sample, time_limit=AUDIT_TIME_LIMIT
        ),
        INLINE_SECONDS,
        "Auditing in a worker process …",
        accept=lambda result: "audit" in result,
    )
    return (None, problem) if result is None else (_keep(run, key, result), None)


# ---------------------------------------------------------------- the choice


def choice_from_link(run: Run, params: Mapping[str, str]) -> None:
    """A link's audit put in the widgets before they are drawn, its upload read again from the
    store when the session does not hold it; what it ignored, said once."""
    trace = run.history
    uploads = session_uploads()
    named = params.get(tables.SUBJECT_PARAM, "")
    if keys.is_upload_key(named) and named not in uploads:
        found = upload_jobs.stored_uploads([named], uploads)
        uploads, _ = keep_uploads(uploads, list(found.values()), limits_or_defaults()[0])
        state.put(state.UPLOADED_TOKENIZERS, uploads)
    choice, notes = tables.choice_from_params(
        params, trace.steps, list(BUNDLED), trace.step_noun, uploads=list(uploads)
    )
    state.put(W.AUDIT_SUBJECT, choice.subject)
    state.put(W.AUDIT_STEP, trace.steps if choice.step is None else choice.step)
    for note in notes:
        frame.warning(note)


def choose(run: Run) -> tables.AuditChoice:
    """The subject and step widgets, and what they choose."""
    trace = run.history
    uploads = session_uploads()
    options = [tables.THIS_RUN, *uploads, *BUNDLED]
    state.keep_choice(W.AUDIT_SUBJECT, options, tables.THIS_RUN)
    subject_column, step_column = st.columns([3, 2], vertical_alignment="bottom")
    subject = subject_column.selectbox(
        "Tokenizer to audit",
        options,
        key=W.AUDIT_SUBJECT,
        format_func=lambda option: subject_label(run, option, uploads),
        help="This run's tokenizer, one you uploaded on the Compare page, or a bundled pretrained one, "
        "on this run's corpus",
    )
    if subject in uploads:
        return tables.AuditChoice(upload=subject)
    if subject != tables.THIS_RUN:
        return tables.AuditChoice(pretrained=subject)
    step = state.get(W.AUDIT_STEP)
    if not isinstance(step, int) or not 0 <= step <= trace.steps:
        state.put(W.AUDIT_STEP, trace.steps)
    chosen = step_column.number_input(
        f"After how many {trace.step_noun}s ({trace.steps:,}: the trained tokenizer)",
        min_value=0,
        max_value=trace.steps,
        step=1,
        key=W.AUDIT_STEP,
    )
    return tables.AuditChoice(step=None if int(chosen) >= trace.steps else int(chosen))


def subject_label(run: Run, option: str, uploads: Mapping[str, UploadedTokenizer]) -> str:
    """A subject option as the list shows it (plain text: an upload's name is its files')."""
    if option == tables.THIS_RUN:
        return f"This run ({run.settings.short_name()})"
    upload = uploads.get(option)
    if upload is not None:
        return upload.name  # "<file name> (uploaded)"
    return BUNDLED[option].label if option in BUNDLED else option


# ---------------------------------------------------------------- the section


def audit_section(run: Run, merge_run: MergeRun | None) -> dict[str, str | None]:
    """The section; returns its link parameters (explorer.views.audit_tables.choice_params).
    `merge_run`: the run itself when it learned merges (its tokens then link to Merge history)."""
    st.subheader("Audit")
    st.caption(
        "Which tokens the corpus never uses, which no text can produce alone, and which only lead to "
        "longer tokens; how evenly the corpus uses the vocabulary, and how each script is tokenized. "
        "The exact definitions are in docs/audit.md (`python -m explorer audit` prints the same)."
    )
    if state.get(state.FIRST_RUN):
        choice_from_link(run, st.query_params)
    choice = choose(run)
    params = tables.choice_params(choice)
    if run.from_counts:
        corpus_text: str | None = stand_in.stand_in("audit", W.AUDIT_STAND_IN).text
    else:
        corpus_text = state.trained_corpus_text(run)
    if not corpus_text:
        frame.info(NO_CORPUS)
        return params
    subject = subject_spec(run, choice)
    if subject is None:  # an upload only the tokenizers library reads
        frame.info(tasks.NOT_AUDITED)
        return params
    result, problem = audit_result(run, choice, subject, corpus_text)
    if problem is not None:
        frame.error(f"Could not audit this tokenizer on the corpus: {problem}")
    elif result is None:
        worker_results.poll_until_done(state.AUDIT_JOBS, "Still auditing in a worker …")
    else:
        show_audit(run, choice, result, corpus_text, token_links(merge_run, choice))
    return params


def token_links(run: MergeRun | None, choice: tables.AuditChoice) -> tables.TokenLinks:
    """Our merge run's tokens link to the Merge history page; a pretrained or uploaded tokenizer's,
    a Unigram run's (no merges: `run` None), none."""
    if not choice.this_run or run is None:
        return tables.TokenLinks()
    return tables.TokenLinks(
        steps=_merge_steps(run),
        names=labels(run),
        href_at=lambda step: tables.history_href(
            link.run_params(run, {tables.HISTORY_STEP_PARAM: str(step)})
        ),
        until=choice.step,
    )


def linked_table(html_text: str, key: str, run: Run) -> None:
    """A table whose tokens and steps link to Merge history: a click moves there within the app."""
    step = html_view(html_text, key)
    if step is not None:
        state.start_player_at(step)
        st.switch_page(
            frame.HISTORY_SCRIPT, query_params=link.run_params(run, {tables.HISTORY_STEP_PARAM: str(step)})
        )


def figures(result: dict) -> dict[str, str]:
    """The headline figures as the metrics show them."""
    audit = result["audit"]
    stones = audit["stepping_stones"]
    efficiency = audit["renyi_efficiency"]["value"]
    bytes_per_token = audit["bytes_per_token"]
    return {
        "Tokens": f"{audit['tokens']:,}",
        "Bytes per token": "n/a" if bytes_per_token is None else f"{bytes_per_token:.3f}",
        f"Rényi efficiency (α {audit['renyi_efficiency']['alpha']})": "n/a"
        if efficiency is None
        else f"{efficiency:.4f}",
        "Vocabulary size": f"{audit['vocab_size']:,}",
        "Unreachable": f"{audit['unreachable_count']:,}",
        "Unused": f"{audit['unused']['count']:,}",
        "Stepping stones": "n/a" if stones is None else f"{len(stones):,}",
    }


def show_audit(
    run: Run, choice: tables.AuditChoice, result: dict, corpus_text: str, links: tables.TokenLinks
) -> None:
    audit = result["audit"]
    shown = audit["tokenizer"] if choice.this_run else subject_label(run, choice.subject, session_uploads())
    on = tables.sample_note(corpus_text, result["lines"])
    st.markdown(f"**{markdown_literal(shown)}** on {markdown_literal(on)}")
    values = figures(result)
    for column, (label, value) in zip(st.columns(len(values)), values.items()):
        column.metric(label, value)
    st.caption(
        " · ".join(f"**{name}**: {markdown_literal(text)}" for name, text in tables.DEFINITIONS.items())
    )
    frame.note(
        f"{plural(audit['ordinary_tokens'], 'ordinary token')} and "
        f"{plural(audit['special_tokens'], 'special token')}; {plural(audit['lines'], 'line')}, "
        f"{plural(audit['utf8_bytes'], 'byte')} (line breaks not counted). Audited in a "
        f"worker in {result['seconds']:.2f} s; kept with the run."
    )
    st.markdown("**Scripts**: each script's code points in the corpus and tokens in the encoding")
    st.html(tables.scripts_html(audit["scripts"]))
    stones = audit["stepping_stones"]
    st.markdown("**Stepping stones**")
    if stones is None:
        frame.note(f"Not counted: {audit['stepping_stones_reason']}.")
    elif not stones:
        frame.note("None: every token a merge takes as a parent is also left in the encoding often.")
    else:
        frame.note(
            f"{min(len(stones), tables.ROWS_SHOWN):,} of {len(stones):,}, most formed first."
            + (" A token or step links to the Merge history page at that step." if links.href_at else "")
        )
        linked_table(tables.stones_html(stones, links), W.AUDIT_STONES, run)
    unreachable = audit["unreachable"]
    st.markdown("**Unreachable tokens**")
    if not unreachable:
        frame.note("None: every token's text, encoded alone, gives back that token.")
    else:
        frame.note(
            f"{min(len(unreachable), tables.ROWS_SHOWN):,} of {len(unreachable):,}: those whose text "
            "encodes to other tokens first, then those with no text, by id."
        )
        linked_table(
            tables.unreachable_html(unreachable, result["unreachable_tokens"], links),
            W.AUDIT_UNREACHABLE,
            run,
        )
    st.markdown("**Unused tokens**")
    unused = result["unused_sample"]
    if not unused:
        frame.note("None: the corpus uses every ordinary token.")
    else:
        frame.note(
            f"{len(unused):,} of {audit['unused']['count']:,}"
            + (", a random sample (seed 0), by id." if len(unused) < audit["unused"]["count"] else ", by id.")
        )
        linked_table(tables.unused_html(unused, links), W.AUDIT_UNUSED, run)
