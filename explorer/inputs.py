"""Everything a visitor can type, paste or upload, checked before it reaches the pipeline.

The app and the CLI share these pure functions (no streamlit here), so a bad input gets the same
clear sentence in both: what was found, and what to do about it.

- `Limits`: the hosted demo's bounds (corpus size, training seconds, merge steps, vocab size,
  upload size), with documented defaults, overridable from environment variables.
- `decode_upload(data, filename)`: bytes -> text, or `InputError` saying what the file looks like
  (UTF-16, a PDF, Latin-1, ...). Only UTF-8 is accepted: nothing is silently transcoded.
- `check_corpus(text, limits)`: blocking `errors` (empty, too large, lone surrogates) and
  informative `warnings` (control characters, one-character corpus, very long words or lines).
  `corpus_prefix` / `sample_lines` shrink a corpus that is too large.
- `check_special_tokens(tokens, pre_tokenizer)`, `special_token_notes(trace)`: what special tokens
  will do, checked against the library (see tests/test_inputs.py).
- `check_vocab_size(vocab_size, limits)`; `explain_vocab_size(trace, requested)`: after training,
  why the vocabulary is smaller or larger than asked.
- `Budget`: a time and step budget as the `progress` / `should_stop` pair `train_corpus` takes.

Lone surrogates (U+D800..U+DFFF alone) are not text: `decode_upload` never produces them (strict
UTF-8 decoding rejects them) and `check_corpus` rejects a str holding them, since the byte-level
pipeline and tokenizer.json cannot encode them as UTF-8.

What it does not do: render messages (the app and the CLI do), read files, or change a corpus
on its own (shrinking is the visitor's choice, offered by the app).
"""

from __future__ import annotations

import math
import os
import random
import re
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from explorer.trace import Trace

# One unit everywhere, in every message, chip and button: MB = 1,000,000 bytes, the unit Streamlit's
# file uploader uses on Linux and macOS (its chip shows a 4,700,000-byte file as "4.7MB" and it
# refuses a file over server.maxUploadSize x 1,000,000 bytes; its server would take a little more).
MB = 1_000_000


class InputError(ValueError):
    """A problem with what a visitor gave us; the message says what was found and what to do."""


# ---------------------------------------------------------------- limits


