"""A training asked for, by the Train page or the command line: one sequence of checks, then the
run's configuration, so that both refuse the same inputs with the same sentences.

- `request_training(text, asked, limits)`: the corpus's check (`check_corpus`), the vocabulary
  size's, the special tokens' (as typed, empty entries kept), a Unigram run's own rules, then the
  `RunConfig` (a setting it refuses is one more error). Errors block, warnings and notes inform
  (`TrainingRequest.check`); `config` is None when something blocks.
- `asked_settings(settings, limits)`, `settings_check(settings, limits)`: the Train page's
  `Settings` as asked for, and their check.
The page's side once a request is clear (the job in a worker of the pool) is
explorer.session.training_jobs; the command line trains in its own process. This module imports
neither the pool nor the store, so the command line loads neither.

What it does not do: hold a session's job or draw its progress (explorer.ui.common.training), or
train (explorer.work.tasks.train_task in a worker; explorer.train for the command line).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from explorer.checks import Check, InputError, Limits, check_corpus
from explorer.run_config import RunConfig
from explorer.runs.settings import Settings
from explorer.training.settings_checks import check_special_tokens, check_unigram, check_vocab_size


@dataclass(frozen=True)
class AskedSettings:
    """Settings as asked for, before the checks: the vocabulary size, the special tokens as typed
    (empty entries and repeats kept), the pre-tokenizer, how to make the RunConfig, and for a
    Unigram run what `check_unigram` looks at (flavor, seed size, unk token)."""

    vocab_size: int
    special_tokens: tuple[str, ...]
    pre_tokenizer: str
    make_config: Callable[[], RunConfig]
    unigram: tuple[str, int | None, str] | None = None


@dataclass(frozen=True)
class TrainingRequest:
    """The checks' verdict on a corpus and its settings, and the run's configuration when nothing
    blocks it."""

    check: Check
    config: RunConfig | None

    @property
    def errors(self) -> tuple[str, ...]:
        return self.check.errors


def check_settings(asked: AskedSettings, limits: Limits) -> tuple[Check, RunConfig | None]:
    """What blocks training with these settings (vocabulary size, special tokens, the trainer's own
    rules), what deserves a warning, notes about the special tokens, and the RunConfig they make
    when nothing blocks."""
    errors: list[str] = []
    try:
        check_vocab_size(asked.vocab_size, limits)
    except InputError as error:
        errors.append(str(error))
    tokens = check_special_tokens(asked.special_tokens, asked.pre_tokenizer)
    errors.extend(tokens.errors)
    warnings = list(tokens.warnings)
    if asked.unigram is not None:
        flavor, seed_size, unk_token = asked.unigram
        rules = check_unigram(flavor, asked.vocab_size, seed_size, unk_token)
        errors.extend(rules.errors)
        warnings.extend(rules.warnings)
    config = None
    if not errors:
        try:
            config = asked.make_config()
        except ValueError as error:
            errors.append(f"Cannot train with these settings: {error}")
    return Check(tuple(errors), tuple(warnings), tokens.notes), config


def request_training(
    text: str, asked: AskedSettings, limits: Limits, corpus_check: Check | None = None
) -> TrainingRequest:
    """The corpus checked (or its `corpus_check`, when the caller has it), then the settings
    (`check_settings`): every error of both, the corpus's first."""
    corpus = corpus_check if corpus_check is not None else check_corpus(text, limits)
    settings, config = check_settings(asked, limits)
    check = Check(
        corpus.errors + settings.errors, corpus.warnings + settings.warnings, corpus.notes + settings.notes
    )
    return TrainingRequest(check, None if check.errors else config)


def asked_settings(settings: Settings, limits: Limits) -> AskedSettings:
    """The Train page's `Settings` as asked for."""
    unigram = (settings.flavor, settings.seed_size, settings.unk_token) if settings.is_unigram else None
    return AskedSettings(
        settings.vocab_size,
        settings.special_token_entries(),
        settings.pre_tokenizer,
        lambda: settings.run_config(limits),
        unigram,
    )


def settings_check(settings: Settings, limits: Limits) -> Check:
    """`check_settings` for the Train page's `Settings` (its form shows the verdict as it is edited)."""
    return check_settings(asked_settings(settings, limits), limits)[0]
