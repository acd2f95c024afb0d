"""Training settings checked before training: the special tokens, the vocabulary size and the min
frequency.

- `special_token_entries(typed)`: the comma-separated tokens as typed, empty entries kept, which
  the app and the CLI both check with:
- `check_special_tokens(tokens, pre_tokenizer)`: what the special tokens will do, as a `Check`
  (errors, warnings, notes), checked against the library (see tests/unit/test_inputs.py).
- `check_vocab_size(vocab_size, limits)`: the size as an int, or `InputError`.
- `check_min_frequency(min_frequency)`: the min frequency as an int from 0 to the largest count
  the app takes (`run_config.LARGEST_COUNT`), or `InputError`: the app's form, its links and the CLI
  refuse the same values with the same sentence.
- `check_unigram(flavor, vocab_size, seed_size, unk_token)`: what a Unigram run's own settings
  will do (no unk token: an error; a vocabulary no smaller than the seeds: a warning).

What it does not do: validate a whole configuration (explorer.run_config's frozen configs check
themselves), or explain a finished run (explorer.lessons.explain).
"""

from __future__ import annotations

import math
import re
from collections import Counter

from explorer.checks.corpus import LONE_SURROGATE, Check
from explorer.checks.limits import InputError, Limits
from explorer.pipeline.pre_tokenizers import build_pre_tokenizer
from explorer.run_config import COURSE_DEFAULTS, LARGEST_COUNT, LIBRARY_DEFAULTS

# The shapes special tokens usually have: [CLS], <s>, </s>, <unk>, <|endoftext|>.
_USUAL_MARKER = re.compile(r"\[[^\[\]\s]+\]|<\|[^<>|\s]+\|>|</?[^<>|\s]+>")


def special_token_entries(typed: str) -> tuple[str, ...]:
    """Comma-separated special tokens as typed (the Train page's field, `train --special-tokens`),
    each stripped; repeats and empty entries ("a,,b") kept, for `check_special_tokens` to report.
    Nothing typed: no token.

    >>> special_token_entries(" [CLS], [SEP] "), special_token_entries(",,"), special_token_entries(" ")
    (('[CLS]', '[SEP]'), ('', '', ''), ())
    """
    if not typed.strip():
        return ()
    return tuple(token.strip() for token in typed.split(","))


def check_special_tokens(tokens: list[str] | tuple[str, ...], pre_tokenizer: str | None = None) -> Check:
    """What the special tokens will do, before training.

    Special tokens are cut out of the raw text before normalization and pre-tokenization
    (leftmost, longest match), by the library and by `explorer.pipeline.tokenizer` alike. Hence:
    - errors: an empty token (it takes an id and can never match), a token listed twice (the
      course flavor counts it twice, so one merge fewer), a lone surrogate (not text);
    - warnings: a token of white space only (it replaces that white space in every text), a token
      of letters or digits only, or of one character: it is cut out of every text that contains
      it, even from inside longer words ("theory" -> "the" + "ory");
    - notes: a token the chosen pre-tokenizer would split (white space, punctuation): harmless,
      it is still matched whole on the raw text. Not for the usual marker shapes (`[CLS]`,
      `<s>`, `</s>`, `<|endoftext|>`): every BERT or GPT user's tokens would get one otherwise.
    """

    errors, warnings, notes = [], [], []
    splitter = build_pre_tokenizer(pre_tokenizer) if pre_tokenizer else None
    listed = Counter(tokens)  # one sentence per problem, however often it is typed
    empty = listed.pop("", 0)
    if empty == 1:
        errors.append("A special token is empty: it would take an id and never match; remove it.")
    elif empty:
        errors.append(
            f"{empty} special tokens are empty: each would take an id and never match; remove them "
            "(two commas in a row, or one at either end, make an empty entry)."
        )
    for token, times in listed.items():
        if times > 1:
            how_often = "twice" if times == 2 else f"{times} times"
            errors.append(f"The special token {token!r} is listed {how_often}; keep one.")
    for token in listed:
        if LONE_SURROGATE.search(token):
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


def check_unigram(flavor: str, vocab_size: int, seed_size: int | None, unk_token: str) -> Check:
    """A Unigram run's own settings, before training: an unk token is needed (without one a
    character the corpus never had cannot be encoded, and the pages encode any text); a vocabulary
    as large as the seeds prunes nothing. `seed_size` None: the flavor's default."""

    errors, warnings = [], []
    if not unk_token.strip():
        errors.append(
            "A Unigram run needs an unk token here (e.g. <unk>): without one, a character the corpus never "
            "had cannot be encoded at all."
        )
    elif LONE_SURROGATE.search(unk_token):
        errors.append(
            f"The unk token {unk_token!r} holds a lone surrogate (U+D800 to U+DFFF), which is not text."
        )
    seeds = seed_size or (COURSE_DEFAULTS if flavor == "course" else LIBRARY_DEFAULTS)["seed_size"]
    if isinstance(vocab_size, int) and vocab_size >= seeds:
        warnings.append(
            f"The vocabulary size ({vocab_size:,}) is not below the seed size ({seeds:,}): Unigram starts "
            "from the seed pieces and only removes, so no round will prune anything. Ask for fewer tokens or "
            "more seeds."
        )
    return Check(tuple(errors), tuple(warnings), ())


def check_vocab_size(vocab_size: object, limits: Limits) -> int:
    """The vocab size as an int, or InputError when it is not a whole number from 1 to the limit."""
    limit = limits.max_vocab
    shown_limit = "no limit" if math.isinf(limit) else f"{int(limit):,}"
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise InputError(f"vocab_size must be a whole number from 1 to {shown_limit}, not {vocab_size!r}.")
    if vocab_size < 1 or vocab_size > limit:
        raise InputError(f"vocab_size must be from 1 to {shown_limit} (got {vocab_size:,}).")
    return vocab_size


def check_min_frequency(min_frequency: object) -> int:
    """The min frequency as an int, or InputError when it is not a whole number from 0 to
    LARGEST_COUNT (the largest count setting the Train form's number fields hold exactly).

    >>> check_min_frequency(2), LARGEST_COUNT == 2**53 - 1
    (2, True)
    """
    if isinstance(min_frequency, bool) or not isinstance(min_frequency, int):
        shown = repr(min_frequency)
    elif 0 <= min_frequency <= LARGEST_COUNT:
        return min_frequency
    else:
        shown = f"{min_frequency:,}"
    raise InputError(
        f"Min frequency must be a whole number from 0 to {LARGEST_COUNT:,} (the largest count setting "
        f"the app takes), not {shown}."
    )
