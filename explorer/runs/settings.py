"""Training settings as the Train page edits them, their defaults per algorithm, and their URL form.

`Settings` is what the widgets hold (strings as typed); `run_config()` turns it into a
`RunConfig` (a `TrainerConfig` for BPE and WordPiece, a `UnigramConfig` for Unigram) and raises
ValueError with a message a person can act on. Each algorithm leaves some fields unused
(`UNUSED_FIELDS`); `canonical()` resets the others to their defaults, so that two settings that
train alike are equal. `to_query_params` /
`from_query_params` give the shareable-URL form: only values that differ from the algorithm's
defaults are written, and a hand-edited URL with a bad value falls back to the default with a
note instead of failing.

`reading` (explorer.run_config.READINGS) is how the corpus was cut into sequences: a text (typed,
pasted, uploaded or a sample) is read as "lines" (`train_from_iterator(lines)`, the default) or
"lines-with-endings" (the library's `train(files)`), the form's two choices (`TEXT_READINGS`); a
count file brings its own, "records" included (`counting_problem` says when the form cannot take a
count file's settings). A link's "records" is ignored with a note: a text has no records. Like
every field at its default, "lines" is left out of links, and RunConfig leaves it out of the run's
key: every link and key made before the field existed is the same.

Byte-level's split pattern is not a field: the form's two choices (pre-tokenizer, split pattern)
name one pre-tokenizer ("byte-level-cl100k", `pre_tokenizer_name` / `pre_tokenizer_choice`), so the
settings, links and run keys of GPT-2 runs are what they were.

`limits_from_env()` is the app's one reading of the hosted demo's limits (`Limits.from_env()`,
see explorer/checks/): the vocabulary-size bound, the corpus size, the time and step budget all come
from it, read again on every call so that an environment change (a test's) takes effect at once.

Pure Python (no streamlit).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from explorer.checks import InputError, Limits
from explorer.corpora.counting import Counting
from explorer.pipeline.pre_tokenizers import BYTE_LEVEL_PRE_TOKENIZERS, is_byte_level
from explorer.run_config import (
    COURSE_DEFAULTS,
    LARGEST_COUNT,
    LIBRARY_DEFAULTS,
    LONGEST_PIECE,
    READINGS,
    TEXT_READINGS,
    RunConfig,
    TrainerConfig,
    UnigramConfig,
)
from explorer.training import engines
from explorer.training.settings_checks import check_min_frequency, check_vocab_size, special_token_entries

ALGORITHM_LABELS = {"bpe": "BPE", "wordpiece": "WordPiece", "unigram": "Unigram"}
FLAVOR_LABELS = {"library": "`tokenizers` library", "course": "Hugging Face course"}
PRE_TOKENIZER_LABELS = {
    "byte-level": "byte-level (bytes; its split pattern below)",
    "bert": "BERT (whitespace + punctuation)",
    "whitespace": "whitespace (\\w+|[^\\w\\s]+)",
    "whitespace-split": "whitespace split",
    "metaspace": "Metaspace (SentencePiece's ▁)",
}
# Byte-level's split pattern, a choice under the byte-level pre-tokenizer: it names the run's
# pre-tokenizer ("byte-level-cl100k"), so a GPT-2 run's settings, link and run key stay as they were.
SPLIT_PATTERN_LABELS = {
    "gpt2": "GPT-2",
    "cl100k": "GPT-4 (cl100k)",
    "o200k": "GPT-4o (o200k)",
    "llama3": "Llama 3",
}
# Every pre-tokenizer a link may name.
PRE_TOKENIZER_NAMES = list(dict.fromkeys([*PRE_TOKENIZER_LABELS, *BYTE_LEVEL_PRE_TOKENIZERS.values()]))


def pre_tokenizer_choice(name: str) -> tuple[str, str]:
    """(the pre-tokenizer as the form offers it, the split pattern): "byte-level-cl100k" ->
    ("byte-level", "cl100k"); a pre-tokenizer that is not byte-level -> (it, "gpt2")."""
    if not is_byte_level(name):
        return name, "gpt2"
    pattern = next(pattern for pattern, full in BYTE_LEVEL_PRE_TOKENIZERS.items() if full == name)
    return "byte-level", pattern


def pre_tokenizer_name(pre_tokenizer: str, split_pattern: str | None) -> str:
    """The run's pre-tokenizer from the form's two choices (the split pattern read for byte-level only)."""
    if pre_tokenizer != "byte-level":
        return pre_tokenizer
    return BYTE_LEVEL_PRE_TOKENIZERS.get(split_pattern or "gpt2", pre_tokenizer)


NORMALIZER_LABELS = {
    "nfd": "NFD",
    "nfkc": "NFKC",
    "lowercase": "lowercase",
    "strip-accents": "strip accents",
    "bert": "BERT normalizer",
}
# The fields only some algorithms use (the others are shared).
MERGE_FIELDS = ("min_frequency", "prefix", "suffix")
UNIGRAM_FIELDS = ("seed_size", "shrinking_factor", "max_piece_length", "unk_token")
UNUSED_FIELDS = {"bpe": UNIGRAM_FIELDS, "wordpiece": UNIGRAM_FIELDS, "unigram": MERGE_FIELDS}
UNIGRAM_DEFAULTS = {"library": LIBRARY_DEFAULTS, "course": COURSE_DEFAULTS}  # seed size, longest piece
SLIDER_MAX_VOCAB_SIZE = 20_000  # the slider's reach; the exact number input goes to Limits.max_vocab
SHRINKING_FACTOR_RANGE = (0.01, 0.99)  # what the Train form's field takes, and so a link
# A whole-number setting in a link: its lowest and highest value (the vocabulary size: `check_vocab_size`).
WHOLE_NUMBER_RANGES = {
    "min_frequency": (0, LARGEST_COUNT),
    "seed_size": (1, LARGEST_COUNT),
    "max_piece_length": (1, LONGEST_PIECE),
}


def read_whole_number(text: str, low: int, high: int) -> int | None:
    """The whole number `text` writes in ASCII digits (white space around them allowed), when it
    is from `low` to `high`; else None. Never raises: a long string of digits is refused by its
    length before `int()`, which raises ValueError past 4,300 digits.

    >>> read_whole_number(" 0012 ", 1, 99), read_whole_number("9" * 5000, 0, 10), read_whole_number("²", 0, 9)
    (12, None, None)
    """
    stripped = text.strip()
    if not (stripped.isascii() and stripped.isdigit()):
        return None
    digits = stripped.lstrip("0") or "0"
    if len(digits) > len(str(high)):
        return None
    value = int(digits)
    return value if low <= value <= high else None


def limits_from_env() -> Limits:
    """The bounds from EXPLORER_MAX_* environment variables (defaults when unset), for the engine
    this server trains with (`Limits.for_engine`: the compiled engine trains a whole upload; an
    EXPLORER_ENGINE that names no engine leaves the Python engine's limits, and training says why).

    Raises InputError naming the variable when one is malformed: `limits_or_defaults()` turns that
    into the sentence the app shows while it runs with the defaults."""
    return Limits.from_env().for_engine(_engine())


def _engine() -> str:
    try:
        return engines.resolve()
    except ValueError:
        return "python"


def limits_or_defaults() -> tuple[Limits, str | None]:
    """`limits_from_env()`, or the defaults and a sentence saying which variable is wrong."""
    try:
        return limits_from_env(), None
    except InputError as error:
        return Limits().for_engine(
            _engine()
        ), f"The server's limits are misconfigured ({error}); the default limits apply."


def slider_max_vocab_size(limits: Limits) -> int:
    return int(min(SLIDER_MAX_VOCAB_SIZE, limits.max_vocab))


@dataclass(frozen=True)
class Settings:
    """Everything the Train page asks for; hashable, so it is part of the training cache key."""

    algorithm: str = "bpe"
    flavor: str = "library"
    vocab_size: int = 1000
    pre_tokenizer: str = "byte-level"
    normalizers: tuple[str, ...] = ()
    min_frequency: int = 0
    special_tokens: str = "<|endoftext|>"
    prefix: str = ""
    suffix: str = ""
    # Unigram: None means the flavor's default (UNIGRAM_DEFAULTS), as in the CLI.
    seed_size: int | None = None
    shrinking_factor: float = 0.75  # the library flavor's; the course removes 10 % per round
    max_piece_length: int | None = None
    unk_token: str = "<unk>"
    reading: str = "lines"  # READINGS (READING_LABELS): TEXT_READINGS for a text, a count file's own

    @property
    def is_unigram(self) -> bool:
        return self.algorithm == "unigram"

    @property
    def unused_fields(self) -> tuple[str, ...]:
        """The fields this algorithm does not use."""
        return UNUSED_FIELDS.get(self.algorithm, UNIGRAM_FIELDS)

    def canonical(self) -> Settings:
        """These settings with the fields this algorithm does not use at their defaults."""
        defaults = defaults_for(self.algorithm)
        return replace(self, **{name: getattr(defaults, name) for name in self.unused_fields})

    def special_token_entries(self) -> tuple[str, ...]:
        """The special tokens as typed, empty entries and repeats kept (`special_token_entries`)."""
        return special_token_entries(self.special_tokens)

    def special_token_list(self) -> tuple[str, ...]:
        """The special tokens trained with: the entries without empty ones and repeats."""
        return tuple(dict.fromkeys(token for token in self.special_token_entries() if token))

    def run_config(self, limits: Limits | None = None) -> RunConfig:
        """The RunConfig for these settings; ValueError (clear message) when one is invalid.
        The vocabulary size is checked by `check_vocab_size` against `limits` (default:
        `limits_from_env()`)."""
        check_vocab_size(self.vocab_size, limits or limits_from_env())
        if self.is_unigram:
            return RunConfig(self._unigram_config(), self.normalizers, self.pre_tokenizer, self.reading)
        check_min_frequency(self.min_frequency)
        trainer = TrainerConfig(
            algorithm=self.algorithm,
            flavor=self.flavor,
            vocab_size=self.vocab_size,
            min_frequency=self.min_frequency,
            special_tokens=self.special_token_list(),
            continuing_subword_prefix=self.prefix,
            end_of_word_suffix=self.suffix or None,
        )
        return RunConfig(trainer, self.normalizers, self.pre_tokenizer, self.reading)

    def _unigram_config(self) -> UnigramConfig:
        """The app always has an unk token (explorer.checks.check_unigram says why)."""
        return UnigramConfig(
            flavor=self.flavor,
            vocab_size=self.vocab_size,
            seed_size=self.seed_size,
            shrinking_factor=self.shrinking_factor,
            max_piece_length=self.max_piece_length,
            unk_token=self.unk_token.strip(),
            special_tokens=self.special_token_list(),
        )

    def short_name(self) -> str:
        flavor = "course" if self.flavor == "course" else "library"
        return f"{ALGORITHM_LABELS[self.algorithm]} {self.vocab_size:,} ({flavor}, {self.pre_tokenizer})"

    def to_query_params(self) -> dict[str, str]:
        """URL form: the algorithm, plus every value that differs from that algorithm's default."""
        defaults = defaults_for(self.algorithm)
        unused = self.unused_fields
        params = {"algorithm": self.algorithm}
        for item in fields(self):
            value = getattr(self, item.name)
            if item.name == "algorithm" or item.name in unused or value == getattr(defaults, item.name):
                continue
            params[item.name] = ",".join(value) if isinstance(value, tuple) else str(value)
        return params


DEFAULTS = {
    "bpe": Settings(),
    "wordpiece": Settings(
        algorithm="wordpiece",
        pre_tokenizer="bert",
        special_tokens="[PAD],[UNK],[CLS],[SEP],[MASK]",
        prefix="##",
    ),
    # The course's Unigram (and XLNet's): Metaspace, no special tokens, "<unk>" for the unknown.
    "unigram": Settings(algorithm="unigram", pre_tokenizer="metaspace", special_tokens=""),
}


READING_LABELS = {
    "lines": "lines, endings dropped: train_from_iterator(lines)",
    "lines-with-endings": "lines with their endings: train(files)",
    "records": "records: each JSONL or Parquet record one sequence",
}


# The Train page's advanced settings (in a closed section), as its label names them; the values of
# those in ADVANCED_VALUES_SHOWN are the app's own words or numbers, never typed text.
ADVANCED_NAMES = {
    "pre_tokenizer": "pre-tokenizer",
    "normalizers": "normalizers",
    "special_tokens": "special tokens",
    "min_frequency": "min frequency",
    "prefix": "prefix",
    "suffix": "suffix",
    "unk_token": "unk token",
    "seed_size": "seed size",
    "max_piece_length": "longest piece",
    "shrinking_factor": "shrinking factor",
    "reading": "reading",
}
ADVANCED_VALUES_SHOWN = (
    "pre_tokenizer",
    "reading",
    "min_frequency",
    "seed_size",
    "max_piece_length",
    "shrinking_factor",
)


def advanced_changes(settings: Settings) -> list[str]:
    """The advanced settings that differ from the algorithm's defaults, named (with their value
    when it is not typed text).

    >>> advanced_changes(replace(Settings(), min_frequency=2, normalizers=("nfkc",)))
    ['normalizers', 'min frequency 2']
    """
    canonical, defaults = settings.canonical(), defaults_for(settings.algorithm)
    unused = settings.unused_fields
    changes = []
    for name, label in ADVANCED_NAMES.items():
        value = getattr(canonical, name)
        if name in unused or value == getattr(defaults, name):
            continue
        changes.append(f"{label} {value}" if name in ADVANCED_VALUES_SHOWN else label)
    return changes


def advanced_label(settings: Settings) -> str:
    """'Advanced settings (the defaults)', or '(2 changed: normalizers, min frequency 2)'."""
    changes = advanced_changes(settings)
    if not changes:
        return "Advanced settings (the defaults)"
    return f"Advanced settings ({len(changes)} changed: {', '.join(changes)})"


def counting_problem(counting: Counting) -> str | None:
    """What of a count file's settings the Train form does not offer ("pre-tokenizer 'x'", a
    normalizer or a reading), for the sentence refusing the file; None when it takes them all."""
    unknown = [name for name in counting.normalizers if name not in NORMALIZER_LABELS]
    if unknown:
        return f"normalizer {unknown[0]!r}"
    if counting.pre_tokenizer not in PRE_TOKENIZER_NAMES:
        return f"pre-tokenizer {counting.pre_tokenizer!r}"
    if counting.reading not in READINGS:
        return f"reading {counting.reading!r}"
    return None


def with_counting(settings: Settings, counting: Counting) -> Settings:
    """`settings` with the normalizers, pre-tokenizer and reading a count file was made with."""
    return replace(
        settings,
        normalizers=counting.normalizers,
        pre_tokenizer=counting.pre_tokenizer,
        reading=counting.reading,
    )


def defaults_for(algorithm: str) -> Settings:
    return DEFAULTS.get(algorithm, DEFAULTS["bpe"])


def other_algorithm(algorithm: str) -> str:
    """The algorithm Compare offers to train beside this one: WordPiece beside BPE, BPE beside
    WordPiece and beside Unigram (the one that merges where Unigram prunes)."""
    return "wordpiece" if algorithm == "bpe" else "bpe"


def settings_for_other_algorithm(settings: Settings) -> Settings:
    """The other algorithm with its own defaults (pre-tokenizer, specials, prefix) and this run's
    vocabulary size, flavor, normalizers and min frequency: the fair comparison on one corpus."""
    other = defaults_for(other_algorithm(settings.algorithm))
    return replace(
        other,
        flavor=settings.flavor,
        vocab_size=settings.vocab_size,
        normalizers=settings.normalizers,
        min_frequency=other.min_frequency
        if "min_frequency" in settings.unused_fields
        else settings.min_frequency,
    )


def from_query_params(params: Mapping[str, str], limits: Limits | None = None) -> tuple[Settings, list[str]]:
    """Settings from a URL; unknown or invalid values fall back to defaults, with notes saying so.
    The vocabulary size must pass `check_vocab_size` against `limits` (default:
    `limits_from_env()`)."""
    limits = limits or limits_from_env()
    notes: list[str] = []
    algorithm = params.get("algorithm", "bpe")
    if algorithm not in DEFAULTS:
        notes.append(f"Unknown algorithm {algorithm!r} in the link: using BPE.")
        algorithm = "bpe"
    settings = defaults_for(algorithm)
    changes: dict[str, Any] = {}  # Settings field -> its value (each field's own type)

    def choice(name: str, allowed) -> None:
        if name in params:
            if params[name] in allowed:
                changes[name] = params[name]
            else:
                notes.append(
                    f"Ignored {name}={params[name]!r} from the link (choose from {', '.join(allowed)})."
                )

    choice("flavor", FLAVOR_LABELS)
    choice("pre_tokenizer", PRE_TOKENIZER_NAMES)
    choice("reading", TEXT_READINGS)
    if "vocab_size" in params:
        raw = params["vocab_size"]
        value = read_whole_number(raw, 0, LARGEST_COUNT)
        if value is None:
            notes.append(f"Ignored vocab_size={raw[:40]!r} from the link (not a valid whole number).")
        else:
            try:
                changes["vocab_size"] = check_vocab_size(value, limits)
            except InputError as error:
                notes.append(f"Ignored vocab_size={raw[:40]!r} from the link: {error}")
    if "normalizers" in params:
        names = tuple(name for name in params["normalizers"].split(",") if name)
        valid = tuple(name for name in names if name in NORMALIZER_LABELS)
        if len(valid) != len(names):
            notes.append("Ignored unknown normalizers from the link.")
        changes["normalizers"] = valid
    for name in ("special_tokens", "prefix", "suffix", "unk_token"):
        if name in params:
            changes[name] = params[name]
    for name, (low, high) in WHOLE_NUMBER_RANGES.items():
        if name in params:
            value = read_whole_number(params[name], low, high)
            if value is None:
                notes.append(
                    f"Ignored {name}={params[name][:40]!r} from the link (not a whole number from {low:,} "
                    f"to {high:,})."
                )
            else:
                changes[name] = value
    if "shrinking_factor" in params:
        try:
            factor = float(params["shrinking_factor"].strip())
        except ValueError:
            factor = math.nan
        lowest, highest = SHRINKING_FACTOR_RANGE
        if lowest <= factor <= highest:
            changes["shrinking_factor"] = factor
        else:
            notes.append(
                f"Ignored shrinking_factor={params['shrinking_factor'][:40]!r} from the link "
                f"(a number from {lowest} to {highest}, as the form takes)."
            )
    return replace(settings, **changes).canonical(), notes
