"""The Vocabulary page's audit section, the pure half (no streamlit): what to audit and its link
parameters, the stated corpus sample, the step of each merge for our runs, and the section's
tables as escaped HTML whose tokens link to the Merge history page at the step that made them.

- `AuditChoice`: this run (at its last step, or after `step` merges or rounds), a tokenizer
  uploaded on the Compare page (by its key: explorer.runstore.keys.upload_key), or a bundled
  pretrained tokenizer; `choice_from_params` / `choice_params` read and write it as the URL's
  `audit` (an upload's key or a bundled name; none: this run) and `audit_step`.
- `audit_sample(corpus_text)`: the corpus's lines sampled as the Compare page's corpus figures are
  (`explorer.checks.corpus_sample`); `sample_note` says so in words.
- `merge_steps(merges, k)`: for a merge history, the step that made each token (its first merge
  rank + 1: the Merge history page at that step explains that merge) and the merges that take
  each token as a parent, with their steps, among the first k.
- `stones_html`, `unreachable_html`, `unused_html`, `scripts_html`: the tables, every token and
  user string through `escape_text`, every link through `html.escape`.

The definitions (one line each, `DEFINITIONS`) say what docs/audit.md says.

What it does not do: compute the audit (explorer.measures.audit, in a worker: explorer.work.tasks
.audit_task), run jobs or draw (explorer.ui.vocabulary.audit_section).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlencode

from explorer.checks import SAMPLE_BYTES, SAMPLE_SEED, corpus_sample, utf8_size
from explorer.drawing.token_html import escape_text, scroll_region
from explorer.drawing.wording import plural
from explorer.runs.settings import read_whole_number
from explorer.runstore.keys import OLD_UPLOAD_LINK, is_old_upload_key, is_upload_key

SUBJECT_PARAM, AUDIT_STEP_PARAM = "audit", "audit_step"
THIS_RUN = "run"  # the subject option that is this run (a link leaves `audit` out for it)
ROWS_SHOWN = 100  # rows of the stepping-stone and unreachable tables
CONSUMERS_SHOWN = 6  # merges named per stepping stone
HISTORY_PAGE = "Merge_history"  # the URL path of pages/1_Merge_history.py
HISTORY_STEP_PARAM = "step"  # its step (explorer.ui.history.player.STEP_PARAM: another page's package)

DEFINITIONS = {
    "Rényi efficiency": "H₂.₅(p) / log |V|: p the share of each token the corpus uses, |V| the ordinary "
    "tokens, used or not; 1 means the corpus uses every token equally often.",
    "Unreachable": "a token whose text, encoded alone by the same tokenizer, does not give back that "
    "token (bytes that are part of a character have no text at all).",
    "Unused": "a token the corpus's encoding never uses.",
    "Stepping stone": "a parent of some merge, formed at least once while encoding the corpus, whose "
    "final count is at most 10% of the times it was formed: the later merges ate it.",
}


# ---------------------------------------------------------------- what to audit


@dataclass(frozen=True)
class AuditChoice:
    """This run (`pretrained` and `upload` None) after `step` steps (None: its last), a bundled
    tokenizer, or an upload by its key."""

    pretrained: str | None = None
    step: int | None = None
    upload: str | None = None

    @property
    def this_run(self) -> bool:
        return self.pretrained is None and self.upload is None

    @property
    def subject(self) -> str:
        """The subject widget's option: THIS_RUN, an upload's key or a bundled name."""
        return self.upload or self.pretrained or THIS_RUN

    def described(self, run_key: str) -> dict:
        """What the audit is of, for its key (the run by its store key, an upload by its content
        key: whoever audits the same files on the same corpus shares the result)."""
        if self.upload is not None:
            return {"upload": self.upload}
        if self.pretrained is not None:
            return {"pretrained": self.pretrained}
        return {"run": run_key, "step": self.step}


def choice_from_params(
    params: Mapping[str, str],
    steps: int,
    names: Sequence[str],
    noun: str = "merge",
    uploads: Collection[str] = (),
) -> tuple[AuditChoice, list[str]]:
    """The audit a link names, and one sentence per value it ignored. `uploads`: the keys of the
    uploads the session holds (a link's upload brought back from the store first). A step equal to
    the run's last is the last step (None).

    >>> choice_from_params({"audit_step": "3"}, 10, ["gpt2"])
    (AuditChoice(pretrained=None, step=3, upload=None), [])
    >>> choice_from_params({"audit": "gpt2", "audit_step": "3"}, 10, ["gpt2"])[0]
    AuditChoice(pretrained='gpt2', step=None, upload=None)
    >>> choice_from_params({"audit_step": "11"}, 10, ["gpt2"])[1][0][:50]
    'The audit step in the link (11) is not a whole num'
    >>> key = "upload:" + "0" * 32
    >>> choice_from_params({"audit": key}, 10, ["gpt2"], uploads=[key])[0].upload == key
    True
    >>> choice_from_params({"audit": key}, 10, ["gpt2"])[1][0][:48]
    'The uploaded tokenizer the link audits is no lon'
    """
    notes: list[str] = []
    subject = params.get(SUBJECT_PARAM)
    pretrained = upload = None
    if subject is not None and subject != THIS_RUN:
        if subject in names:
            pretrained = subject
        elif is_upload_key(subject) and subject in uploads:
            upload = subject
        elif is_old_upload_key(subject):
            notes.append(f"{OLD_UPLOAD_LINK} This run is audited.")
        elif is_upload_key(subject):
            notes.append(
                "The uploaded tokenizer the link audits is no longer kept on this server (uploads are "
                "kept for a while, the oldest dropped first): this run is audited. Upload its files on "
                "the Compare page to audit it."
            )
        else:
            notes.append(
                f"Unknown tokenizer {subject[:60]!r} for the audit in the link (choose {THIS_RUN}, an "
                f"upload's key or one of {', '.join(names)}): this run is audited."
            )
    step = None
    raw = params.get(AUDIT_STEP_PARAM)
    if raw is not None and pretrained is None and upload is None:
        linked = read_whole_number(raw, 0, steps)
        if linked is not None:
            step = linked if linked < steps else None
        else:
            notes.append(
                f"The audit step in the link ({raw[:20]}) is not a whole number from 0 to {steps} (the "
                f"{noun}s of this run): the last step is audited."
            )
    return AuditChoice(pretrained, step, upload), notes


def choice_params(choice: AuditChoice) -> dict[str, str | None]:
    """The URL parameters of `choice`: none for this run at its last step.

    >>> choice_params(AuditChoice(step=0)), choice_params(AuditChoice("gpt2"))
    ({'audit': None, 'audit_step': '0'}, {'audit': 'gpt2', 'audit_step': None})
    >>> choice_params(AuditChoice(upload="upload:00"))
    {'audit': 'upload:00', 'audit_step': None}
    """
    step = None if not choice.this_run or choice.step is None else str(choice.step)
    return {SUBJECT_PARAM: None if choice.this_run else choice.subject, AUDIT_STEP_PARAM: step}


def audit_sample(corpus_text: str) -> dict:
    """The audit task's sample: the one Compare's corpus figures measure by default."""
    return corpus_sample(corpus_text)


def sample_note(corpus_text: str, lines: int) -> str:
    """Which text the audit is of, in words (`lines`: the lines audited)."""
    if audit_sample(corpus_text)["kind"] == "whole":
        return f"the whole training corpus ({plural(lines, 'line')})"
    return (
        f"a random sample of the training corpus's lines: {plural(lines, 'line')}, at most {SAMPLE_BYTES:,} "
        f"bytes of its {utf8_size(corpus_text):,} (seed {SAMPLE_SEED}, the sample Compare measures)"
    )


# ---------------------------------------------------------------- the steps of our merges


@dataclass(frozen=True)
class MergeSteps:
    """`made_at`: token id -> the step (1 = the first merge) whose merge made it first;
    `consumers`: token id -> (step, left, right, merged) of each merge taking it as a parent."""

    made_at: dict[int, int] = field(default_factory=dict)
    consumers: dict[int, list[tuple[int, int, int, int]]] = field(default_factory=dict)


def merge_steps(merges: Sequence[tuple[int, int, int]], k: int | None = None) -> MergeSteps:
    """The steps of the first `k` merges (all when None); a pair merged twice counts once, at
    its first step.

    >>> steps = merge_steps([(1, 2, 5), (5, 3, 6), (5, 5, 7)])
    >>> steps.made_at, steps.consumers[5]
    ({5: 1, 6: 2, 7: 3}, [(2, 5, 3, 6), (3, 5, 5, 7)])
    """
    made_at: dict[int, int] = {}
    consumers: dict[int, list[tuple[int, int, int, int]]] = {}
    seen: set[tuple[int, int]] = set()
    for rank, (left, right, merged) in enumerate(merges[:k]):
        step = rank + 1
        made_at.setdefault(merged, step)
        if (left, right) in seen:
            continue
        seen.add((left, right))
        consumers.setdefault(left, []).append((step, left, right, merged))
        if right != left:
            consumers.setdefault(right, []).append((step, left, right, merged))
    return MergeSteps(made_at, consumers)


@dataclass(frozen=True)
class TokenLinks:
    """How the tables name our run's tokens: `names[id]` (its readable form), and `href_at(step)`,
    the Merge history page's URL at a step; empty for a pretrained tokenizer (no links)."""

    steps: MergeSteps = field(default_factory=MergeSteps)
    names: Sequence[str] = ()
    href_at: Callable[[int], str] | None = None
    until: int | None = None  # the audited step: later merges are not the audited tokenizer's

    def consumers(self, token_id: int) -> list[tuple[int, int, int, int]] | None:
        """The merges up to `until` that take `token_id` as a parent; None without merge steps."""
        found = self.steps.consumers.get(token_id)
        if found is None or self.until is None:
            return found
        return [consumer for consumer in found if consumer[0] <= self.until]

    def name(self, token_id: int, fallback: str) -> str:
        return self.names[token_id] if 0 <= token_id < len(self.names) else fallback

    def step_link(self, step: int, text_html: str, title: str) -> str:
        """`text_html` as a link to the Merge history page at `step` (as is without `href_at`)."""
        if self.href_at is None:
            return text_html
        href = html.escape(self.href_at(step), quote=True)
        return (
            f'<a href="{href}" target="_self" data-step="{step:d}" title="{escape_text(title)}">'
            f"{text_html}</a>"
        )

    def token(self, token_id: int, text: str) -> str:
        """A token's cell: its escaped text, linked to the step that made it when a merge did."""
        shown = f"<code>{escape_text(text)}</code>"
        step = self.steps.made_at.get(token_id)
        if step is None:
            return shown
        return self.step_link(step, shown, f"Merge history at step {step}: the merge that made it")

    def made_at(self, token_id: int) -> str:
        step = self.steps.made_at.get(token_id)
        if step is None:
            return "—"
        return self.step_link(step, f"{step:,}", f"Merge history at step {step}")


def history_href(params: Mapping[str, str]) -> str:
    """The Merge history page's URL (relative to any page of the app) with `params`.

    >>> history_href({"run": "k", "step": "3"})
    'Merge_history?run=k&step=3'
    """
    return f"{HISTORY_PAGE}?{urlencode(dict(params))}"


# ---------------------------------------------------------------- the tables


def _table(
    headings: Sequence[tuple[str, str]], rows: list[str], css: str, label: str, text_last: bool = False
) -> str:
    """A table named `label` (it scrolls in its box: explorer.drawing.token_html.scroll_region);
    `text_last`: its last column is text (left-aligned, wrapping)."""
    head = "".join(
        f'<th title="{escape_text(help_text)}"'
        + (' class="audit-text"' if text_last and index == len(headings) - 1 else "")
        + f">{escape_text(text)}</th>"
        for index, (text, help_text) in enumerate(headings)
    )
    return (
        f'<div class="figures-table audit-table {css}"{scroll_region(label)}>'
        f"<table><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def stone_rows(stones: Sequence[dict], links: TokenLinks) -> list[dict]:
    """Each stepping stone as the table shows it: token, made_at (step or None), formed, final,
    ratio (final / formed) and consumed_by [(step or None, text)], our run's from its merges."""
    rows = []
    for stone in stones:
        token_id = stone["id"]
        consumers = links.consumers(token_id)
        consumed: list[tuple[int | None, str]]
        if consumers is not None:
            consumed = [
                (
                    step,
                    f"{links.name(left, str(left))} + {links.name(right, str(right))} → "
                    f"{links.name(merged, str(merged))}",
                )
                for step, left, right, merged in consumers
            ]
        else:
            consumed = [(None, text.replace(" -> ", " → ")) for text in stone["consumed_by"]]
        rows.append(
            {
                "id": token_id,
                "token": stone["token"],
                "made_at": links.steps.made_at.get(token_id),
                "formed": stone["formed"],
                "final": stone["final"],
                "ratio": stone["final"] / stone["formed"],
                "consumed_by": consumed,
            }
        )
    return rows


def consumer_html(step: int | None, text: str, links: TokenLinks) -> str:
    """A consuming merge, linked to its step when known (kept on one line where it fits)."""
    if step is None:
        return f'<span class="audit-consumer">{escape_text(text)}</span>'
    linked = links.step_link(step, escape_text(text), f"Merge history at step {step}")
    return f'<span class="audit-consumer">{linked} <small>(step {step:,})</small></span>'


def stones_html(stones: Sequence[dict], links: TokenLinks) -> str:
    """The first ROWS_SHOWN stepping stones (most formed first)."""
    rows = []
    for row in stone_rows(stones[:ROWS_SHOWN], links):
        consumed = [consumer_html(step, text, links) for step, text in row["consumed_by"][:CONSUMERS_SHOWN]]
        more = len(row["consumed_by"]) - CONSUMERS_SHOWN
        if more > 0:
            consumed.append(f"and {more:,} more")
        rows.append(
            f'<tr data-id="{row["id"]}"><th>{links.token(row["id"], row["token"])}</th>'
            f"<td>{links.made_at(row['id'])}</td><td>{row['formed']:,}</td><td>{row['final']:,}</td>"
            f'<td>{row["ratio"]:.1%}</td><td class="audit-text">{" · ".join(consumed)}</td></tr>'
        )
    headings = [
        ("token", "Links to the Merge history page at the step that made it"),
        ("made at step", "The merge that made it (1 = the first merge)"),
        ("formed", "Times a merge made it while encoding the corpus"),
        ("final", "Times it is left in the corpus's encoding"),
        ("final / formed", "At most 10% for a stepping stone"),
        ("consumed by", "The merges that take it as a parent, with their steps"),
    ]
    return _table(headings, rows, "audit-stones", "Stepping stones", text_last=True)


def unreachable_order(entries: Sequence[dict]) -> list[dict]:
    """Tokens whose text encodes to other tokens first (the surprising ones), then those without a
    text (bytes that are part of a character), each by id."""
    return sorted(entries, key=lambda entry: (entry["encodes_to"] is None, entry["id"]))


def unreachable_html(entries: Sequence[dict], encodes_to: Mapping[str, list[str]], links: TokenLinks) -> str:
    """The first ROWS_SHOWN unreachable tokens: what their text encodes to, or why it has none;
    those with a text first (`unreachable_order`)."""
    rows = []
    for entry in unreachable_order(entries)[:ROWS_SHOWN]:
        token_id = entry["id"]
        if entry["encodes_to"] is None:
            result = escape_text(entry.get("reason", "no text"))
        else:
            names = encodes_to.get(str(token_id)) or [str(i) for i in entry["encodes_to"]]
            result = " ".join(
                links.token(i, links.name(i, name)) for i, name in zip(entry["encodes_to"], names)
            )
        rows.append(
            f'<tr data-id="{token_id}"><th>{links.token(token_id, entry["token"])}</th><td>{token_id}</td>'
            f'<td>{links.made_at(token_id)}</td><td class="audit-text">{result}</td></tr>'
        )
    headings = [
        ("token", "Links to the Merge history page at the step that made it"),
        ("id", "Its id"),
        ("made at step", "The merge that made it"),
        ("its text encodes to", "The tokens its text, encoded alone, gives (or why it has no text)"),
    ]
    return _table(headings, rows, "audit-unreachable", "Unreachable tokens", text_last=True)


def unused_html(sample: Sequence[dict], links: TokenLinks) -> str:
    """Unused tokens (the task's seeded sample of them), by id, on one wrapping line."""
    cells = [f"{links.token(entry['id'], entry['token'])} <small>{entry['id']}</small>" for entry in sample]
    return f'<div class="audit-unused">{" · ".join(cells)}</div>'


def scripts_html(scripts: Mapping[str, Mapping[str, int]]) -> str:
    """Per Unicode script: its code points in the corpus and its tokens in the encoding."""
    rows = [
        f"<tr><th>{escape_text(script)}</th><td>{row['characters']:,}</td>"
        f"<td>{row['distinct_characters']:,}</td><td>{row['tokens']:,}</td><td>{row['distinct_tokens']:,}</td></tr>"
        for script, row in scripts.items()
    ]
    headings = [
        ("script", "The token's first whole character that is not Common or Inherited decides its script"),
        (
            "code points",
            "Occurrences in the corpus of its code points (per script: a cluster such as 👍🏽 "
            "may hold two scripts' code points)",
        ),
        ("distinct code points", "Different code points"),
        ("tokens", "Occurrences in the encoding"),
        ("distinct tokens", "Different token ids"),
    ]
    return _table(headings, rows, "audit-scripts", "Tokens per script")
