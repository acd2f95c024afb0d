"""Small helpers for the sentences the app writes: counts with the right noun form, durations, a
text's size as people count it (user-perceived characters: extended grapheme clusters, regex `\\X`,
so 👍🏽 or 🇫🇷 is one character, as is e + U+0301); and the names and one-line definitions of the
figures explorer.measures.metrics computes.

What it does not do: translate, or format other numbers.
"""

from __future__ import annotations

import regex

# Nouns whose plural is not noun + "s".
_IRREGULAR = {"entry": "entries"}


def plural(count: int, noun: str, plural_form: str | None = None) -> str:
    """'1 merge', '2 merges', '1,000 distinct words'.

    >>> plural(1, "merge"), plural(2, "merge"), plural(1000, "distinct word"), plural(0, "entry")
    ('1 merge', '2 merges', '1,000 distinct words', '0 entries')
    """
    return f"{count:,} {noun_for(count, noun, plural_form)}"


def noun_for(count: int, noun: str, plural_form: str | None = None) -> str:
    """The noun alone, singular for exactly one (the last word is the one that changes)."""
    if count == 1:
        return noun
    if plural_form is not None:
        return plural_form
    head, _, last = noun.rpartition(" ")
    last = _IRREGULAR.get(last, last + ("es" if last.endswith(("s", "x", "ch", "sh")) else "s"))
    return f"{head} {last}" if head else last


# One user-perceived character that is not a line break ("\r\n" is one cluster).
_CHARACTER = regex.compile(r"(?![\n\r\v\f\x1c-\x1e\x85\u2028\u2029])\X")
_LINE_BREAK = regex.compile(r"[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")
# The code points that can share a cluster with a neighbour (UAX 29's rules but CR LF): a text
# without any is one cluster per code point (most CJK, Cyrillic, Greek, precomposed Latin text).
_JOINS = regex.compile(
    r"[\p{GCB=Extend}\p{GCB=ZWJ}\p{GCB=SpacingMark}\p{GCB=Prepend}\p{GCB=Regional_Indicator}"
    r"\p{GCB=L}\p{GCB=V}\p{GCB=T}]"
)


def character_count(text: str) -> int:
    """The user-perceived characters of `text` (grapheme clusters), line breaks not counted: what
    the page calls "characters" (a line break ends a sentence; the sentences hold none).

    >>> character_count("🙂👍🏽"), character_count("e\\u0301\\n🇫🇷\\r\\n"), character_count("a b\\r\\n")
    (2, 2, 3)
    """
    if text.isascii():  # one character per code point, line breaks ("\\r\\n" too) none
        return len(text) - sum(text.count(end) for end in "\n\r\v\f\x1c\x1d\x1e")
    if _JOINS.search(text) is None:  # every cluster is one code point: no need to find them
        return len(text) - len(_LINE_BREAK.findall(text))
    return len(_CHARACTER.findall(text))


def either(items: list[str]) -> str:
    """'a', 'a or b', 'a, b or c': one of several things, for a sentence.

    >>> either(["東"]), either(["東", "京"]), either(["a", "b", "c"])
    ('東', '東 or 京', 'a, b or c')
    """
    return items[-1] if len(items) < 2 else f"{', '.join(items[:-1])} or {items[-1]}"


def format_seconds(seconds: float) -> str:
    """'1.25 s', or '8 ms' below a tenth of a second ('0.00 s' would say nothing).

    >>> format_seconds(1.2549), format_seconds(0.0081), format_seconds(0.0)
    ('1.25 s', '8 ms', '0 ms')
    """
    return f"{seconds:.2f} s" if seconds >= 0.1 else f"{seconds * 1000:.0f} ms"


# The figures of explorer.measures.metrics (field -> the name every page uses).
METRIC_COLUMNS = {
    "tokens": "tokens",
    "chars_per_token": "characters / token",
    "bytes_per_token": "bytes / token",
    "fertility": "tokens per word",
    "split_word_share": "words split",
    "unknown_rate": "unknown tokens",
    "lost_characters": "characters lost",
}
# One line per figure, shown wherever the figure is (table headers, chart captions).
METRIC_DEFINITIONS = {
    "tokens": "how many tokens the texts become",
    "characters / token": "user-perceived characters of the texts (👍🏽 one, line breaks none) ÷ tokens",
    "bytes / token": "UTF-8 bytes of the texts ÷ tokens",
    "tokens per word": "tokens ÷ words, a word being a run of non-white-space characters",
    "words split": "share of the words that two or more tokens cover",
    "unknown tokens": "share of the tokens that are the unknown token",
    "characters lost": "characters no token spells out: under an unknown token, or dropped",
}


# The history page's one name for each kind of run (`TrainingHistory.step_noun`): its title and
# the sidebar's link to it say the same.
HISTORY_PAGE_NAMES = {"merge": "Merge history", "round": "Training history"}


def history_page_name(step_noun: str | None) -> str:
    """What the history page is called for a run whose steps are `step_noun`s ("Merge history"
    before any run).

    >>> history_page_name(None), history_page_name("round")
    ('Merge history', 'Training history')
    """
    return HISTORY_PAGE_NAMES["merge" if step_noun is None else step_noun]
