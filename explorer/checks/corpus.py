"""A corpus checked before training, and shrunk when it is too large.

- `check_corpus(text, limits)`: blocking `errors` (empty, too large, lone surrogates) and
  informative `warnings` (control characters, lone carriage returns, one-character corpus, very
  long words or lines), as a `Check`.
- `corpus_prefix` / `sample_lines`: the start of a corpus, or a seeded random sample of its lines,
  that fits in a number of bytes (shrinking is the visitor's choice, offered by the app);
  `corpus_sample` / `sampled_text`: the sample the pages measure (Compare's corpus figures, the
  Vocabulary page's audit), as a spec a worker's task takes, and the text it names.
- `utf8_size` / `over_size` / `format_size`: sizes as every message states them (MB of 1,000,000 bytes).

Lone surrogates (U+D800..U+DFFF alone) are not text: `check_corpus` rejects a str holding them,
since the byte-level pipeline and tokenizer.json cannot encode them as UTF-8.

What it does not do: decode files (explorer.checks.corpus_file), or change a corpus on its own.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from explorer.checks.limits import MB, Limits


@dataclass(frozen=True)
class Check:
    """The verdict on one input: `errors` block training, `warnings` inform, `notes` explain."""

    errors: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.errors


LONG_WORD_CHARS = 1_000  # no word of any language is this long; base64, minified code and CJK are
LONG_LINE_CHARS = 100_000  # a book's paragraph is a few thousand characters
_NOT_SPACE = re.compile(r"\S")
# Control characters that are not white space (tab, line breaks, VT, FF and NEL are).
_CONTROLS = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f]")
_CONTROL_NAMES = {0x00: "NUL", 0x07: "BEL", 0x08: "backspace", 0x1A: "SUB", 0x1B: "ESC", 0x7F: "DEL"}
_LONE_CARRIAGE_RETURN = re.compile("\r(?!\n)")
LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# Anchored at the start of a word or line: unanchored, every position inside a long-but-not-too-
# long word would rescan it to its end (quadratic on a text of 999-character words).
_LONG_WORD = re.compile(rf"(?<!\S)\S{{{LONG_WORD_CHARS},}}")
_LONG_LINE = re.compile(rf"^[^\n]{{{LONG_LINE_CHARS},}}", re.MULTILINE)


def utf8_size(text: str) -> int:
    """Bytes of UTF-8 the text takes (a lone surrogate counts its 3 bytes), without a copy of a
    large text in memory: ASCII is its length, other text is encoded a megabyte at a time."""
    if text.isascii():
        return len(text)
    return sum(
        len(text[start : start + MB].encode("utf-8", "surrogatepass")) for start in range(0, len(text), MB)
    )


def over_size(text: str, max_bytes: int) -> bool:
    """Whether the text takes more than `max_bytes` of UTF-8, without encoding it when its length
    decides (a code point takes 1 to 4 bytes): a 49 MB upload is over 4 MB at a glance."""
    if len(text) > max_bytes:
        return True
    return 4 * len(text) > max_bytes and utf8_size(text) > max_bytes


def format_size(size: int) -> str:
    """'6.2 MB' (of 1,000,000 bytes, like Streamlit's uploader), '12.5 KB' below a tenth of a MB.

    >>> format_size(4_700_000), format_size(12_500), format_size(4_000_000)
    ('4.7 MB', '12.5 KB', '4.0 MB')
    """
    return f"{size / MB:.1f} MB" if size >= MB // 10 else f"{size / 1000:.1f} KB"


def check_corpus(text: str, limits: Limits) -> Check:
    """Errors that block training, and warnings worth reading first (see the module docstring)."""
    first = _NOT_SPACE.search(text)  # the text stripped, without a copy of it
    if first is None:
        if not text:
            return Check(errors=("The corpus is empty.",))
        return Check(errors=(f"The corpus is empty: it has only white space ({len(text):,} characters).",))
    size = utf8_size(text)
    if size > limits.max_corpus_bytes:
        shown, limit = format_size(size), format_size(limits.max_corpus_bytes)
        if shown == limit:  # just over: one decimal would make them look equal
            shown, limit = f"{size:,} bytes", f"{limits.max_corpus_bytes:,} bytes"
        return Check(
            errors=(
                f"The corpus is {shown} of UTF-8 text; the limit is {limit}. "
                f"Train on its first {limit} or on a random sample of its lines instead.",
            )
        )
    errors = []
    surrogates = 0 if text.isascii() else len(LONE_SURROGATE.findall(text))
    if surrogates:
        errors.append(
            f"The corpus has {surrogates:,} lone surrogate code point{'s' if surrogates != 1 else ''} "
            "(U+D800 to U+DFFF): they are not text and cannot be written as UTF-8; remove them."
        )
    return Check(errors=tuple(errors), warnings=tuple(_corpus_warnings(text, first)))


def _line_of(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def _may_hold_run(text: str, length: int, separator: str | None) -> bool:
    """False when `text` surely has no run of `length` characters without `separator` (None: white
    space). Such a run would cover a whole block of length // 2 aligned characters, so looking
    at every block in C is enough; the regular expressions then scan only texts that may hold one."""
    block = max(1, length // 2)
    for start in range(0, len(text) - block + 1, block):
        chunk = text[start : start + block]
        if separator is None:
            if chunk.split(None, 1) == [chunk]:
                return True
        elif separator not in chunk:
            return True
    return False


def _longest_match(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    return max(pattern.finditer(text), key=lambda match: len(match.group()), default=None)


def _control_name(char: str) -> str:
    """' NUL', ' ESC'... for the control characters that have a usual name, else ''."""
    return f" {_CONTROL_NAMES[ord(char)]}" if ord(char) in _CONTROL_NAMES else ""


def _corpus_warnings(text: str, first: re.Match[str]) -> list[str]:
    warnings = []
    controls = Counter(_CONTROLS.findall(text))
    if controls:
        total = sum(controls.values())
        shown = ", ".join(
            f"U+{ord(char):04X}{_control_name(char)} x{count:,}" for char, count in controls.most_common(3)
        )
        more = ", ..." if len(controls) > 3 else ""
        warnings.append(
            f"The corpus has {total:,} control character{'s' if total != 1 else ''} ({shown}{more}): "
            "they are trained on like any other character (the BERT normalizer removes them)."
        )
    lone_returns = len(_LONE_CARRIAGE_RETURN.findall(text))
    if lone_returns:
        warnings.append(
            f"The corpus has {lone_returns:,} carriage return{'s' if lone_returns != 1 else ''} (\\r) "
            "without a line feed (old Mac line endings?): only \\n and \\r\\n end a line here."
        )
    char = first.group()
    # One distinct character: nothing but it and white space.
    if re.compile(rf"[^\s{re.escape(char)}]").search(text, first.start()) is None:
        if len(text.strip()) == 1:
            warnings.append(
                f"The corpus is a single character ({char!r}): there is no pair to merge, "
                "so the vocabulary will be the alphabet alone."
            )
        else:
            warnings.append(
                f"The corpus has only one distinct character ({char!r}): the only tokens to learn are "
                f"runs of it ({char * 2!r}, {char * 4!r}, ...)."
            )
    longest_word = _longest_match(_LONG_WORD, text) if _may_hold_run(text, LONG_WORD_CHARS, None) else None
    if longest_word is not None:
        length = len(longest_word.group())
        warnings.append(
            f"Line {_line_of(text, longest_word.start()):,} has a run of {length:,} characters without white "
            "space: whitespace pre-tokenizers keep it as one word, so training is slower and tokens may span "
            "what a reader sees as several words (expected for Chinese or Japanese)."
        )
    longest_line = _longest_match(_LONG_LINE, text) if _may_hold_run(text, LONG_LINE_CHARS, "\n") else None
    if longest_line is not None:
        warnings.append(
            f"Line {_line_of(text, longest_line.start()):,} is {len(longest_line.group()):,} characters "
            "long: each line is one training sequence, which is fine, but check that the file is text "
            "and not data such as minified code."
        )
    return warnings


def corpus_prefix(text: str, max_bytes: int) -> str:
    """The longest start of `text` that fits in `max_bytes` of UTF-8, cut after a line break.

    `text` itself when it fits. When even the first line does not fit, the cut falls inside that
    line, at a character boundary (never inside a character's UTF-8 bytes).
    """
    if max_bytes < 0:
        raise ValueError(f"max_bytes cannot be negative ({max_bytes})")
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return text
    end = data.rfind(b"\n", 0, max_bytes) + 1
    if end == 0:
        end = max_bytes
        while end > 0 and data[end] & 0xC0 == 0x80:  # a continuation byte: the cut is inside a character
            end -= 1
    return data[:end].decode("utf-8", "surrogatepass")


def sample_lines(text: str, max_bytes: int, seed: int = 0) -> str:
    """A random sample of whole non-empty lines fitting in `max_bytes` of UTF-8, in their
    original order, each ending with "\\n" (`text` itself when it fits).

    The same text, size and seed always give the same sample. Lines are drawn in random order
    and skipped when they no longer fit, so short lines are slightly favored once the sample is
    nearly full; a line longer than `max_bytes` is never taken (`corpus_prefix` cuts inside one).
    """
    if max_bytes < 0:
        raise ValueError(f"max_bytes cannot be negative ({max_bytes})")
    if not over_size(text, max_bytes):
        return text
    lines = text.split("\n")
    candidates = [index for index, line in enumerate(lines) if line and line != "\r"]
    import random  # here: the command line's checks need no sample, and random is 0.5 MB a process

    random.Random(seed).shuffle(candidates)
    chosen = []
    total = 0
    for index in candidates:
        size = utf8_size(lines[index]) + 1
        if total + size <= max_bytes:
            chosen.append(index)
            total += size
            if total == max_bytes:
                break
    return "".join(lines[index] + "\n" for index in sorted(chosen))


SAMPLE_BYTES = 250_000  # a page's figures on a corpus: a sample of at most this many bytes by default
SAMPLE_SEED = 0


def corpus_sample(corpus_text: str, whole: bool = False) -> dict:
    """The `sample` the pages ask for (Compare's corpus figures, the Vocabulary page's audit): the
    whole corpus when asked or when it is at most SAMPLE_BYTES of UTF-8, else a seeded random
    sample of its lines of at most SAMPLE_BYTES (the same sample every time)."""
    if whole or utf8_size(corpus_text) <= SAMPLE_BYTES:
        return {"kind": "whole"}
    return {"kind": "lines", "max_bytes": SAMPLE_BYTES, "seed": SAMPLE_SEED}


def sampled_text(corpus_text: str, sample: dict) -> str:
    """The text a `sample` (`corpus_sample`, or `{"kind": "first", "max_bytes": n}`) names."""
    kind = sample.get("kind", "whole")
    if kind == "whole":
        return corpus_text
    if kind == "first":
        return corpus_prefix(corpus_text, int(sample["max_bytes"]))
    if kind == "lines":
        return sample_lines(corpus_text, int(sample["max_bytes"]), int(sample.get("seed", 0)))
    raise ValueError(f"unknown sample kind {kind!r} (choose whole, first or lines)")
