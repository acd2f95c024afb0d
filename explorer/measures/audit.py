"""A vocabulary audit: which tokens of a tokenizer a corpus never uses, which no text can ever
produce on its own, which exist only as stepping stones to longer tokens, how evenly the corpus
uses the vocabulary, and how its scripts are tokenized.

`audit(subject, lines)` encodes the corpus line by line (each line one text, special-token text as
plain text) with an `AuditSubject` (explorer.measures.audit_subjects: `subject_from_tokenizer` for
our Tokenizer, that of a tokenizer.json or of a trace's step; `subject_from_pretrained` for a
bundled tokenizer) and returns a JSON-ready dict. Definitions (docs/audit.md says the same):

- tokens: the number of tokens of the corpus; bytes_per_token: the UTF-8 bytes of its lines (line
  breaks excluded) per token.
- renyi_efficiency (alpha 2.5): H_alpha(p) / log|V|, where p_i = count_i / tokens over the ids the
  corpus uses, H_alpha(p) = log(sum_i p_i^alpha) / (1 - alpha), and |V| the number of ordinary
  (non-special) tokens of the vocabulary, used or not. NaN without tokens or with |V| <= 1.
- unreachable: an ordinary id whose decoded text, encoded alone by the same tokenizer (special
  tokens' text as plain text), does not give back exactly [id]; listed with what it encodes to.
  The decoded text of a byte-level token is its bytes read as UTF-8. Bytes that are not valid
  UTF-8 (part of a character, such as b"\\xe2\\x82") cannot be typed as text: such an id counts as
  unreachable with "encodes_to": null and a "reason" (it can still appear inside the encoding of
  a longer text, as part of a character the vocabulary cannot spell otherwise). For a tokenizer
  that is not byte-level, the decoded text is `Tokenizer.decode([id])` (its decoder's view of
  the token alone: a WordPiece "##ab" or a Metaspace "▁ab" is what that decoder makes of it); for
  a bundled SentencePiece model or tokenizer.json, the library's `decode([id])` (SentencePiece
  drops the leading "▁" that its dummy prefix adds back, so a piece without "▁", from inside a
  word, is unreachable alone by this definition).
- unused: the ordinary ids that never occur in the corpus's encoding.
- stepping_stones (BPE only): tokens that are a parent (left or right) of at least one merge, were
  formed at least once, and whose count in the final encoding is at most 10% of the times they
  were formed (the LiteToken ratio, arXiv 2602.04706). "formed" counts each application of a
  merge producing the token while encoding the corpus: every occurrence of every pre-token counts
  (BPE is replayed by merge rank over each distinct pre-token, weighted by how often it occurs),
  and a token that is a single base character or byte is never formed. The replay must give the
  tokenizer's own ids for every line, else ValueError. For tiktoken-style tokenizers a merge is
  any adjacent pair whose bytes joined are a token (tiktoken merges so), and a token's parent pair
  (for "consumed_by") is recovered the standard way: BPE over the token's own bytes with ranks
  below its own; the two parts left are its parents. "A parent of a merge" then means one of
  these recovered pairs (a pair that tiktoken merges but that is no token's recovered pair, such
  as (a, bc) for a token abc recovered as (ab, c), still counts towards "formed").
- scripts: for each Unicode script (the `regex` package's \\p{Script=...}) present in the corpus,
  its characters (occurrences and distinct) and its tokens (occurrences in the encoding and
  distinct ids). A token belongs to the script of the first whole character of its bytes whose
  script is neither Common nor Inherited; else to Common (or Inherited) if it has a whole
  character; else (bytes of part of a character only) to "(part of a character)".

`research_figures(subject, lines)` gives the figures Compare shows beside its own (tokens,
bytes_per_token, renyi_efficiency, unreachable_count and unreachable_not_utf8, unused_count) and
scripts counted in context (`tokens_by_script_in_context`: a token that holds part of a character
belongs to that character's script when the line's bytes can be followed), without the replay.

What it does not do: read files or print (explorer.cli.audit_command does), encode by itself (the
tokenizers do), or draw anything. No streamlit.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

from explorer.drawing.token_html import readable_token
from explorer.measures.audit_subjects import AuditSubject, BpeReplay, Merge
from explorer.measures.unicode_scripts import NEUTRAL_SCRIPTS, script_of, token_script
from explorer.pipeline.models.bpe_word import merge_all

RENYI_ALPHA = 2.5
STEPPING_STONE_RATIO = 0.1
RESEARCH_BATCH = 4096  # lines encoded at once by research_figures: bounds its memory on any corpus
NOT_UTF8 = "its bytes are not valid UTF-8 (part of a character): no text encodes to it alone"


# ---------------------------------------------------------------- the figures


def renyi_efficiency(counts: Sequence[int], vocabulary: int, alpha: float = RENYI_ALPHA) -> float:
    """H_alpha(p) / log(vocabulary), p the distribution of `counts` (NaN without tokens or with a
    vocabulary of at most one token).

    >>> round(renyi_efficiency([5, 5, 5, 5], 4), 6)
    1.0
    """
    total = sum(counts)
    if not total or vocabulary <= 1:
        return math.nan
    entropy = math.log(sum((count / total) ** alpha for count in counts if count)) / (1 - alpha)
    return entropy / math.log(vocabulary)


def unreachable_tokens(subject: AuditSubject, batch: int = 4096) -> list[dict]:
    """The ordinary ids whose decoded text, encoded alone, is not exactly [id] (module docstring)."""
    found: list[dict] = []
    ids = sorted(subject.ordinary)
    texts: list[tuple[int, str]] = []
    for token_id in ids:
        text = subject.text_of(token_id)
        if text is None:
            found.append(
                {
                    "id": token_id,
                    "token": readable_token(subject.ordinary[token_id]),
                    "encodes_to": None,
                    "reason": NOT_UTF8,
                }
            )
        else:
            texts.append((token_id, text))
    for start in range(0, len(texts), batch):
        part = texts[start : start + batch]
        for (token_id, _), encoded in zip(part, subject.encode_batch([text for _, text in part])):
            if list(encoded) != [token_id]:
                found.append(
                    {
                        "id": token_id,
                        "token": readable_token(subject.ordinary[token_id]),
                        "encodes_to": list(encoded),
                    }
                )
    found.sort(key=lambda entry: entry["id"])
    return found


def formed_counts(replay: BpeReplay, lines: Sequence[str], encoded: Sequence[Sequence[int]]) -> Counter:
    """How many times each token is formed while encoding `lines` (module docstring), replaying BPE
    over each distinct pre-token weighted by its count. ValueError if the replay's ids differ from
    `encoded` (the tokenizer's own ids of each line)."""
    cache: dict[str, list[int]] = {}
    made_by_word: dict[str, list[int]] = {}
    occurrences: Counter[str] = Counter()
    formed: Counter[int] = Counter()
    for line, line_ids in zip(lines, encoded):
        replayed: list[int] = []
        for word in replay.pre_tokenize(line):
            occurrences[word] += 1
            ids = cache.get(word)
            if ids is None:
                ids = replay.initial(word)
                lengths = [1] * len(ids)
                made: list[int] = []

                def on_merge(left: int, right: int, _rank: int, ids=ids, made=made) -> None:
                    merged = replay.lookup((ids[left], ids[right]))
                    assert merged is not None
                    made.append(merged[1])

                merge_all(ids, lengths, replay.lookup, on_merge)
                ids = [symbol for symbol, length in zip(ids, lengths) if length]
                cache[word] = ids
                made_by_word[word] = made
            replayed.extend(ids)
        if replayed != list(line_ids):
            raise ValueError(
                f"the BPE replay gives {replayed[:20]} but the tokenizer {list(line_ids)[:20]} "
                f"for the line {line[:80]!r}: stepping stones cannot be counted"
            )
    for word, count in occurrences.items():
        for merged in made_by_word[word]:
            formed[merged] += count
    return formed


def stepping_stones(subject: AuditSubject, lines, encoded, counts: Counter) -> list[dict]:
    """Parents of a merge formed at least once, whose final count is at most 10% of their formed
    count; most formed first."""
    assert subject.bpe is not None
    formed = formed_counts(subject.bpe, lines, encoded)
    consumed: dict[int, list[Merge]] = {}
    for merge in subject.bpe.merges:
        consumed.setdefault(merge[0], []).append(merge)
        if merge[1] != merge[0]:
            consumed.setdefault(merge[1], []).append(merge)

    def shown(token_id: int) -> str:
        data = subject.ordinary.get(token_id)
        return readable_token(data) if data is not None else str(token_id)

    stones: list[dict[str, Any]] = []
    for token_id, merges in consumed.items():
        made = formed.get(token_id, 0)
        if made and counts.get(token_id, 0) <= STEPPING_STONE_RATIO * made:
            stones.append(
                {
                    "id": token_id,
                    "token": shown(token_id),
                    "formed": made,
                    "final": counts.get(token_id, 0),
                    "consumed_by": [
                        f"{shown(left)} + {shown(right)} -> {shown(merged)}"
                        for left, right, merged in sorted(merges, key=lambda merge: merge[2])
                    ],
                }
            )
    stones.sort(key=lambda stone: (-stone["formed"], stone["id"]))
    return stones


def script_figures(subject: AuditSubject, lines: Sequence[str], counts: Counter) -> dict[str, dict]:
    """Per script: its characters in the corpus and its tokens in the encoding (module docstring)."""
    characters: Counter[str] = Counter()
    for line in lines:
        characters.update(line)
    figures: dict[str, dict] = {}

    def entry(script: str) -> dict:
        return figures.setdefault(
            script, {"characters": 0, "distinct_characters": 0, "tokens": 0, "distinct_tokens": 0}
        )

    for char, count in characters.items():
        row = entry(script_of(char))
        row["characters"] += count
        row["distinct_characters"] += 1
    for token_id, count in counts.items():
        data = subject.ordinary.get(token_id)
        row = entry(token_script(data) if data is not None else "(special)")
        row["tokens"] += count
        row["distinct_tokens"] += 1
    return dict(sorted(figures.items(), key=lambda item: (-item[1]["tokens"], -item[1]["characters"])))


def encoded_counts(subject: AuditSubject, lines: Sequence[str]) -> tuple[list[list[int]], Counter[int]]:
    """Each line's ids (special-token text as plain text) and how often each id occurs in all."""
    encoded = subject.encode_batch(list(lines))
    counts: Counter[int] = Counter()
    for ids in encoded:
        counts.update(ids)
    return encoded, counts


def count_figures(subject: AuditSubject, lines: Sequence[str], counts: Counter) -> dict:
    """tokens, utf8_bytes, bytes_per_token and renyi_efficiency of the corpus (module docstring)."""
    tokens = sum(counts.values())
    utf8_bytes = sum(len(line.encode("utf-8", errors="surrogatepass")) for line in lines)
    return {
        "tokens": tokens,
        "utf8_bytes": utf8_bytes,
        "bytes_per_token": utf8_bytes / tokens if tokens else None,
        "renyi_efficiency": {
            "alpha": RENYI_ALPHA,
            "value": _finite(renyi_efficiency(list(counts.values()), len(subject.ordinary))),
        },
    }


def unreachable_counts(subject: AuditSubject) -> dict:
    """{"unreachable_count", "unreachable_not_utf8"}: how many ordinary ids are unreachable, and how
    many of those because their bytes are not valid UTF-8 (the corpus plays no part)."""
    unreachable = unreachable_tokens(subject)
    return {
        "unreachable_count": len(unreachable),
        "unreachable_not_utf8": sum(1 for entry in unreachable if entry["encodes_to"] is None),
    }


def tokens_by_script_in_context(
    subject: AuditSubject, lines: Sequence[str], encoded: Sequence[Sequence[int]]
) -> dict[str, dict]:
    """Per script: its characters in the corpus and the tokens that belong to it in context,
    {"characters", "tokens"}, most tokens first. When a line's tokens' bytes joined are exactly
    the line's UTF-8, a token belongs to the script of the first character it covers, whole or in
    part, that is neither Common nor Inherited (else to that of its first character): a byte of a
    Chinese character is Han. Otherwise (a normalizer, a "▁" or "##" in the tokens, an unknown
    token) each token is placed as `script_figures` places it, out of context."""
    scripts: dict[str, str] = {}

    def script(char: str) -> str:
        found = scripts.get(char)
        if found is None:
            found = scripts[char] = script_of(char)
        return found

    characters: Counter[str] = Counter()
    tokens: Counter[str] = Counter()
    for line, ids in zip(lines, encoded):
        characters.update(line)
        data = line.encode("utf-8", errors="surrogatepass")
        pieces = [subject.ordinary.get(token_id) for token_id in ids]
        if None not in pieces and b"".join(piece for piece in pieces if piece is not None) == data:
            owners: list[str] = []
            for char in line:
                owners += [script(char)] * len(char.encode("utf-8", errors="surrogatepass"))
            position = 0
            for piece in pieces:
                assert piece is not None
                covered = owners[position : position + len(piece)]
                position += len(piece)
                neutral = covered[0] if covered else token_script(piece)
                tokens[next((one for one in covered if one not in NEUTRAL_SCRIPTS), neutral)] += 1
        else:
            tokens.update(token_script(piece) if piece is not None else "(special)" for piece in pieces)
    figures: dict[str, dict] = {}
    for char, count in characters.items():
        figures.setdefault(script(char), {"characters": 0, "tokens": 0})["characters"] += count
    for name, count in tokens.items():
        figures.setdefault(name, {"characters": 0, "tokens": 0})["tokens"] += count
    return dict(sorted(figures.items(), key=lambda item: (-item[1]["tokens"], -item[1]["characters"])))


def research_figures(subject: AuditSubject, lines: Sequence[str], unreachable: dict | None = None) -> dict:
    """The audit's figures that compare tokenizers, as Compare shows them (no lists of ids, no
    stepping-stone replay): ordinary_tokens, tokens, utf8_bytes, bytes_per_token,
    renyi_efficiency, unreachable_count and unreachable_not_utf8 (`unreachable`, when given, is
    `unreachable_counts(subject)` computed before), unused_count, and scripts
    (`tokens_by_script_in_context`). `RESEARCH_BATCH` lines are encoded at a time, so that only
    one batch's ids are held whatever the corpus."""
    lines = list(lines)
    counts: Counter[int] = Counter()
    scripts: dict[str, dict] = {}
    for first in range(0, len(lines), RESEARCH_BATCH):
        batch = lines[first : first + RESEARCH_BATCH]
        encoded, batch_counts = encoded_counts(subject, batch)
        counts.update(batch_counts)
        for script, figures in tokens_by_script_in_context(subject, batch, encoded).items():
            total = scripts.setdefault(script, {"characters": 0, "tokens": 0})
            total["characters"] += figures["characters"]
            total["tokens"] += figures["tokens"]
    return {
        "ordinary_tokens": len(subject.ordinary),
        **count_figures(subject, lines, counts),
        **(unreachable if unreachable is not None else unreachable_counts(subject)),
        "unused_count": sum(1 for token_id in subject.ordinary if token_id not in counts),
        "scripts": dict(
            sorted(scripts.items(), key=lambda item: (-item[1]["tokens"], -item[1]["characters"]))
        ),
    }


def audit(subject: AuditSubject, lines: Sequence[str]) -> dict:
    """The whole audit of `subject` on the corpus `lines` (each line one text), as a JSON-ready dict."""
    lines = list(lines)
    encoded, counts = encoded_counts(subject, lines)
    unused = sorted(token_id for token_id in subject.ordinary if token_id not in counts)
    result: dict = {
        "tokenizer": subject.name,
        "vocab_size": subject.vocab_size,
        "ordinary_tokens": len(subject.ordinary),
        "special_tokens": len(subject.special_ids),
        "lines": len(lines),
        **count_figures(subject, lines, counts),
    }
    unreachable = unreachable_tokens(subject)
    result["unreachable"] = unreachable
    result["unreachable_count"] = len(unreachable)
    result["unused"] = {"count": len(unused), "ids": unused}
    if subject.bpe is None:
        result["stepping_stones"] = None
        result["stepping_stones_reason"] = subject.no_bpe_reason
    else:
        result["stepping_stones"] = stepping_stones(subject, lines, encoded, counts)
    result["scripts"] = script_figures(subject, lines, counts)
    return result


def _finite(value: float) -> float | None:
    return None if math.isnan(value) else value
