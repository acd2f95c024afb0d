"""The Compare page's URL parameters and what they hold, below the widgets: the parameter names,
the sentences a link keeps (whole lines up to `TEXT_LINK_LIMIT` characters), the column ids a link
names (stable ids: `pretrained:gpt2`, a run's `run:` + the start of its store key, an upload's key:
explorer.runstore.keys.upload_key), and what the page says of those it does not have.

What it does not do: read or write the widgets (explorer.ui.compare.compare_link).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from explorer.runstore import keys
from explorer.samples import SAMPLE_SENTENCES

COLUMNS_PARAM = "cols"
TEXT_PARAM = "text"
SPECIAL_PARAM = "special"
DIFF_PARAM = "diff"
STEPS_PARAM = "steps"
STEPS_TEXT_PARAM = "steps_text"
WHOLE_PARAM = "whole"
DECODE_PARAM = "decode"
IDS_PARAM = "ids"
OVERLAP_PARAM = "overlap"
NO_COLUMNS = "none"
TEXT_LINK_LIMIT = 2_000  # characters of the sentences a link keeps (whole lines)
SHORT_TEXT_LIMIT = 500  # characters of the step-by-step text and of the ids a link keeps
COLUMNS_LIMIT = 40  # column ids read from a link
DEFAULT_TEXT = "\n".join(SAMPLE_SENTENCES)


def text_for_link(text: str) -> tuple[str, int]:
    """The sentences a link keeps (whole lines, at most TEXT_LINK_LIMIT characters) and how many
    lines it leaves out.

    >>> text_for_link("one\\ntwo")
    ('one\\ntwo', 0)
    >>> text_for_link("a" * 1500 + "\\n" + "b" * 1000)[1]
    1
    """
    if len(text) <= TEXT_LINK_LIMIT:
        return text, 0
    lines = text.split("\n")
    kept: list[str] = []
    size = 0
    for line in lines:
        if size + len(line) + (1 if kept else 0) > TEXT_LINK_LIMIT:
            break
        size += len(line) + (1 if kept else 0)
        kept.append(line)
    return "\n".join(kept), len(lines) - len(kept)


def column_ids(params: Mapping[str, str]) -> list[str] | None:
    """The column ids a link names, in its order (None: the link names none, the page's defaults)."""
    if COLUMNS_PARAM not in params:
        return None
    value = params[COLUMNS_PARAM]
    if value == NO_COLUMNS:
        return []
    return [key for key in value.split(",")[:COLUMNS_LIMIT] if key]


def missing_notes(missing: Sequence[str]) -> list[str]:
    """What the page says about the column ids a link names that are not here
    (explorer.ui.compare.compare_link.pick_from_link): an upload of an older version's link
    (`keys.OLD_UPLOAD_LINK`), and the expired others."""
    old = [key for key in missing if keys.is_old_upload_key(key)]
    notes = [keys.OLD_UPLOAD_LINK] if old else []
    if len(missing) > len(old):
        notes.append(
            f"The link names {len(missing) - len(old)} tokenizer(s) this server no longer has (an "
            "expired run or upload): the others are shown."
        )
    return notes
