"""BertNormalizer: BERT's text cleanup, exactly as the `tokenizers` library does it.

Follows tokenizers/src/normalizers/bert.rs (0.23.3), in its order:
1. clean_text drops NUL, U+FFFD and Cc/Cf/Co characters except tab, newline and carriage
   return, then maps white space (Rust's char::is_whitespace) to ' ';
2. handle_chinese_chars surrounds every CJK ideograph with spaces (the library's
   `is_chinese_char` blocks);
3. strip_accents (None means "same as lowercase") does NFD, then drops non-spacing marks (Mn);
4. lowercase, as the Lowercase normalizer.
Its control and non-spacing-mark tests use Unicode 8.0 categories (character_classes.py).

What it does not do: BERT's tokenization itself (BertPreTokenizer and WordPiece do that).
"""

from __future__ import annotations

from explorer.pipeline.normalizers.base import Normalizer
from explorer.pipeline.normalizers.character_classes import (
    CJK_REGEX,
    WHITE_SPACE_REGEX,
    bert_removed_regex,
    unicode_8_nonspacing_marks_regex,
)
from explorer.pipeline.normalizers.lowercase import lowercase_aligned, lowercase_str
from explorer.pipeline.normalizers.normalized import Change, Normalized, apply_changes, remove_chars
from explorer.pipeline.normalizers.unicode import NFD


class BertNormalizer(Normalizer):
    """BERT's text cleanup, in the library's order: clean text, space out CJK ideographs, strip
    accents (NFD then drop Mn), lowercase. `strip_accents=None` follows `lowercase`."""

    hf_type = "BertNormalizer"
    hf_fields = ("clean_text", "handle_chinese_chars", "strip_accents", "lowercase")

    def __init__(
        self,
        clean_text: bool = True,
        handle_chinese_chars: bool = True,
        strip_accents: bool | None = None,
        lowercase: bool = True,
    ) -> None:
        self.clean_text = clean_text
        self.handle_chinese_chars = handle_chinese_chars
        self.strip_accents = strip_accents
        self.lowercase = lowercase

    @property
    def strips_accents(self) -> bool:
        return self.lowercase if self.strip_accents is None else self.strip_accents

    def transform(self, normalized: Normalized) -> Normalized:
        if self.clean_text:
            normalized = remove_chars(normalized, bert_removed_regex())
            # One character for one: alignments are unchanged.
            normalized = Normalized(WHITE_SPACE_REGEX.sub(" ", normalized.text), normalized.alignments)
        if self.handle_chinese_chars and CJK_REGEX.search(normalized.text):
            changes: list[Change] = []
            for char in normalized.text:
                if CJK_REGEX.match(char):
                    changes += [(" ", 0), (char, 1), (" ", 1)]
                else:
                    changes.append((char, 0))
            normalized = apply_changes(normalized, changes)
        if self.strips_accents and not normalized.text.isascii():
            normalized = NFD().transform(normalized)
            normalized = remove_chars(normalized, unicode_8_nonspacing_marks_regex())
        if self.lowercase:
            normalized = lowercase_aligned(normalized)
        return normalized

    def normalize_str(self, text: str) -> str:
        if self.clean_text:
            text = WHITE_SPACE_REGEX.sub(" ", bert_removed_regex().sub("", text))
        if self.handle_chinese_chars:
            text = CJK_REGEX.sub(r" \g<0> ", text)
        if self.strips_accents and not text.isascii():
            text = unicode_8_nonspacing_marks_regex().sub("", NFD().normalize_str(text))
        if self.lowercase:
            text = lowercase_str(text)
        return text
