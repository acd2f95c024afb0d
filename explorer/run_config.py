"""What decides a training run: the trainer's settings and the pipeline stages around it.

- `TrainerConfig`: a BPE or WordPiece run (algorithm, flavor, vocabulary size, special tokens,
  prefix and suffix ...); `UnigramConfig`: a Unigram run.
- `RunConfig`: one of those plus the normalizers and the pre-tokenizer the corpus went through.
  A trace carries its RunConfig (`trace.config`), so every question about a run (is it byte-level?
  which prefix marks a continuation?) is answered in one place.

All three are frozen and hashable (cache keys) and check themselves when made (ValueError with a
sentence). `RunConfig.to_dict()` is one flat JSON object, the trainer's fields plus "normalizers"
and "pre_tokenizer", as traces have always stored it; `RunConfig.from_dict` reads it back.

What it does not do: check the app's limits (explorer.checks) or train (explorer.train).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, TypedDict

from explorer.pipeline.normalizers import NORMALIZERS
from explorer.pipeline.pre_tokenizers import PRE_TOKENIZERS, is_byte_level

ALGORITHMS = ("bpe", "wordpiece")
FLAVORS = ("library", "course")
UNIGRAM_FLAVORS = ("library", "course")
# The largest whole number a count setting (min frequency, seed size) takes: the Train form's number
# fields hold no more exactly (JavaScript's safe integers), and the compiled engine's counts (i64)
# hold more; no corpus has a count near it.
LARGEST_COUNT = 2**53 - 1
# How a corpus is cut into the sequences that are normalized and pre-tokenized one by one:
#   "lines": one sequence per line, its break removed ("\r\n" or "\n"), empty lines dropped: what
#            `train_from_iterator(lines)` gives (the app's pasted and uploaded text, and the programs
#            it writes);
#   "lines-with-endings": one sequence per line with its ending ("\n", and a "\r" before it) kept,
#            as the library's `Tokenizer.train(files)` reads a file (tokenizers' `lines_with_ending`);
#   "records": each record's text is one sequence (a JSONL field, a Parquet column), as
#            `train_from_iterator(record[field] for record in records)` gives.
READINGS = ("lines", "lines-with-endings", "records")
TEXT_READINGS = READINGS[:2]  # what a text can be read as: records are JSONL and Parquet files
LONGEST_PIECE = 65_535  # the longest piece the Unigram trainers take (the compiled engine's u16)


class UnigramDefaults(TypedDict):
    """A Unigram flavor's defaults for the settings left None."""

    seed_size: int
    max_piece_length: int | None


LIBRARY_DEFAULTS: UnigramDefaults = {"seed_size": 1_000_000, "max_piece_length": 16}
COURSE_DEFAULTS: UnigramDefaults = {"seed_size": 300, "max_piece_length": None}
# The merge engine packs two ids into one pair key of 48 bits (explorer/training/bpe/engine.py).
MAX_SYMBOLS = 1 << 24


def _plain(value):
    """Tuples as lists: the JSON form."""
    return list(value) if isinstance(value, tuple) else value


