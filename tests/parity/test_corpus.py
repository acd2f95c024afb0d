"""Word counting: the whole-text fast paths, on both engines (tests/helpers/engines.py `count`), equal
the library's pre-tokenizers line by line."""

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import pre_tokenizers

from explorer.training.word_counts import split_lines
from tests.helpers.engines import count

LIBRARY = {
    "byte-level": pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
    "bert": pre_tokenizers.BertPreTokenizer(),
    "whitespace": pre_tokenizers.Whitespace(),
    "whitespace-split": pre_tokenizers.WhitespaceSplit(),
}

texts = st.one_of(
    st.text(st.sampled_from(list("ab cd\n\t\r'sS,.!?1é😀中\u00a0\u2028\x0b\x85")), max_size=80),
    st.text(st.characters(exclude_categories=("Cs",)), max_size=60),
)


def count_words(text, normalizers, pre_tokenizer) -> dict[str, int]:
    return count(text, normalizers, pre_tokenizer)[0]


def line_by_line(text, pre_tokenizer):
    counts = Counter()
    for line in split_lines(text):
        counts.update(piece for piece, _ in LIBRARY[pre_tokenizer].pre_tokenize_str(line))
    return counts


@settings(max_examples=300, deadline=None)
@given(texts, st.sampled_from(sorted(LIBRARY)))
def test_whole_text_counting_equals_the_library_line_by_line(text, pre_tokenizer):
    assert Counter(count_words(text, (), pre_tokenizer)) == line_by_line(text, pre_tokenizer)


def test_letters_newer_than_the_librarys_unicode_are_not_letters():
    text = ":\U000323b0 a\U00010940b"  # Unicode 17 letters: "other" for the library's regex
    assert Counter(count_words(text, (), "byte-level")) == line_by_line(text, "byte-level")


def test_ascii_fast_path_agrees_with_unicode_path():
    text = "Hello, world! It's 3.14 $100...\n  trailing  \nx\ty\r\n\x0bz"
    assert text.isascii()
    assert Counter(count_words(text, (), "byte-level")) == line_by_line(text, "byte-level")


def test_words_come_in_order_of_first_appearance():
    assert list(count_words("b a b\nc a", (), "whitespace-split")) == ["b", "a", "c"]


def test_normalizers_apply_per_line():
    assert count_words("Café CAFÉ", ("nfd", "lowercase", "strip-accents"), "whitespace") == {"cafe": 2}