@dataclass(frozen=True)
class Limits:
    """Bounds for one visitor's run on a shared host. Defaults, and why:

    - max_corpus_mb = 4 (UTF-8, MB of 1,000,000 bytes): plenty to watch merges happen (4x
      tinyshakespeare); ordinary text that size trains to 5,000 tokens in about 2 s and 100 MB.
      Adversarial text costs far more (4 MB of random letters to 20,000 tokens: 74 s, 1.2 GB), so
      the cap bounds memory while the time budget bounds the rest.
    - max_seconds = 60: a run holds a core of a shared machine; a minute covers every ordinary
      corpus under the size limit and stops the pathological ones (the trace says "stopped").
    - max_steps = 50,000 merges: as many as GPT-2 learned. The trace keeps 10 candidates per step
      (21,000 steps on tinyshakespeare is a 5 MB trace), and charts sample 300 frames anyway.
    - max_vocab = 100,000: the size of the largest vocabularies people compare with
      (cl100k_base); what the Train page's number input accepts.
    - max_upload_mb = 50: must equal `server.maxUploadSize` in .streamlit/config.toml (a test
      checks it). Well above the corpus limit on purpose: a file too large to train whole still
      arrives and gets the offer of its first 4 MB or a random sample of its lines, instead of
      Streamlit's rejection.

    `from_env()` reads EXPLORER_MAX_CORPUS_MB, EXPLORER_MAX_SECONDS, EXPLORER_MAX_STEPS,
    EXPLORER_MAX_VOCAB and EXPLORER_MAX_UPLOAD_MB. Any limit may be `math.inf` (no limit; the CLI
    uses that), except max_upload_mb, which Streamlit needs as a whole number.
    """

    max_corpus_mb: float = 4.0
    max_seconds: float = 60.0
    max_steps: int | float = 50_000
    max_vocab: int | float = 100_000
    max_upload_mb: int = 50

    def __post_init__(self):
        for name in ("max_corpus_mb", "max_seconds", "max_steps", "max_vocab", "max_upload_mb"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise InputError(f"{name} must be a number above 0, not {value!r}")
        for name in ("max_steps", "max_vocab", "max_upload_mb"):
            value = getattr(self, name)
            if math.isinf(value) and name != "max_upload_mb":
                continue
            if math.isinf(value) or value != int(value):
                raise InputError(f"{name} must be a whole number, not {value!r}")

    @property
    def max_corpus_bytes(self) -> int:
        """The corpus limit in bytes of UTF-8 (huge when there is no limit)."""
        return 2**62 if math.isinf(self.max_corpus_mb) else int(self.max_corpus_mb * MB)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Limits:
        """The defaults, overridden by EXPLORER_MAX_* variables that are set.

        The upload limit falls back to STREAMLIT_SERVER_MAX_UPLOAD_SIZE (Streamlit's own override
        of server.maxUploadSize), so the two cannot disagree when only that one is set.
        """
        environ = os.environ if environ is None else environ
        values: dict[str, float | int] = {}
        for field_name, variable, kind in _ENVIRONMENT:
            raw = environ.get(variable)
            if field_name == "max_upload_mb" and raw is None:
                variable = "STREAMLIT_SERVER_MAX_UPLOAD_SIZE"
                raw = environ.get(variable)
            if raw is None or not raw.strip():
                continue
            try:
                value = kind(raw.strip())
            except ValueError:
                value = None
            if value is None or not value > 0:
                wanted = "a whole number" if kind is int else "a number"
                raise InputError(f"{variable} must be {wanted} above 0, not {raw!r}")
            values[field_name] = value
        return cls(**values)

    def budget(self, progress: Callable[[int, int], None] | None = None) -> Budget:
        """A Budget with these time and step limits, forwarding progress reports to `progress`."""
        return Budget(self.max_seconds, self.max_steps, progress)


_ENVIRONMENT = (
    ("max_corpus_mb", "EXPLORER_MAX_CORPUS_MB", float),
    ("max_seconds", "EXPLORER_MAX_SECONDS", float),
    ("max_steps", "EXPLORER_MAX_STEPS", int),
    ("max_vocab", "EXPLORER_MAX_VOCAB", int),
    ("max_upload_mb", "EXPLORER_MAX_UPLOAD_MB", int),
)


class Budget:
    """A time and step budget for one training run:

        budget = limits.budget(progress=bar_update)
        trace = train_corpus(text, run, progress=budget.progress, should_stop=budget.should_stop,
                             max_steps=budget.step_limit)
        why = budget.stop_cause(trace)

    The trainer stops exactly at `step_limit` merges, and asks `should_stop()` (the time limit)
    every few dozen merges. `stop_cause` says which limit ended a stopped run, for
    `explain_vocab_size` (None when it was neither: a Stop button).
    """

    def __init__(
        self,
        max_seconds: float | None = None,
        max_steps: int | float | None = None,
        progress: Callable[[int, int], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.max_seconds = max_seconds
        self.step_limit = None if max_steps is None or math.isinf(max_steps) else int(max_steps)
        self._forward = progress
        self._clock = clock
        self._started = clock()
        self.stopped_by: str | None = None  # set when should_stop says yes

    def progress(self, step: int, planned: int) -> None:
        if self._forward is not None:
            if self.step_limit is not None:
                planned = min(planned, self.step_limit)
            self._forward(step, planned)

    def should_stop(self) -> bool:
        if self.max_seconds is not None and self._clock() - self._started >= self.max_seconds:
            self.stopped_by = f"the time limit ({self.max_seconds:g} s)"
            return True
        return False

    def stop_cause(self, trace: Trace) -> str | None:
        if trace.stop_reason != "stopped":
            return None
        if self.step_limit is not None and trace.steps >= self.step_limit:
            return f"the limit of {self.step_limit:,} merge{'s' if self.step_limit != 1 else ''}"
        return self.stopped_by


# ---------------------------------------------------------------- uploads

# (leading bytes, what the file is, what to do) - checked before anything else.
_COPY_TEXT = "copy its text into a plain .txt file saved as UTF-8"
_CHOOSE_TEXT = "choose a plain .txt file saved as UTF-8"
_MAGIC_NUMBERS = (
    (b"%PDF-", "a PDF document", _COPY_TEXT),
    (b"PK\x03\x04", "a ZIP archive (.docx, .xlsx, .odt and .epub files are ZIP archives too)", _COPY_TEXT),
    (b"PK\x05\x06", "an (empty) ZIP archive", _CHOOSE_TEXT),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Microsoft Office file (.doc, .xls, .ppt)", _COPY_TEXT),
    (b"\x89PNG\r\n\x1a\n", "a PNG image", _CHOOSE_TEXT),
    (b"\xff\xd8\xff", "a JPEG image", _CHOOSE_TEXT),
    (b"GIF87a", "a GIF image", _CHOOSE_TEXT),
    (b"GIF89a", "a GIF image", _CHOOSE_TEXT),
    (b"\x1f\x8b", "a gzip-compressed file", "decompress it first"),
)
# Byte order marks, UTF-32 before UTF-16: FF FE 00 00 also starts with the UTF-16 LE mark.
_UNICODE_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32 (little-endian)"),
    (b"\x00\x00\xfe\xff", "UTF-32 (big-endian)"),
    (b"\xff\xfe", "UTF-16 (little-endian)"),
    (b"\xfe\xff", "UTF-16 (big-endian)"),
)
_UTF8_BOM = b"\xef\xbb\xbf"
# Like git and grep: a NUL byte near the start means binary.
_BINARY_SNIFF_BYTES = 8000
_SAVE_AS_UTF8 = "open it in a text editor and save it as UTF-8"


def decode_upload(data: bytes, filename: str) -> str:
    """The text of an uploaded file, which must be UTF-8 (a leading byte order mark is removed).

    Anything else raises InputError naming what the file looks like: empty, UTF-16/UTF-32 (by
    byte order mark, or by NUL bytes at every other position), a known binary format (PDF,
    ZIP/docx, old Office, PNG, JPEG, GIF, gzip), other binary data (NUL bytes in the first
    8,000 bytes), Latin-1/Windows-1252 or another legacy encoding, a UTF-8 file cut off in the
    middle of a character, or UTF-8 with a few stray bytes of another encoding.
    """
    name = f"'{filename}'"
    if not data:
        raise InputError(f"{name} is empty (0 bytes): choose a file with some text in it.")
    for bom, encoding in _UNICODE_BOMS:
        if data.startswith(bom):
            raise InputError(f"{name} is not UTF-8: it is {encoding} text; {_SAVE_AS_UTF8}.")
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM) :]
        if not data:
            raise InputError(f"{name} is empty (only a byte order mark): choose a file with some text in it.")
    for magic, kind, advice in _MAGIC_NUMBERS:
        if data.startswith(magic):
            raise InputError(f"{name} looks like {kind}, not text: {advice}.")
    wide = _wide_encoding(data)
    if wide is not None:
        raise InputError(f"{name} is not UTF-8: it looks like {wide} text; {_SAVE_AS_UTF8}.")
    first_nul = data.find(b"\x00", 0, _BINARY_SNIFF_BYTES)
    if first_nul >= 0:
        raise InputError(
            f"{name} looks like a binary file, not text (it has NUL bytes, the first at byte {first_nul:,}): "
            f"{_CHOOSE_TEXT}."
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(_not_utf8_message(name, data, error)) from None


def _wide_encoding(data: bytes) -> str | None:
    """'UTF-16 (little-endian)' etc. when NUL bytes sit where ASCII text in that encoding has
    them (and the data decodes that way), else None."""
    sample = data[:_BINARY_SNIFF_BYTES]
    if sample.count(0) < max(2, len(sample) // 8):
        return None
    nul_share = [sample[offset::4].count(0) / max(1, len(sample[offset::4])) for offset in range(4)]
    candidates = []
    if min(nul_share[1:]) > 0.7 and nul_share[0] < 0.3:
        candidates.append(("utf-32-le", "UTF-32 (little-endian)"))
    if min(nul_share[:3]) > 0.7 and nul_share[3] < 0.3:
        candidates.append(("utf-32-be", "UTF-32 (big-endian)"))
    odd = (
        sample[1::2].count(0) / max(1, len(sample[1::2])),
        sample[0::2].count(0) / max(1, len(sample[0::2])),
    )
    if odd[0] > 0.3 and odd[1] < 0.05:
        candidates.append(("utf-16-le", "UTF-16 (little-endian)"))
    if odd[1] > 0.3 and odd[0] < 0.05:
        candidates.append(("utf-16-be", "UTF-16 (big-endian)"))
    for codec, label in candidates:
        cut = len(sample) - len(sample) % (4 if "32" in codec else 2)
        try:
            sample[:cut].decode(codec)
        except UnicodeDecodeError:
            continue
        return label
    return None


def _not_utf8_message(name: str, data: bytes, error: UnicodeDecodeError) -> str:
    line = data.count(b"\n", 0, error.start) + 1
    if error.reason == "unexpected end of data" and error.start >= len(data) - 3:
        tail = data[error.start :]
        if len(tail) > 1 or not data[: error.start].isascii():  # more of a character, or UTF-8 before
            return (
                f"{name} ends in the middle of a UTF-8 character (it was probably cut off): "
                "remove the incomplete last character or save the file again as UTF-8."
            )
        # ASCII, then one byte that starts a multi-byte character: a cut UTF-8 file, or (quite as
        # likely) Latin-1 text ending in a letter such as "é" (0xE9).
        return (
            f"{name} is not UTF-8: it is ASCII text that ends with the byte 0x{tail[0]:02X}, which is "
            f"{tail.decode('cp1252', errors='replace')!r} in Latin-1/Windows-1252 but only the start of a "
            f"character in UTF-8 (a cut-off file?); {_SAVE_AS_UTF8}."
        )
    replaced = data.decode("utf-8", errors="replace")
    invalid = replaced.count("\ufffd") - data.decode("utf-8", errors="ignore").count("\ufffd")
    valid_multibyte = len(_VALID_NON_ASCII.findall(replaced))
    if valid_multibyte >= max(2, invalid):
        return (
            f"{name} is mostly UTF-8 but has {invalid:,} invalid byte sequence{'s' if invalid != 1 else ''} "
            f"(the first on line {line:,}): part of it is in another encoding; fix those lines or {_SAVE_AS_UTF8}."
        )
    controls = len(_BINARY_CONTROLS.findall(data))
    if controls > max(1, len(data) // 100):
        return (
            f"{name} does not look like text (it is not UTF-8 and has {controls:,} control bytes): "
            f"{_CHOOSE_TEXT}."
        )
    # Western European text is mostly ASCII letters with a few accented ones; Cyrillic, Greek or
    # CJK in their legacy encodings are mostly bytes above 0x7F.
    high = len(data) - len(data.decode("ascii", errors="ignore"))
    letters = len(data.translate(None, _NOT_ASCII_LETTERS))
    if high <= 0.3 * (high + letters):
        encoding = "Latin-1/Windows-1252 text"
    else:
        encoding = "text in another legacy encoding (such as Windows-1251, Shift_JIS or GBK)"
    return (
        f"{name} is not UTF-8 (the first invalid byte is on line {line:,}): it looks like {encoding}; "
        f"{_SAVE_AS_UTF8}."
    )


_VALID_NON_ASCII = re.compile("[^\x00-\x7f\ufffd]")
_NOT_ASCII_LETTERS = bytes(byte for byte in range(256) if not (65 <= byte <= 90 or 97 <= byte <= 122))

# C0 controls but the white space ones and ESC/SUB, which old text files do hold. Bytes 0x80-0x9F
# are not counted: Windows-1252 uses them for printable characters.
_BINARY_CONTROLS = re.compile(b"[\x00-\x08\x0e-\x19\x1c-\x1f\x7f]")


# ---------------------------------------------------------------- the corpus


@dataclass(frozen=True)
class Check:
    """The verdict on one input: `errors` block training, `warnings` inform, `notes` explain."""

    errors: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.errors


CorpusCheck = Check

LONG_WORD_CHARS = 1_000  # no word of any language is this long; base64, minified code and CJK are
LONG_LINE_CHARS = 100_000  # a book's paragraph is a few thousand characters
# Control characters that are not white space (tab, line breaks, VT, FF and NEL are).
_CONTROLS = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f]")
_CONTROL_NAMES = {0x00: "NUL", 0x07: "BEL", 0x08: "backspace", 0x1A: "SUB", 0x1B: "ESC", 0x7F: "DEL"}
_LONE_CARRIAGE_RETURN = re.compile("\r(?!\n)")
_SURROGATES = re.compile("[\ud800-\udfff]")
# Anchored at the start of a word or line: unanchored, every position inside a long-but-not-too-
# long word would rescan it to its end (quadratic on a text of 999-character words).
_LONG_WORD = re.compile(rf"(?<!\S)\S{{{LONG_WORD_CHARS},}}")
_LONG_LINE = re.compile(rf"^[^\n]{{{LONG_LINE_CHARS},}}", re.MULTILINE)


def utf8_size(text: str) -> int:
    """Bytes of UTF-8 the text takes (a lone surrogate counts its 3 bytes)."""
    return len(text.encode("utf-8", "surrogatepass"))


def format_size(size: int) -> str:
    """'6.2 MB' (of 1,000,000 bytes, like Streamlit's uploader), '12.5 KB' below a tenth of a MB.

    >>> format_size(4_700_000), format_size(12_500), format_size(4_000_000)
    ('4.7 MB', '12.5 KB', '4.0 MB')
    """
    return f"{size / MB:.1f} MB" if size >= MB // 10 else f"{size / 1000:.1f} KB"


def check_corpus(text: str, limits: Limits) -> Check:
    """Errors that block training, and warnings worth reading first (see the module docstring)."""
    stripped = text.strip()
    if not stripped:
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
    surrogates = 0 if text.isascii() else len(_SURROGATES.findall(text))
    if surrogates:
        errors.append(
            f"The corpus has {surrogates:,} lone surrogate code point{'s' if surrogates != 1 else ''} "
            "(U+D800 to U+DFFF): they are not text and cannot be written as UTF-8; remove them."
        )
    return Check(errors=tuple(errors), warnings=tuple(_corpus_warnings(text, stripped)))


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


def _corpus_warnings(text: str, stripped: str) -> list[str]:
    warnings = []
    controls = Counter(_CONTROLS.findall(text))
    if controls:
        total = sum(controls.values())
        shown = ", ".join(
            f"U+{ord(char):04X}{' ' + _CONTROL_NAMES[ord(char)] if ord(char) in _CONTROL_NAMES else ''} x{count:,}"
            for char, count in controls.most_common(3)
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
    char = stripped[0]
    others = stripped.replace(char, "")  # one distinct character: only white space is left
    if not others or others.isspace():
        if len(stripped) == 1:
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
            f"Line {_line_of(text, longest_line.start()):,} is {len(longest_line.group()):,} characters long: "
            "each line is one training sequence, which is fine, but check that the file is text and not data "
            "such as minified code."
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
    if utf8_size(text) <= max_bytes:
        return text
    lines = text.split("\n")
    candidates = [index for index, line in enumerate(lines) if line and line != "\r"]
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


# ---------------------------------------------------------------- special tokens and vocab size


# The shapes special tokens usually have: [CLS], <s>, </s>, <unk>, <|endoftext|>.
_USUAL_MARKER = re.compile(r"\[[^\[\]\s]+\]|<\|[^<>|\s]+\|>|</?[^<>|\s]+>")


def check_special_tokens(tokens: list[str] | tuple[str, ...], pre_tokenizer: str | None = None) -> Check:
    """What the special tokens will do, before training.

    Special tokens are cut out of the raw text before normalization and pre-tokenization
    (leftmost, longest match), by the library and by `explorer.tokenizer` alike. Hence:
    - errors: an empty token (it takes an id and can never match), a token listed twice (the
      course flavor counts it twice, so one merge fewer), a lone surrogate (not text);
    - warnings: a token of white space only (it replaces that white space in every text), a token
      of letters or digits only, or of one character: it is cut out of every text that contains
      it, even from inside longer words ("theory" -> "the" + "ory");
    - notes: a token the chosen pre-tokenizer would split (white space, punctuation): harmless,
      it is still matched whole on the raw text. Not for the usual marker shapes (`[CLS]`,
      `<s>`, `</s>`, `<|endoftext|>`): every BERT or GPT user's tokens would get one otherwise.
    """
    from explorer.pre_tokenizers import build_pre_tokenizer

    errors, warnings, notes = [], [], []
    splitter = build_pre_tokenizer(pre_tokenizer) if pre_tokenizer else None
    seen = set()
    for token in tokens:
        if token == "":
            errors.append("A special token is empty: it would take an id and never match; remove it.")
            continue
        if token in seen:
            errors.append(f"The special token {token!r} is listed twice; keep one.")
            continue
        seen.add(token)
        if _SURROGATES.search(token):
            errors.append(
                f"The special token {token!r} holds a lone surrogate (U+D800 to U+DFFF), which is not text."
            )
        elif token.isspace():
            warnings.append(
                f"The special token {token!r} is only white space: it will replace that white space "
                "in every text."
            )
        elif len(token) == 1 or token.isalnum():
            warnings.append(
                f"The special token {token!r} is ordinary text: it will be cut out of every text that "
                "contains it, even from inside longer words."
            )
        elif (
            splitter is not None
            and not _USUAL_MARKER.fullmatch(token)
            and len(splitter.pre_tokenize(token)) > 1
        ):
            what = "contains white space" if any(char.isspace() for char in token) else "has separators"
            notes.append(
                f"The special token {token!r} {what} that the {pre_tokenizer} pre-tokenizer splits on: "
                "it still works whole, because special tokens are matched on the raw text first."
            )
    return Check(tuple(errors), tuple(warnings), tuple(notes))


def special_token_notes(trace: Trace) -> list[str]:
    """After training: special tokens that are also corpus characters or were rebuilt by a merge.

    The library allows both and so do we: the character or merge result gets the special
    token's id (the vocabulary holds each string once), and in a text the string is always
    matched as the special token, before the model sees it.
    """
    specials = set(trace.special_tokens)
    special_ids = {token: index for index, token in enumerate(trace.vocab) if token in specials}
    notes = []
    for token, token_id in special_ids.items():
        if len(token) == 1 and any(token in word for word in trace.words):
            notes.append(
                f"The special token {token!r} is also a character of the corpus: both share id {token_id}."
            )
    for step, (left, right, new_id) in enumerate(trace.merges):
        token = trace.vocab[new_id]
        if special_ids.get(token) == new_id:
            notes.append(
                f"Merge {step + 1:,} ({trace.vocab[left]!r} + {trace.vocab[right]!r}) rebuilt the special token "
                f"{token!r}: it reuses the special token's id {new_id}, as in the library."
            )
    return notes


def check_vocab_size(vocab_size: object, limits: Limits) -> int:
    """The vocab size as an int, or InputError when it is not a whole number from 1 to the limit."""
    limit = limits.max_vocab
    shown_limit = "no limit" if math.isinf(limit) else f"{int(limit):,}"
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise InputError(f"vocab_size must be a whole number from 1 to {shown_limit}, not {vocab_size!r}.")
    if vocab_size < 1 or vocab_size > limit:
        raise InputError(f"vocab_size must be from 1 to {shown_limit} (got {vocab_size:,}).")
    return vocab_size


def explain_vocab_size(trace: Trace, requested: int | None = None, stopped_by: str | None = None) -> str:
    """One sentence on how the vocabulary size compares with the one asked for, and why.

    `stopped_by` names what stopped an interrupted run (see `Budget.stop_cause`).
    """
    if requested is None:
        requested = trace.config.vocab_size
    size, initial, merges = len(trace.vocab), trace.initial_vocab_size, trace.steps
    if not trace.words:
        return "The corpus has no words once normalized and pre-tokenized, so nothing was learned."
    if merges == 0 and requested <= initial:
        specials = len(set(trace.special_tokens))
        symbols = "byte symbols" if trace.config.is_byte_level else "characters"
        parts = f"{initial - specials:,} {symbols}" + (
            f" and {specials:,} special token{'s' if specials != 1 else ''}" if specials else ""
        )
        if requested == initial:
            return f"The starting alphabet ({parts}) is exactly the {requested:,} tokens asked for: no merge was needed."
        return (
            f"You asked for {requested:,} tokens, but the starting alphabet alone has {initial:,} ({parts}). "
            "It is always kept whole, so no merge was learned."
        )
    reason = trace.stop_reason
    if reason == "vocab_size":
        if size >= requested:
            return f"Reached the {requested:,} tokens asked for: {initial:,} to start with, plus {merges:,} merges."
        return (
            f"Stopped after {merges:,} merges at the {requested:,} tokens asked for, counting as the course does "
            f"(a merge that rebuilds an existing token counts too): {size:,} distinct tokens."
        )
    if reason == "no_pair_left":
        return (
            f"You asked for {requested:,} tokens, but this corpus can only give {size:,}: after {merges:,} merges "
            "no pair is left to merge (every word is a single token). Add text to learn more."
        )
    if reason == "min_frequency":
        minimum = trace.config.trainer.min_frequency
        return (
            f"Stopped at {size:,} of the {requested:,} tokens asked for, after {merges:,} merges: the most "
            f"frequent remaining pair occurs fewer than {minimum:,} times (min_frequency)."
        )
    by = stopped_by or "the Stop button or a time or step limit"
    return f"Stopped at {size:,} of the {requested:,} tokens asked for, after {merges:,} merges, by {by}."
