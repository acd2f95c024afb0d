"""The Compare page's section "Your merges vs a pretrained tokenizer's": a BPE run's merges
against a bundled byte-level BPE tokenizer's (GPT-2 by default; the choice is in the page's URL,
explorer.ui.compare.compare_link): how many of its first N merges the pretrained one has too, at
which ranks, and the first merges where the two part. A closed section, open at first only when
the link names another pretrained tokenizer than the default; nothing is compared before it opens.

The comparison runs in a worker process (explorer.work.tasks.merge_overlap_task: recovering a
tiktoken vocabulary's merges takes seconds), keyed by an HMAC of the run's merges and the
pretrained name, so any visitor comparing the same merges with the same tokenizer shares one job
and one result in the run store; the result is also kept with the run
(`explorer.runs.run.per_run`). The section
waits for it up to `INLINE_SECONDS`, then a poller redraws the page once it is in.

What it does not do: compare anything itself (explorer.compare.merge_overlap) or build the
figure (explorer.drawing.charts.merge_overlap_figure).
"""

from __future__ import annotations

import hashlib
from typing import cast

import streamlit as st

from explorer.compare.merge_overlap import (
    BYTE_LEVEL_BPE,
    DEFAULT_PRETRAINED,
    BytePair,
    MergeOverlap,
    Parting,
    not_comparable_reason,
    run_byte_merges,
)
from explorer.drawing import charts
from explorer.drawing.markdown_literal import markdown_literal
from explorer.drawing.token_html import escape_text, readable_token, scroll_region
from explorer.drawing.wording import plural
from explorer.pretrained import info_for
from explorer.runs.run import MergeRun, Run, per_run
from explorer.runstore import canonical_json, run_key
from explorer.session import serving
from explorer.ui.common import frame, state, worker_results
from explorer.ui.common import plotly_figures as figures
from explorer.ui.compare.sections import merge_runs
from explorer.work import tasks

W = state.Widget

TITLE = "Your merges vs a pretrained tokenizer's"
INLINE_SECONDS = 1.0  # then the poller: the live box's keys wait for the page's run (measuring.py)
TIME_LIMIT = 300.0


@per_run
def run_merges(run: MergeRun) -> list[BytePair]:
    """The run's merges as byte pairs, in merge order (kept with the run)."""
    trace = run.history
    return run_byte_merges(trace.vocab, trace.merges, trace.config.is_byte_level)


@per_run
def _comparisons(run: MergeRun) -> dict[str, MergeOverlap]:
    """The comparisons of the run's merges with pretrained tokenizers, by name, as they come."""
    return {}


def overlap_key(merges: list[BytePair], pretrained: str) -> str:
    """The comparison's key in the run store: an HMAC of the run's merges and the pretrained name."""
    digest = hashlib.sha256(
        b"".join(len(a).to_bytes(4, "big") + a + len(b).to_bytes(4, "big") + b for a, b in merges)
    )
    return run_key(serving.secret(), digest.hexdigest(), canonical_json({"merge_overlap": pretrained}))


def _overlap_result(result: dict) -> bool:
    try:
        MergeOverlap.from_dict(result)
    except (KeyError, TypeError, ValueError):
        return False
    return True


def comparison(run: MergeRun, pretrained: str) -> MergeOverlap | str | None:
    """The comparison (kept with the run, stored, or from a worker), a sentence when the worker
    failed, or None while it still runs."""
    known = _comparisons(run)
    if pretrained in known:
        return known[pretrained]
    merges = run_merges(run)
    key = overlap_key(merges, pretrained)
    result, problem = worker_results.worker_result(
        state.OVERLAP_JOBS,
        key,
        "merge_overlap",
        lambda: serving.pool().request(
            key, tasks.merge_overlap_task, merges, pretrained, time_limit=TIME_LIMIT
        ),
        INLINE_SECONDS,
        f"Comparing with {info_for(pretrained).label}'s merges in a worker …",
        accept=_overlap_result,
    )
    if result is None:
        return problem
    known[pretrained] = MergeOverlap.from_dict(result)
    return known[pretrained]


def partings_html(partings: list[Parting], side: str) -> str:
    """One parting a row: its merge n on its own side and its parts, readable and escaped; a
    plain table (the page's one data grid is the corpus figures). `side`: "run" or "pretrained",
    in the table's `data-side`.

    >>> table = partings_html([Parting(4, b" a", b"<b>")], "run")
    >>> '<td>5</td><td class="token">·a</td><td class="token">&lt;b&gt;</td>' in table
    True
    """
    head = "".join(f"<th>{name}</th>" for name in ("merge n", "left", "right", "merged"))
    rows = "".join(
        f"<tr><td>{part.rank + 1:,}</td>"
        + "".join(
            f'<td class="token">{escape_text(readable_token(token))}</td>'
            for token in (part.left, part.right, part.left + part.right)
        )
        + "</tr>"
        for part in partings
    )
    return (
        f'<div class="figures-table partings" data-side="{escape_text(side)}"'
        f"{scroll_region('Where the merges part')}><table><thead><tr>{head}"
        f"</tr></thead><tbody>{rows}</tbody></table></div>"
    )


