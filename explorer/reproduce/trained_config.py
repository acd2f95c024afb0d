"""The settings a program trains to give what a run gave, from the run's history: its own, but where
asking for them would not give the run.

- a BPE or WordPiece run stopped early (Stop, a time or step limit) asks for the vocabulary size it
  reached, which its merges make;
- a Unigram run whose pruning got stuck (the corpus needs more pieces than asked for: the app
  stops, `stop_reason` "stuck") has no library program: the `tokenizers` library's
  UnigramTrainer never finishes there (`has_library_program`); the explorer package's program
  keeps the run's settings and stops the same way;
- a Unigram run stopped early trains the whole run (a trainer's settings cannot stop at a round).

`trained_config(history, style)` gives (RunConfig, sentence or None): the sentence says what differs.

What it does not do: write the program (api_program.py, library_program.py).
"""

from __future__ import annotations

from dataclasses import replace

from explorer.run_config import RunConfig
from explorer.training.history import TrainingHistory


def trained_config(history: TrainingHistory, style: str) -> tuple[RunConfig, str | None]:
    """The RunConfig a program of `style` ("library" or "api") trains for `history`'s run, and why
    it is not the run's own (None when it is)."""
    config: RunConfig = history.config
    steps = f"{history.steps:,} {history.step_noun}{'s' if history.steps != 1 else ''}"
    reached = len(history.vocab)
    if history.stop_reason != "stopped":
        return config, None
    if not history.vocabulary_grows:  # Unigram: rounds remove pieces
        return config, (
            f"This run was stopped after {steps}: the program trains the whole run (a Unigram "
            "trainer's settings cannot stop it at a round)."
        )
    return replace(config, trainer=replace(config.trainer, vocab_size=reached)), (
        f"This run was stopped after {steps}: the program asks for the vocabulary size it reached "
        f"({reached:,}), which those merges make."
    )


def has_library_program(history: TrainingHistory) -> bool:
    """Whether plain `tokenizers` code reproduces the run: the library flavor, and not a Unigram run
    the library's trainer would never finish (stuck: the corpus needs more pieces than asked for)."""
    return history.config.flavor == "library" and history.stop_reason != "stuck"
