"""Training settings as the Train page edits them, their defaults per algorithm, and their URL form.

`Settings` is what the widgets hold (strings as typed); `run_config()` turns it into a
`RunConfig` and raises ValueError with a message a person can act on. `to_query_params` /
`from_query_params` give the shareable-URL form: only values that differ from the algorithm's
defaults are written, and a hand-edited URL with a bad value falls back to the default with a
note instead of failing.

`limits_from_env()` is the app's one reading of the hosted demo's limits (`Limits.from_env()`,
see explorer/checks/): the vocabulary-size bound, the corpus size, the time and step budget all come
from it, read again on every call so that an environment change (a test's) takes effect at once.

Pure Python (no streamlit).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace

from explorer.checks import InputError, Limits, check_vocab_size
from explorer.run_config import RunConfig, TrainerConfig

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
SLIDER_MAX_VOCAB_SIZE = 20_000  # the slider's reach; the exact number input goes to Limits.max_vocab


def limits_from_env() -> Limits:
    """The bounds from EXPLORER_MAX_* environment variables (defaults when unset).

    Raises InputError naming the variable when one is malformed: `limits_or_defaults()` turns that
    into the sentence the app shows while it runs with the defaults."""
    return Limits.from_env()


def limits_or_defaults() -> tuple[Limits, str | None]:
    """`limits_from_env()`, or the defaults and a sentence saying which variable is wrong."""
    try:
        return limits_from_env(), None
    except InputError as error:
        return Limits(), f"The server's limits are misconfigured ({error}); the default limits apply."


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

    def special_token_entries(self) -> tuple[str, ...]:
        """The comma-separated special tokens as typed, each stripped; repeats and empty entries
        ("a,,b") kept, for `check_special_tokens` to report. Nothing typed: no token."""
        if not self.special_tokens.strip():
            return ()
        return tuple(token.strip() for token in self.special_tokens.split(","))

    def special_token_list(self) -> tuple[str, ...]:
        """The special tokens trained with: the entries without empty ones and repeats."""
        return tuple(dict.fromkeys(token for token in self.special_token_entries() if token))

    def run_config(self, limits: Limits | None = None) -> RunConfig:
        """The RunConfig for these settings; ValueError (clear message) when one is invalid.
        The vocabulary size is checked by `check_vocab_size` against `limits` (default:
        `limits_from_env()`)."""
        check_vocab_size(self.vocab_size, limits or limits_from_env())
        if self.min_frequency < 0:
            raise ValueError("Min frequency cannot be negative.")
        trainer = TrainerConfig(
            algorithm=self.algorithm,
            flavor=self.flavor,
            vocab_size=self.vocab_size,
            min_frequency=self.min_frequency,
            special_tokens=self.special_token_list(),
            continuing_subword_prefix=self.prefix,
            end_of_word_suffix=self.suffix or None,
        )
        return RunConfig(trainer, self.normalizers, self.pre_tokenizer)

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
    changes: dict[str, object] = {}

    def choice(name: str, allowed) -> None:
        if name in params:
            if params[name] in allowed:
                changes[name] = params[name]
            else:
                notes.append(
                    f"Ignored {name}={params[name]!r} from the link (choose from {', '.join(allowed)})."
                )

    choice("flavor", FLAVOR_LABELS)
    choice("pre_tokenizer", PRE_TOKENIZER_LABELS)
    for name, low in (("vocab_size", 1), ("min_frequency", 0)):
        if name in params:
            try:
                value = int(params[name].strip())
            except ValueError:
                notes.append(f"Ignored {name}={params[name]!r} from the link (not a valid whole number).")
                continue
            if name == "vocab_size":
                try:
                    changes[name] = check_vocab_size(value, limits)
                except InputError as error:
                    notes.append(f"Ignored {name}={params[name]!r} from the link: {error}")
            elif value < low:
                notes.append(f"Ignored {name}={params[name]!r} from the link (not a valid whole number).")
            else:
                changes[name] = value
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
