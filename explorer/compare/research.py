"""The research figures of a Compare column on a corpus's lines, in a worker process: the audit's
Rényi efficiency, bytes per token, unreachable and unused counts and tokens per script
(explorer.lessons.audit.research_figures), for the tokenizer a `TokenizerColumn.spec` describes.

- `column_research(spec, lines)`: {"research": figures, "research_reason": None}, or
  {"research": None, "research_reason": one sentence} for a column the audit cannot take (an
  upload only the tokenizers library reads).
- The unreachable pass encodes every token of the vocabulary alone (0.6 s for GPT-2, 3 s for
  o200k): its counts depend on the tokenizer alone, so they are kept per tokenizer content (a
  bundled name, or a digest of the tokenizer.json or model file) in this process, the last
  `UNREACHABLE_KEPT` of them.

What it does not do: define the figures (explorer.lessons.audit), keep results between processes
(explorer.ui.compare.measuring stores them beside the run) or draw them.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Sequence

from explorer.lessons.audit import research_figures, unreachable_counts
from explorer.lessons.audit_subjects import (
    AuditSubject,
    subject_from_loaded,
    subject_from_pretrained,
    subject_from_tokenizer,
)

UNREACHABLE_KEPT = 32
LIBRARY_ONLY = (
    "an upload only the tokenizers library reads: the audit reads a vocabulary through our own "
    "reader, a bundled tokenizer or a SentencePiece model, so its research figures are not measured"
)
_unreachable_by_content: OrderedDict[str, dict] = OrderedDict()


def subject_for(spec: dict) -> tuple[str, AuditSubject] | None:
    """(content key, audit subject) of a column's spec; None for an upload only the tokenizers
    library reads. Bundled tokenizers without their BPE replay (the research figures need none)."""
    name = spec.get("name", "tokenizer")
    if "pretrained" in spec:
        return f"pretrained:{spec['pretrained']}", subject_from_pretrained(spec["pretrained"], replay=False)
    if "tokenizer_json" in spec:
        from explorer.pipeline.tokenizer_json import tokenizer_from_json

        exported = spec["tokenizer_json"]
        digest = hashlib.sha256(exported.encode("utf-8", "surrogatepass")).hexdigest()
        return f"json:{digest}", subject_from_tokenizer(tokenizer_from_json(exported), name)
    if "sentencepiece" in spec:
        from explorer.pretrained.sentencepiece_backend import SentencePieceTokenizer

        data = spec["sentencepiece"]
        model = SentencePieceTokenizer.from_bytes(data, name)
        reason = "stepping stones are replayed for tiktoken-style and our BPE files, not SentencePiece ones"
        return f"sentencepiece:{hashlib.sha256(data).hexdigest()}", subject_from_loaded(model, name, reason)
    return None


def cached_unreachable_counts(content: str, subject: AuditSubject) -> dict:
    """`unreachable_counts(subject)`, kept in this process under `content` (module docstring)."""
    found = _unreachable_by_content.get(content)
    if found is None:
        found = unreachable_counts(subject)
        _unreachable_by_content[content] = found
        while len(_unreachable_by_content) > UNREACHABLE_KEPT:
            _unreachable_by_content.popitem(last=False)
    else:
        _unreachable_by_content.move_to_end(content)
    return dict(found)


def column_research(spec: dict, lines: Sequence[str]) -> dict:
    """The research figures of the column `spec` on `lines` (module docstring)."""
    found = subject_for(spec)
    if found is None:
        return {"research": None, "research_reason": LIBRARY_ONLY}
    content, subject = found
    unreachable = cached_unreachable_counts(content, subject)
    return {"research": research_figures(subject, lines, unreachable), "research_reason": None}
