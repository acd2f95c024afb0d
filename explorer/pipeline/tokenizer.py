"""The encoding pipeline: special tokens -> normalizer -> pre-tokenizer -> model -> post-processor,
and back with a decoder.

Follows the Hugging Face `tokenizers` `Tokenizer` (0.23.3; Rust `tokenizer/mod.rs`,
`tokenizer/added_vocabulary.rs`):

- Special tokens are cut out of the raw text first (leftmost, longest match, never normalized),
  then each stretch between them is normalized, pre-tokenized and encoded on its own.
- Offsets are character offsets into the text given to `encode`. Every normalized character,
  and every pre-token character (a byte-level symbol shares its character's), knows the span
  of the original text it comes from, like the library's `NormalizedString` alignments, so a
  token spans its first character's start to its last character's end.
- The post-processor (`processors.TemplateProcessing`) adds [CLS]/[SEP]-style tokens; without
  one a pair is simply concatenated, its tokens with type id 1.
- The decoder (explorer/pipeline/decoders.py) turns tokens back into text; with no decoder tokens are
  joined with spaces.

What it does not do: truncation, padding, batches, non-special added tokens (lstrip, rstrip,
single_word, normalized matching). The components live in their stage's module (normalizers/,
pre_tokenizers/, models/, processors.py, decoders.py), tokenizer.json in `tokenizer_json`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from explorer.pipeline.bytelevel import UNICODE_TO_BYTE
from explorer.pipeline.decoders import ByteLevelDecoder, Decoder
from explorer.pipeline.encoding import Encoding
from explorer.pipeline.models import BPEModel, UnigramModel, WordPieceModel
from explorer.pipeline.normalizers import Normalized
from explorer.pipeline.processors import TemplateProcessing
from explorer.tokens import Piece

Model = BPEModel | WordPieceModel | UnigramModel  # one interface: tokenize, token_to_id, to_hf_json


def _special_token_pattern(special_tokens: list[str]) -> re.Pattern | None:
    """Leftmost-longest matching, as the library's Aho-Corasick `LeftmostLongest`: at the
    leftmost position, alternatives sorted longest first make the longest one win."""
    if not special_tokens:
        return None
    by_length = sorted(special_tokens, key=len, reverse=True)
    return re.compile("|".join(re.escape(token) for token in by_length))


def _model_size(model) -> int:
    """The library's `Model::get_vocab_size`: a Unigram model counts every piece it lists, a piece
    listed twice included (its vocab maps the piece to one id)."""
    pieces = getattr(model, "pieces", None)
    return len(pieces) if pieces is not None else len(model.vocab)


class Tokenizer:
    """A full pipeline: normalizer, pre-tokenizer, model, special tokens, post-processor, decoder.

    `normalizer` and `pre_tokenizer` may be None (text unchanged; the whole text is one
    pre-token). `special_tokens` get the model's id when the model knows them, else new ids
    after the vocab, exactly as the library's `add_special_tokens` assigns them.
    """

    def __init__(
        self,
        normalizer,
        pre_tokenizer,
        model: Model,
        special_tokens: Sequence[str] = (),
        post_processor: TemplateProcessing | None = None,
        decoder: Decoder | None = None,
    ):
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer
        self.model = model
        self.post_processor = post_processor
        self.decoder = decoder
        self.special_token_ids: dict[str, int] = {}
        for token in special_tokens:
            if token and token not in self.special_token_ids:
                self.special_token_ids[token] = self._new_special_token_id(token)
        self._special_by_id = {token_id: token for token, token_id in self.special_token_ids.items()}
        self._special_pattern = _special_token_pattern(list(self.special_token_ids))

    def _new_special_token_id(self, token: str) -> int:
        """`AddedVocabulary::add_tokens`: the model's id if it has the token, else the next id."""
        model_id = self.model.token_to_id(token)
        if model_id is not None:
            return model_id
        vocab_size = _model_size(self.model)
        if not self.special_token_ids:
            return vocab_size
        highest = max(self.special_token_ids.values())
        return highest + 1 if highest >= vocab_size or vocab_size == 0 else vocab_size

    @property
    def special_tokens(self) -> list[str]:
        return list(self.special_token_ids)

    def token_to_id(self, token: str) -> int | None:
        special_id = self.special_token_ids.get(token)
        return special_id if special_id is not None else self.model.token_to_id(token)

    def id_to_token(self, token_id: int) -> str | None:
        special = self._special_by_id.get(token_id)
        return special if special is not None else self.model.id_to_token(token_id)

    def vocab_size(self) -> int:
        """Model vocab plus the special tokens it does not hold (`get_vocab_size(True)`)."""
        return _model_size(self.model) + len(self.special_token_ids.keys() - self.model.vocab.keys())

    def may_drop_characters(self) -> bool:
        """Whether some text could lose characters silently: a BPE model without an unk token drops
        every character it has no symbol for, unless it is byte-level with a symbol for each of
        the 256 bytes (and no prefix or suffix to decorate them)."""
        model = self.model
        if not isinstance(model, BPEModel) or model.unk_token is not None:
            return False
        plain_symbols = not model.continuing_subword_prefix and not model.end_of_word_suffix
        every_byte = isinstance(self.decoder, ByteLevelDecoder) and all(
            symbol in model.vocab for symbol in UNICODE_TO_BYTE
        )
        return not (plain_symbols and every_byte)

    # -- encoding

    def encode(self, text: str, pair: str | None = None, add_special_tokens: bool = True) -> Encoding:
        """`add_special_tokens=False` leaves out what the post-processor adds ([CLS], [SEP]);
        special tokens written in the text are still recognized, as in the library."""
        first = self._encode_sequence(text, type_id=0)
        second = None if pair is None else self._encode_sequence(pair, type_id=1)
        if self.post_processor is not None:
            return self.post_processor.process(first, second, add_special_tokens)
        if second is not None:
            first.extend(second)
        return first

    def split_special_tokens(self, text: str) -> list[tuple[str, int, int, bool]]:
        """(text, start, end, is_special) stretches covering `text`, special tokens cut out."""
        if self._special_pattern is None:
            return [(text, 0, len(text), False)] if text else []
        parts = []
        position = 0
        for match in self._special_pattern.finditer(text):
            if match.start() > position:
                parts.append((text[position : match.start()], position, match.start(), False))
            parts.append((match.group(), match.start(), match.end(), True))
            position = match.end()
        if position < len(text):
            parts.append((text[position:], position, len(text), False))
        return parts

    def _encode_sequence(self, text: str, type_id: int) -> Encoding:
        encoding = Encoding()
        for part, part_start, part_end, is_special in self.split_special_tokens(text):
            if is_special:
                encoding.append(
                    self.special_token_ids[part], part, (part_start, part_end), type_id, special=False
                )
                continue
            for token, (start, end) in self._encode_plain(part, first_part=part_start == 0):
                encoding.append(
                    token.id, token.value, (part_start + start, part_start + end), type_id, special=False
                )
        return encoding

    def _encode_plain(self, text: str, first_part: bool = True) -> list[tuple[Piece, tuple[int, int]]]:
        """Model tokens of text without special tokens, with offsets into `text`.

        `first_part`: `text` begins the encoded text (false after a special token; the
        library's Metaspace with prepend_scheme "first" reads it).

        Every stage keeps, for each character it outputs, the span of `text` it comes from
        (byte-level symbols share their character's span), so a token's offsets are its first
        character's start and its last character's end, as in the library.
        """
        return [
            (token, piece.original_span(token.start, token.end))
            for piece in self.pre_tokenize(text, first_part)
            for token in self.model.tokenize(piece.text)
        ]

    def pre_tokenize(self, text: str, first_part: bool = True) -> list[Normalized]:
        """The pre-tokens the model sees in `text` (no special tokens in it), each knowing the
        span of `text` every one of its characters comes from. `first_part`: see `_encode_plain`."""
        normalized = (
            Normalized.unchanged(text) if self.normalizer is None else self.normalizer.normalize(text)
        )
        if self.pre_tokenizer is not None:
            return self.pre_tokenizer.split(normalized, first_part)
        return [normalized] if normalized.text else []

    def encode_exactly(self, text: str) -> tuple[Encoding, list[tuple[int, int]]]:
        """`encode` without the post-processor, with offsets that count every character, and the
        spans of `text` whose characters the model drops (a BPE model without an unk token drops
        a character it has no symbol for; the library's offsets then shift, see
        `BPEModel.tokenize_exactly`). For drawing tokens over their text; parity uses `encode`."""
        encoding = Encoding()
        dropped: list[tuple[int, int]] = []
        for part, part_start, part_end, is_special in self.split_special_tokens(text):
            if is_special:
                encoding.append(self.special_token_ids[part], part, (part_start, part_end), 0, special=True)
                continue
            for piece in self.pre_tokenize(part, first_part=part_start == 0):
                tokens, dropped_positions = self.model.tokenize_exactly(piece.text)
                for token in tokens:
                    start, end = piece.original_span(token.start, token.end)
                    encoding.append(
                        token.id, token.value, (part_start + start, part_start + end), 0, special=False
                    )
                for position in dropped_positions:
                    start, end = piece.original_span(position, position + 1)
                    span = (part_start + start, part_start + end)
                    if not dropped or dropped[-1] != span:  # the bytes of one character drop together
                        dropped.append(span)
        return encoding, dropped

    # -- decoding

    def decode(self, ids: list[int], skip_special_tokens: bool = True) -> str:
        """Ids back to text; unknown ids are skipped, like the library."""
        tokens = []
        for token_id in ids:
            token = self.id_to_token(token_id)
            if token is None:
                continue
            if skip_special_tokens and token in self.special_token_ids:
                continue
            tokens.append(token)
        if self.decoder is None:
            return " ".join(tokens)
        return self.decoder.decode(tokens)