def merge_overlap_section(run: Run) -> None:
    """The section: a one-line reason for a run whose merges cannot be compared, else a closed
    section (a link naming another pretrained tokenizer than the default opens it:
    explorer.ui.compare.compare_link) with the pretrained picker, the figures and the first places
    the two part. Nothing is compared until it is opened."""
    config = run.history.config
    reason = not_comparable_reason(config.algorithm, config.prefix, config.suffix)
    merges = merge_runs([run])
    if reason is not None or not merges:
        st.subheader(TITLE)
        frame.info(
            f"Not compared for this run: {reason or 'it records no merges'}. Train a BPE run to see it."
        )
        return
    with frame.section(TITLE, W.SECTION_OVERLAP) as opened:
        if opened:
            _overlap(merges[0])


def _overlap(run: MergeRun) -> None:
    config = run.history.config
    state.keep_choice(W.OVERLAP_PRETRAINED, list(BYTE_LEVEL_BPE), DEFAULT_PRETRAINED)
    # A cast: Streamlit's selectbox types as None under python 3.10 (see explorer.ui.compare.live_columns).
    pretrained = cast(
        str,
        st.selectbox(
            "Pretrained tokenizer (byte-level BPE)",
            list(BYTE_LEVEL_BPE),
            format_func=lambda name: info_for(name).label,
            key=W.OVERLAP_PRETRAINED,
        ),
    )
    label = info_for(pretrained).label
    if not run.history.merges:
        st.info("This run made no merges.")
        return
    found = comparison(run, pretrained)
    if found is None:
        worker_results.poll_until_done(state.OVERLAP_JOBS, "Still comparing the merges in a worker …")
        return
    if isinstance(found, str):
        frame.error(f"Could not compare with {label}: {found}")
        return
    _draw(found, label, config.is_byte_level)


def order_text(found: MergeOverlap, label: str) -> str:
    """How long the two agree from the first merge on, in a sentence."""
    if found.same_order == 1:
        text = f"The run's first merge is {label}'s first"
    elif found.same_order:
        text = (
            f"The run's first {found.same_order:,} merges are {label}'s first {found.same_order:,}, in order"
        )
    else:
        text = f"The run's very first merge is not {label}'s"
    if found.same_set > found.same_order:
        text += f"; the first {found.same_set:,} of each are the same merges in another order"
    return text + "."


def _draw(found: MergeOverlap, label: str, byte_level: bool) -> None:
    share = found.total_matched / found.run_merges
    median = found.median_rank()
    median_text = (
        f"; the median of their places there is merge {median + 1:,.0f}" if median is not None else ""
    )
    lead = f"{found.total_matched:,} of this run's {plural(found.run_merges, 'merge')} ({share:.0%})"
    st.markdown(
        f"**{markdown_literal(lead)}**"
        + markdown_literal(
            f" are merges of {label} too (of its {found.pretrained_merges:,}){median_text}. "
            + order_text(found, label)
        )
    )
    figures.plotly_chart(
        charts.merge_overlap_figure(found.steps, found.matched, found.rank_points(), found.run_merges, label),
        state.Chart.MERGE_OVERLAP,
    )
    left, right = st.columns(2)
    with left:
        _partings(
            f"**Where they part: the run's first merges that {markdown_literal(label)} lacks**",
            found.run_only,
            "run",
            f"None: every merge of the run is one of {markdown_literal(label)}'s.",
        )
    with right:
        _partings(
            f"**{markdown_literal(label)}'s first merges that the run lacks**",
            found.pretrained_only,
            "pretrained",
            f"None: its first {plural(found.run_merges, 'merge')} are all the run's.",
        )
    st.caption(
        "A merge is the same when it joins the same bytes on the left to the same bytes on the right. "
        "GPT-2 and DeepSeek list their merges; the other tiktoken-style vocabularies do not: each token's "
        "two parents are recovered by BPE over its own bytes with the tokens ranked before it (as the "
        "tokenizers library converts one; for GPT-2 this gives back its list exactly), and a merge's "
        "rank is its token's. Merge n counts from 1 on each side; the pretrained side's are "
        "among its first as many merges as the run made."
        + (
            ""
            if byte_level
            else " This run's pre-tokenizer is not byte-level: its tokens are compared by their UTF-8, "
            "and its words carry no leading space where the pretrained tokens often do."
        )
    )


def _partings(heading: str, partings: list[Parting], side: str, none_text: str) -> None:
    """One side's partings under `heading` (Markdown), or `none_text` when it has none."""
    st.markdown(heading)
    if partings:
        st.html(partings_html(partings, side))
    else:
        st.caption(none_text)