@dataclass(frozen=True)
class TrainerConfig:
    """Everything that decides a training run (hashable: used as a cache key)."""

    algorithm: str = "bpe"
    flavor: str = "library"
    vocab_size: int = 1000
    min_frequency: int = 0
    special_tokens: tuple[str, ...] = ()
    # None means the algorithm's default: no prefix for BPE, "##" for WordPiece.
    continuing_subword_prefix: str | None = None
    end_of_word_suffix: str | None = None
    # Characters always in the vocabulary (the byte-level pre-tokenizer passes all 256 symbols).
    initial_alphabet: tuple[str, ...] = ()
    # How many competing pairs the trace keeps per step (winner included).
    candidates: int = 10

    def __post_init__(self):
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}, not {self.algorithm!r}")
        if self.flavor not in FLAVORS:
            raise ValueError(f"flavor must be one of {', '.join(FLAVORS)}, not {self.flavor!r}")
        if not isinstance(self.vocab_size, int) or self.vocab_size < 1:
            raise ValueError(f"vocab_size must be a whole number of at least 1, not {self.vocab_size!r}")
        if self.vocab_size >= MAX_SYMBOLS:
            raise ValueError(f"vocab_size must be below {MAX_SYMBOLS:,}")
        if self.min_frequency < 0:
            raise ValueError("min_frequency cannot be negative")
        if self.min_frequency > LARGEST_COUNT:
            raise ValueError(f"min_frequency must be at most {LARGEST_COUNT:,}")
        if self.flavor == "course" and self.algorithm == "wordpiece" and self.prefix != "##":
            raise ValueError("the course's WordPiece always uses the '##' continuing-subword prefix")

    @property
    def prefix(self) -> str | None:
        if self.continuing_subword_prefix is not None:
            return self.continuing_subword_prefix or None
        return "##" if self.algorithm == "wordpiece" else None

    @property
    def suffix(self) -> str | None:
        return self.end_of_word_suffix or None

    step_noun = "merge"  # what one training step is
    takes_step_limit = True  # `max_steps` counts merges

    def to_dict(self) -> dict:
        """Plain JSON types (tuples become lists), as stored in a MergeHistory."""
        return {key: _plain(value) for key, value in asdict(self).items()}


@dataclass(frozen=True)
class UnigramConfig:
    """Everything that decides a Unigram run (hashable: a cache key). None means the flavor's
    default: seed size 1,000,000 (library) / 300 (course); longest piece 16 (library) / no
    limit (course). `shrinking_factor` and `n_sub_iterations` are the library's,
    `percent_to_remove` the course's. The library's own `unk_token` default is None (unknown
    characters then cannot be encoded); here it is "<unk>"."""

    flavor: str = "library"
    vocab_size: int = 8000
    seed_size: int | None = None
    shrinking_factor: float = 0.75
    max_piece_length: int | None = None
    n_sub_iterations: int = 2
    percent_to_remove: float = 0.1
    unk_token: str | None = "<unk>"
    special_tokens: tuple[str, ...] = ()

    algorithm = "unigram"
    step_noun = "round"
    takes_step_limit = False  # a round is not a merge: a Unigram run is limited by time only
    prefix = suffix = None  # no continuing-subword prefix or end-of-word suffix

    def __post_init__(self):
        if self.flavor not in UNIGRAM_FLAVORS:
            raise ValueError(f"flavor must be one of {', '.join(UNIGRAM_FLAVORS)}, not {self.flavor!r}")
        # None takes the flavor's default now, so that equal runs have equal configs.
        defaults = LIBRARY_DEFAULTS if self.flavor == "library" else COURSE_DEFAULTS
        for name, default in defaults.items():
            if getattr(self, name) is None:
                object.__setattr__(self, name, default)
        for name in ("vocab_size", "seed_size", "max_piece_length", "n_sub_iterations"):
            value = getattr(self, name)
            if value is None and name in ("seed_size", "max_piece_length"):
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a whole number of at least 1, not {value!r}")
        if self.seed_size is not None and self.seed_size > LARGEST_COUNT:
            raise ValueError(f"seed_size must be at most {LARGEST_COUNT:,}")
        if self.max_piece_length is not None and self.max_piece_length > LONGEST_PIECE:
            raise ValueError(f"max_piece_length must be at most {LONGEST_PIECE:,}")
        if not 0 < self.shrinking_factor < 1:
            raise ValueError(
                f"shrinking_factor must be between 0 and 1 (exclusive), not {self.shrinking_factor!r}"
            )
        if not 0 < self.percent_to_remove < 1:
            raise ValueError(
                f"percent_to_remove must be between 0 and 1 (exclusive), not {self.percent_to_remove!r}"
            )
        if self.unk_token == "":
            raise ValueError("unk_token cannot be empty (use None for no unk token)")
        if any(not isinstance(token, str) or not token for token in self.special_tokens):
            raise ValueError("special tokens must be non-empty strings")

    def to_dict(self) -> dict:
        return {"algorithm": self.algorithm, **{key: _plain(value) for key, value in asdict(self).items()}}


