"""The course in one click: the three "Reproduce the course" lessons (chapter 6 of the Hugging Face
course: BPE, WordPiece, Unigram), each the course's corpus and settings, and what the course prints
for it, compared with what our run gives.

A lesson's settings are written in their URL form (what `?algorithm=...&flavor=...` would say),
so a lesson link and the settings link it becomes train the same run. The printed results are
quoted from the course, each with the place it is quoted from; `compare` recomputes ours from a
run at run time, entry by entry, so a "matches the course" check is only ever the result of that
comparison.

What it does not do: train (the Streamlit layer does: explorer.ui.train.lesson_buttons), or quote anything the
course does not print (the course's Unigram prints no final vocabulary, so only its tokenization is
compared).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

LESSON_SAMPLE = "hf-course"  # the course's four sentences (explorer.samples.HF_COURSE)


@dataclass(frozen=True)
class Printout:
    """One thing the course prints: `code` is the line that prints it, `kind` says which of our
    results it is compared with ("merges": the merge pairs in order, "vocab": the vocabulary in id
    order, "tokens": the tokens of `text`), `printed` is what the course shows."""

    code: str
    kind: str
    printed: tuple
    text: str = ""


@dataclass(frozen=True)
class Lesson:
    key: str  # the URL's `lesson=`
    label: str  # BPE, WordPiece, Unigram
    section: str  # where in the course
    params: dict[str, str]  # the settings in their URL form (explorer.runs.settings.from_query_params)
    printouts: tuple[Printout, ...]
    source: str  # where the printed results are quoted from


@dataclass(frozen=True)
class Comparison:
    """A printout beside our result; `matches` only when every entry is equal."""

    printout: Printout
    ours: tuple

    @property
    def matches(self) -> bool:
        return tuple(self.ours) == tuple(self.printout.printed)

    def first_difference(self) -> int | None:
        """The index of the first entry that differs (the shorter length when one is a prefix)."""
        if self.matches:
            return None
        for index, (ours, printed) in enumerate(zip(self.ours, self.printout.printed)):
            if ours != printed:
                return index
        return min(len(self.ours), len(self.printout.printed))


# Printed by the course, chapter 6 section 5 ("Byte-Pair Encoding tokenization": `print(merges)`
# and `tokenize("This is not a token.")`), as tests/parity/test_encode_steps.py quotes them.
COURSE_BPE_MERGES = (
    ("Ġ", "t"),
    ("i", "s"),
    ("e", "r"),
    ("Ġ", "a"),
    ("Ġt", "o"),
    ("e", "n"),
    ("T", "h"),
    ("Th", "is"),
    ("o", "u"),
    ("s", "e"),
    ("Ġto", "k"),
    ("Ġtok", "en"),
    ("n", "d"),
    ("Ġ", "is"),
    ("Ġt", "h"),
    ("Ġth", "e"),
    ("i", "n"),
    ("Ġa", "b"),
    ("Ġtoken", "i"),
)
COURSE_BPE_TOKENIZE = ("This", "Ġis", "Ġ", "n", "o", "t", "Ġa", "Ġtoken", ".")

# Printed by the course, chapter 6 section 6 ("WordPiece tokenization"): the seed
# shared/seeds/hf-course-wordpiece.txt, its `print(vocab)` after the loop to vocab_size = 70 and
# its encode_word / tokenize lines.
COURSE_WORDPIECE_VOCAB = (
    *("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"),
    *("##a", "##b", "##c", "##d", "##e", "##f", "##g", "##h", "##i", "##k", "##l", "##m", "##n"),
    *("##o", "##p", "##r", "##s", "##t", "##u", "##v", "##w", "##y", "##z"),
    *(",", ".", "C", "F", "H", "T", "a", "b", "c", "g", "h", "i", "s", "t", "u", "w", "y"),
    *("ab", "##fu", "Fa", "Fac", "##ct", "##ful", "##full", "##fully", "Th", "ch", "##hm", "cha"),
    *("chap", "chapt", "##thm", "Hu", "Hug", "Hugg", "sh", "th", "is", "##thms", "##za", "##zat", "##ut"),
)
COURSE_WORDPIECE_TOKENIZE = (
    *("Th", "##i", "##s", "is", "th", "##e", "Hugg", "##i", "##n", "##g", "Fac", "##e"),
    *("c", "##o", "##u", "##r", "##s", "##e", "[UNK]"),
)

# Printed by the course, chapter 6 section 7 ("Unigram tokenization": `tokenize(sentence, model)`
# after the loop to 100 pieces), as tests/parity/test_unigram_course.py quotes it.
COURSE_UNIGRAM_TOKENIZE = ("▁This", "▁is", "▁the", "▁Hugging", "▁Face", "▁", "c", "ou", "r", "s", "e", ".")

LESSONS: dict[str, Lesson] = {
    lesson.key: lesson
    for lesson in (
        Lesson(
            key="course-bpe",
            label="BPE",
            section="chapter 6, section 5",
            params={"algorithm": "bpe", "flavor": "course", "vocab_size": "50"},
            printouts=(
                Printout("print(merges)", "merges", COURSE_BPE_MERGES),
                Printout(
                    'tokenize("This is not a token.")', "tokens", COURSE_BPE_TOKENIZE, "This is not a token."
                ),
            ),
            source="the course's chapter 6, section 5 (huggingface/course chapters/en/chapter6/5.mdx)",
        ),
        Lesson(
            key="course-wordpiece",
            label="WordPiece",
            section="chapter 6, section 6",
            params={"algorithm": "wordpiece", "flavor": "course", "vocab_size": "70"},
            printouts=(
                Printout("print(vocab)", "vocab", COURSE_WORDPIECE_VOCAB),
                Printout('encode_word("Hugging")', "tokens", ("Hugg", "##i", "##n", "##g"), "Hugging"),
                Printout('encode_word("HOgging")', "tokens", ("[UNK]",), "HOgging"),
                Printout(
                    'tokenize("This is the Hugging Face course!")',
                    "tokens",
                    COURSE_WORDPIECE_TOKENIZE,
                    "This is the Hugging Face course!",
                ),
            ),
            source="the seed shared/seeds/hf-course-wordpiece.txt (the course's chapter 6, section 6)",
        ),
        Lesson(
            key="course-unigram",
            label="Unigram",
            section="chapter 6, section 7",
            params={"algorithm": "unigram", "flavor": "course", "vocab_size": "100"},
            printouts=(
                Printout(
                    'tokenize("This is the Hugging Face course.", model)',
                    "tokens",
                    COURSE_UNIGRAM_TOKENIZE,
                    "This is the Hugging Face course.",
                ),
            ),
            source="the course's chapter 6, section 7 (huggingface/course chapters/en/chapter6/7.mdx)",
        ),
    )
}


def lesson_by_key(key: str | None) -> Lesson | None:
    return LESSONS.get(key) if key else None


def compare(
    lesson: Lesson,
    merges: Sequence[tuple[str, str]] | None,
    vocab: Sequence[str],
    tokenize: Callable[[str], Sequence[str]],
) -> list[Comparison]:
    """Each printout of `lesson` beside our result: `merges` (the run's merge pairs as stored, None
    for Unigram), `vocab` (its tokens in id order), `tokenize(text)` (the trained tokenizer's tokens,
    no special tokens added).

    >>> lesson = LESSONS["course-wordpiece"]
    >>> [c.matches for c in compare(lesson, [], ["[PAD]"], lambda text: ["[UNK]"])]
    [False, False, True, False]
    """
    results = {
        "merges": lambda _: tuple(tuple(pair) for pair in merges or ()),
        "vocab": lambda _: tuple(vocab),
    }
    return [
        Comparison(printout, results.get(printout.kind, lambda text: tuple(tokenize(text)))(printout.text))
        for printout in lesson.printouts
    ]
