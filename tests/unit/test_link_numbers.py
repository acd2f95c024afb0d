"""Whole numbers and bounds in a link (issue 50, part E): a number no setting can take is ignored
with a note, never handed to `int()` past Python's 4,300-digit limit nor to a trainer that
overflows, and the shared configs refuse what the trainers cannot take (the CLI's checks too)."""

from __future__ import annotations

import pytest

from explorer.pretrained import parse_ids
from explorer.run_config import LARGEST_COUNT, LONGEST_PIECE, TrainerConfig, UnigramConfig
from explorer.runs.settings import SHRINKING_FACTOR_RANGE, defaults_for, from_query_params
from explorer.views.audit_tables import AuditChoice, choice_from_params

HUGE = ["9" * 5000, str(2**64), "0" * 5000 + "1", str(LARGEST_COUNT + 1)]


@pytest.mark.parametrize("value", HUGE, ids=["5000 digits", "2**64", "5000 zeros", "above the bound"])
@pytest.mark.parametrize("algorithm", ["bpe", "unigram"])
@pytest.mark.parametrize("name", ["vocab_size", "min_frequency", "seed_size", "max_piece_length"])
def test_a_huge_number_in_a_link_is_ignored_with_a_note(name, algorithm, value):
    settings, notes = from_query_params({"algorithm": algorithm, name: value})
    if value.startswith("0" * 5000):  # 1, written with leading zeros: read as 1
        assert notes == [] or "vocab_size" in notes[0]
        return
    assert settings == defaults_for(algorithm)
    assert len(notes) == 1 and notes[0].startswith(f"Ignored {name}=")
    assert len(notes[0]) < 200  # the value is quoted cut, not 5,000 digits
    settings.run_config()  # what the page trains with trains


def test_the_largest_numbers_a_link_takes_train_in_both_configs():
    settings, notes = from_query_params(
        {"algorithm": "unigram", "seed_size": str(LARGEST_COUNT), "max_piece_length": str(LONGEST_PIECE)}
    )
    assert notes == [] and settings.seed_size == LARGEST_COUNT and settings.max_piece_length == LONGEST_PIECE
    settings.run_config()
    settings, notes = from_query_params({"algorithm": "bpe", "min_frequency": str(LARGEST_COUNT)})
    assert notes == [] and settings.run_config().trainer.min_frequency == LARGEST_COUNT


def test_the_configs_refuse_counts_the_trainers_cannot_take_in_a_sentence():
    with pytest.raises(ValueError, match="min_frequency must be at most 9,007,199,254,740,991"):
        TrainerConfig(min_frequency=2**64)
    with pytest.raises(ValueError, match="max_piece_length must be at most 65,535"):
        UnigramConfig(max_piece_length=2**64)
    with pytest.raises(ValueError, match="seed_size must be at most"):
        UnigramConfig(seed_size=2**64)


@pytest.mark.parametrize("value", ["1e-300", "0.001", "0.995", "1e309", "-0"])
def test_a_shrinking_factor_the_form_cannot_show_is_ignored_with_a_note(value):
    settings, notes = from_query_params({"algorithm": "unigram", "shrinking_factor": value})
    assert settings.shrinking_factor == defaults_for("unigram").shrinking_factor
    assert len(notes) == 1 and f"from {SHRINKING_FACTOR_RANGE[0]} to {SHRINKING_FACTOR_RANGE[1]}" in notes[0]


@pytest.mark.parametrize("value", HUGE[:2])
def test_a_huge_audit_step_is_the_last_step_with_a_note(value):
    choice, notes = choice_from_params({"audit_step": value}, 10, ["gpt2"])
    assert choice == AuditChoice() and len(notes) == 1 and "not a whole number from 0 to 10" in notes[0]


@pytest.mark.parametrize("text", ["9" * 5000, "[" + "9" * 5000 + "]", "1 " + "1" * 30])
def test_an_id_too_large_for_any_vocabulary_is_a_sentence_not_pythons_digit_limit(text):
    with pytest.raises(ValueError) as raised:
        parse_ids(text)
    assert "not a token id" in str(raised.value) and "set_int_max_str_digits" not in str(raised.value)
    assert len(str(raised.value)) < 120