@dataclass(frozen=True)
class RunConfig:
    """A trainer's config and the pipeline around it. `pre_tokenizer` None: the trainer was given
    words directly (tests, the seeds' word lists), with no normalizer or pre-tokenizer."""

    trainer: TrainerConfig | UnigramConfig = field(default_factory=TrainerConfig)
    normalizers: tuple[str, ...] = ()
    pre_tokenizer: str | None = "byte-level"
    reading: str = "lines"  # READINGS: how the corpus was cut into sequences

    def __post_init__(self):
        object.__setattr__(self, "normalizers", tuple(self.normalizers))
        if self.reading not in READINGS:
            raise ValueError(f"unknown reading {self.reading!r} (choose from {', '.join(READINGS)})")
        unknown = [name for name in self.normalizers if name not in NORMALIZERS]
        if unknown:
            raise ValueError(f"unknown normalizer {unknown[0]!r} (choose from {', '.join(NORMALIZERS)})")
        if self.pre_tokenizer is not None and self.pre_tokenizer not in PRE_TOKENIZERS:
            raise ValueError(
                f"unknown pre-tokenizer {self.pre_tokenizer!r} (choose from {', '.join(PRE_TOKENIZERS)})"
            )

    @property
    def algorithm(self) -> str:
        return self.trainer.algorithm

    @property
    def flavor(self) -> str:
        return self.trainer.flavor

    @property
    def vocab_size(self) -> int:
        return self.trainer.vocab_size

    @property
    def special_tokens(self) -> tuple[str, ...]:
        return self.trainer.special_tokens

    @property
    def is_unigram(self) -> bool:
        return isinstance(self.trainer, UnigramConfig)

    @property
    def is_byte_level(self) -> bool:
        """Whether tokens are spelled in GPT-2's byte symbols ("Ġ" for a space byte)."""
        return is_byte_level(self.pre_tokenizer)

    @property
    def prefix(self) -> str:
        """What marks a token continuing a word ("##" for WordPiece by default), "" for none."""
        return self.trainer.prefix or ""

    @property
    def suffix(self) -> str:
        """What marks a token ending a word, "" for none."""
        return self.trainer.suffix or ""

    def to_dict(self) -> dict:
        return {
            **self.trainer.to_dict(),
            "normalizers": list(self.normalizers),
            "pre_tokenizer": self.pre_tokenizer,
            # Only when not the default: every trace and run key made before readings existed
            # (all "lines") stays the same.
            **({"reading": self.reading} if self.reading != "lines" else {}),
        }

    @classmethod
    def from_dict(cls, data: dict, strict: bool = False) -> RunConfig:
        """Read `to_dict`'s form. Missing keys take their defaults (traces of older versions);
        an unknown key is a ValueError when `strict`, else ignored."""
        trainer_class = UnigramConfig if data.get("algorithm") == "unigram" else TrainerConfig
        names = {item.name for item in fields(trainer_class)}
        unknown = set(data) - names - {"algorithm", "normalizers", "pre_tokenizer", "reading"}
        if strict and unknown:
            raise ValueError(f"unknown training setting {sorted(unknown)[0]!r}")
        # JSON values, checked by the config's __post_init__.
        values: dict[str, Any] = {
            name: tuple(value) if isinstance(value, list) else value
            for name, value in data.items()
            if name in names
        }
        if trainer_class is TrainerConfig and "algorithm" in data:
            values["algorithm"] = data["algorithm"]
        return cls(
            trainer=trainer_class(**values),
            normalizers=tuple(data.get("normalizers") or ()),
            pre_tokenizer=data.get("pre_tokenizer"),
            reading=data.get("reading", "lines"),
        )
