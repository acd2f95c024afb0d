"""The research figures of a Compare column on a corpus's lines, in a worker process: the audit's
Rényi efficiency, bytes per token, unreachable and unused counts and tokens per script
(explorer.measures.audit.research_figures), for the tokenizer a `TokenizerColumn.spec` describes.

- `column_research(spec, lines)`: {"research": figures, "research_reason": None}, or
  {"research": None, "research_reason": one sentence} for a column the audit cannot take (an
  upload only the tokenizers library reads).
- The unreachable pass encodes every token of the vocabulary alone (0.1 s for GPT-2, 0.4 s for
  o200k): its counts depend on the tokenizer alone, so they are kept per tokenizer content (a
  bundled name, or a digest of the tokenizer.json or model file) in this process, the last
  `UNREACHABLE_KEPT` of them.

- `research_table(rows)`: the page's table of them, one row per column (pure: pandas, no
  streamlit); `RESEARCH_DEFINITIONS`, each column's exact definition with its paper.

What it does not do: define the figures (explorer.measures.audit), keep results between processes
(explorer.ui.compare.measuring stores them beside the run) or draw them.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING

from explorer.measures.audit import research_figures, unreachable_counts
from explorer.measures.audit_subjects import (
    AuditSubject,
    subject_from_loaded,
    subject_from_pretrained,
    subject_from_tokenizer,
)

if TYPE_CHECKING:
    import pandas as pd

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


# ---------------------------------------------------------------- the table

RENYI = "Rényi eff. (α 2.5)"
BYTES_PER_TOKEN = "bytes / token"
UNREACHABLE = "unreachable"
NOT_UTF8 = "of which not UTF-8"
UNUSED = "unused"
TOKENS_PER_CHARACTER = "tokens/char"
NEUTRAL = ("Common", "Inherited")  # no one language's: their columns come last
RESEARCH_DEFINITIONS = {
    RENYI: "H_α(p) / log|V| with α = 2.5, p_i = count_i / tokens over the ids the sample uses, "
    "H_α(p) = log(Σ p_i^α) / (1 − α), |V| the ordinary (non-special) tokens of the vocabulary, used or "
    "not; 1 when every token is used equally often. Zouhar et al. 2023, “Tokenization and the noiseless "
    "channel” (ACL 2023), who found this α to predict downstream (BLEU) quality best.",
    BYTES_PER_TOKEN: "UTF-8 bytes of the sample's lines (line breaks excluded) ÷ their tokens, special-token "
    "text encoded as plain text (as TokEval, swiss-ai, reports compression).",
    UNREACHABLE: "ordinary ids whose decoded text, encoded alone by the same tokenizer, does not give back "
    "exactly that id: a model never sees them as such in training, so they may be under-trained. It "
    "depends on the vocabulary alone, not on the corpus. Land & Bartolo 2024, “Fishing for Magikarp: "
    "automatically detecting under-trained tokens in large language models” (cohere-ai/magikarp).",
    NOT_UTF8: "the unreachable ids whose bytes are not valid UTF-8 (part of a character): no text "
    "encodes to them alone, though they occur inside longer texts.",
    UNUSED: "ordinary ids that never occur in the sample's encoding (a larger sample leaves fewer).",
    TOKENS_PER_CHARACTER: "per Unicode script (\\p{Script=…}): the tokens that belong to the script ÷ "
    "the script's characters in the sample (per-script fertility, as TokEval, swiss-ai, reports it per "
    "language). When a line's tokens' bytes join to the line's UTF-8 (byte-level tokenizers), a token "
    "belongs to the script of the first character it covers, whole or in part, that is neither Common "
    "nor Inherited (else to Common or Inherited): a byte of a Chinese character counts as Han. "
    "Otherwise (a normalizer, SentencePiece's ▁, WordPiece's ##) it belongs to the script of the whole "
    "characters in its own bytes, and a token of part of a character only (byte fallback) to none.",
}


def script_column(script: str) -> str:
    return f"{TOKENS_PER_CHARACTER} {script}"


def research_table(rows: Sequence[tuple[str, dict | None]]) -> pd.DataFrame:
    """One row per column (indexed by its name; NaN where its figures are None): Rényi
    efficiency, bytes per token, unreachable (and not UTF-8) and unused counts, then tokens per
    character of each script of the sample, the scripts with most characters first and Common and
    Inherited last ("(part of a character)" and "(special)" have no characters: no column)."""
    characters: dict[str, int] = {}
    for _, figures in rows:
        for script, counts in ((figures or {}).get("scripts") or {}).items():
            characters[script] = max(characters.get(script, 0), counts["characters"])
    scripts = sorted(
        (script for script, count in characters.items() if count),
        key=lambda script: (script in NEUTRAL, -characters[script], script),
    )
    nan = float("nan")
    table_rows: dict[str, dict[str, float]] = {}
    for name, figures in rows:
        if figures is None:
            table_rows[name] = {}
            continue
        row = {
            RENYI: _number(figures["renyi_efficiency"]["value"]),
            BYTES_PER_TOKEN: _number(figures["bytes_per_token"]),
            UNREACHABLE: figures["unreachable_count"],
            NOT_UTF8: figures["unreachable_not_utf8"],
            UNUSED: figures["unused_count"],
        }
        for script in scripts:
            counts = figures["scripts"].get(script)
            row[script_column(script)] = (
                counts["tokens"] / counts["characters"] if counts and counts["characters"] else nan
            )
        table_rows[name] = row
    import pandas as pd  # here: a worker measuring a corpus needs the figures, not a table

    columns = [RENYI, BYTES_PER_TOKEN, UNREACHABLE, NOT_UTF8, UNUSED, *map(script_column, scripts)]
    table = pd.DataFrame.from_dict(table_rows, orient="index", columns=columns)
    table.index.name = "tokenizer"
    return table


def _number(value: float | None) -> float:
    return float("nan") if value is None else float(value)
