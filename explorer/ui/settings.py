"""Training settings as the Train page edits them, their defaults per algorithm, and their URL form.

`Settings` is what the widgets hold (strings as typed); `trainer_config()` turns it into a
`TrainerConfig` and raises ValueError with a message a person can act on. `to_query_params` /
`from_query_params` give the shareable-URL form: only values that differ from the algorithm's
defaults are written, and a hand-edited URL with a bad value falls back to the default with a
note instead of failing.

Pure Python (no streamlit).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace

from explorer.trainers import TrainerConfig

ALGORITHM_LABELS = {"bpe": "BPE", "wordpiece": "WordPiece"}
FLAVOR_LABELS = {"library": "`tokenizers` library", "course": "Hugging Face course"}
PRE_TOKENIZER_LABELS = {
    "byte-level": "byte-level (GPT-2)",
    "bert": "BERT (whitespace + punctuation)",
    "whitespace": "whitespace (\\w+|[^\\w\\s]+)",
    "whitespace-split": "whitespace split",
}
NORMALIZER_LABELS = {
    "nfd": "NFD",
    "nfkc": "NFKC",
    "lowercase": "lowercase",
    "strip-accents": "strip accents",
    "bert": "BERT normalizer",
}
MAX_VOCAB_SIZE = 100_000
SLIDER_MAX_VOCAB_SIZE = 20_000


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

    def special_token_list(self) -> tuple[str, ...]:
        """The comma-separated special tokens, stripped, empty ones and repeats dropped."""
        tokens = (token.strip() for token in self.special_tokens.split(","))
        return tuple(dict.fromkeys(token for token in tokens if token))

    def trainer_config(self) -> TrainerConfig:
        """The TrainerConfig for these settings; ValueError (clear message) when one is invalid."""
        if not isinstance(self.vocab_size, int) or self.vocab_size < 1:
            raise ValueError(f"Vocabulary size must be a whole number of at least 1 (got {self.vocab_size}).")
        if self.vocab_size > MAX_VOCAB_SIZE:
            raise ValueError(f"Vocabulary size must be at most {MAX_VOCAB_SIZE:,} (got {self.vocab_size:,}).")
        if self.min_frequency < 0:
            raise ValueError("Min frequency cannot be negative.")
        return TrainerConfig(
            algorithm=self.algorithm,
            flavor=self.flavor,
            vocab_size=self.vocab_size,
            min_frequency=self.min_frequency,
            special_tokens=self.special_token_list(),
            continuing_subword_prefix=self.prefix,
            end_of_word_suffix=self.suffix or None,
        )

    def short_name(self) -> str:
        flavor = "course" if self.flavor == "course" else "library"
        return f"{ALGORITHM_LABELS[self.algorithm]} {self.vocab_size:,} ({flavor}, {self.pre_tokenizer})"

    def to_query_params(self) -> dict[str, str]:
        """URL form: the algorithm, plus every value that differs from that algorithm's default."""
        defaults = defaults_for(self.algorithm)
        params = {"algorithm": self.algorithm}
        for item in fields(self):
            value = getattr(self, item.name)
            if item.name == "algorithm" or value == getattr(defaults, item.name):
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
}


def defaults_for(algorithm: str) -> Settings:
    return DEFAULTS.get(algorithm, DEFAULTS["bpe"])


def other_algorithm(algorithm: str) -> str:
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
        min_frequency=settings.min_frequency,
    )


def from_query_params(params: Mapping[str, str]) -> tuple[Settings, list[str]]:
    """Settings from a URL; unknown or invalid values fall back to defaults, with notes saying so."""
    notes: list[str] = []
    algorithm = params.get("algorithm", "bpe")
    if algorithm not in DEFAULTS:
        notes.append(f"Unknown algorithm {algorithm!r} in the link: using BPE.")
        algorithm = "bpe"
    settings = defaults_for(algorithm)
    changes: dict[str, object] = {}

    def choice(name: str, allowed) -> None:
        if name in params:
            if params[name] in allowed:
                changes[name] = params[name]
            else:
                notes.append(f"Ignored {name}={params[name]!r} from the link (choose from {', '.join(allowed)}).")

    choice("flavor", FLAVOR_LABELS)
    choice("pre_tokenizer", PRE_TOKENIZER_LABELS)
    for name, low in (("vocab_size", 1), ("min_frequency", 0)):
        if name in params:
            try:
                value = int(params[name].strip())
                if value < low or (name == "vocab_size" and value > MAX_VOCAB_SIZE):
                    raise ValueError
                changes[name] = value
            except ValueError:
                notes.append(f"Ignored {name}={params[name]!r} from the link (not a valid whole number).")
    if "normalizers" in params:
        names = tuple(name for name in params["normalizers"].split(",") if name)
        valid = tuple(name for name in names if name in NORMALIZER_LABELS)
        if len(valid) != len(names):
            notes.append("Ignored unknown normalizers from the link.")
        changes["normalizers"] = valid
    for name in ("special_tokens", "prefix", "suffix"):
        if name in params:
            changes[name] = params[name]
    return replace(settings, **changes), notes
