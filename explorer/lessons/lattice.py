"""The lattice lesson of one word after round r of a Unigram run: which word is shown for what was
typed (`lattice_word`), its lattice or why there is none (`word_lattice`), and the sentence that
adds the best path up (for a course run, also the course's encode_word score), in plain text.

The lattice itself is UnigramModel.lattice's (through RoundHistory.lattice: the course's rules
for a course run); this module only picks the word and words it.

What it does not do: import streamlit, search (explorer.pipeline.models.unigram), draw the lattice
as HTML (explorer.views.lattice_table), or show the Viterbi table.
"""

from __future__ import annotations

from explorer.drawing.wording import either
from explorer.lessons.rounds import readable
from explorer.pipeline.models.unigram import Lattice
from explorer.pipeline.tokenizer import Tokenizer
from explorer.training.unigram.round_history import RoundHistory

LATTICE_MAX_CHARACTERS = 40  # the longest word drawn (its edges grow with length x longest piece)


def best_path_sentence(trace: RoundHistory, lattice: Lattice) -> str:
    """The best path and its total score (plain text); for a course run also encode_word's score."""
    if not lattice.best_path:
        return "An empty word has no piece."
    terms = " + ".join(f"{readable(trace, edge.piece)} ({edge.score:.3f})" for edge in lattice.best_path)
    if trace.flavor == "course":
        total = sum(edge.score for edge in lattice.best_path)
        return (
            f"Best path: {terms} = {total:.4f}; the course's encode_word score is "
            f"1 + {-total:.4f} = {-lattice.best_score:.4f} (1 + the sum of -log p)."
        )
    return f"Best path: {terms} = {lattice.best_score:.4f}, the highest total log-probability."


def lattice_word(trace: RoundHistory, tokenizer: Tokenizer, text: str) -> tuple[str, str | None]:
    """The word the lattice view draws for what was typed: its first pre-token (as the model sees
    it: "▁hugs" for "hugs" with metaspace), at most LATTICE_MAX_CHARACTERS long; and a note
    (plain text) when something was left out, or when there is nothing to draw."""
    pre_tokens = [piece.text for piece in tokenizer.pre_tokenize(text)] if text.strip() else []
    if not pre_tokens:
        return "", "Type a word to see its lattice."
    word, notes = pre_tokens[0], []
    if len(pre_tokens) > 1:
        notes.append(
            f"The lattice is that of one pre-token: the first of {len(pre_tokens)}, {readable(trace, word)}."
        )
    if len(word) > LATTICE_MAX_CHARACTERS:
        word = word[:LATTICE_MAX_CHARACTERS]
        notes.append(f"Only its first {LATTICE_MAX_CHARACTERS} characters are drawn.")
    return word, " ".join(notes) or None


def word_lattice(trace: RoundHistory, word: str, r: int) -> tuple[Lattice | None, str | None]:
    """The lattice of `word` after round r, or None and why (plain text) when the model cannot
    segment it: a course model has no unknown piece (its encode_word gives "<unk>")."""
    try:
        return trace.lattice(word, r), None
    except ValueError:
        missing = either([readable(trace, char) for char in trace.model_at(r).missing_characters(word)])
        return None, (
            f"After round {r} the vocabulary has no piece for {missing} and no unknown piece, "
            'so this word cannot be segmented (the course\'s encode_word gives "<unk>").'
        )
