"""The encoding pipeline: special tokens -> normalizer -> pre-tokenizer -> model -> post-processor,
and back with a decoder.

Follows the Hugging Face `tokenizers` `Tokenizer` (0.23.3; Rust `tokenizer/mod.rs`,
`tokenizer/added_vocabulary.rs`, `processors/template.rs`, `decoders/*.rs`):

- Special tokens are cut out of the raw text first (leftmost, longest match, never normalized),
  then each stretch between them is normalized, pre-tokenized and encoded on its own.
- Offsets are character offsets into the text given to `encode`. Every normalized character,
  and every pre-token character (a byte-level symbol shares its character's), knows the span
  of the original text it comes from, like the library's `NormalizedString` alignments, so a
  token spans its first character's start to its last character's end.
- `TemplateProcessing` adds [CLS]/[SEP]-style tokens with offsets (0, 0); without a
  post-processor a pair is simply concatenated, its tokens with type id 1.
- Decoders `ByteLevelDecoder`, `WordPieceDecoder`, `BPEDecoder`, `MetaspaceDecoder` behave like
  the library's `ByteLevel`, `WordPiece`, `BPEDecoder` and `Metaspace`; with no decoder tokens are joined with spaces.

Does not do: truncation, padding, batches, non-special added tokens (lstrip, rstrip, single_word,
normalized matching), other post-processors or decoders. tokenizer.json lives in `hf_json`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from explorer.bytelevel import UNICODE_TO_BYTE
from explorer.models import BPEModel, WordPieceModel
from explorer.normalizers import Normalized
from explorer.pre_tokenizers import Metaspace
from explorer.tokens import Piece

Model = BPEModel | WordPieceModel  # or explorer.unigram_model.UnigramModel: same interface


@dataclass
class Encoding:
    """The result of `Tokenizer.encode`, field for field like the library's `Encoding`."""

    ids: list[int] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    offsets: list[tuple[int, int]] = field(default_factory=list)
    type_ids: list[int] = field(default_factory=list)
    special_tokens_mask: list[int] = field(default_factory=list)

    def append(
        self, token_id: int, token: str, offsets: tuple[int, int], type_id: int, special: bool
    ) -> None:
        self.ids.append(token_id)
        self.tokens.append(token)
        self.offsets.append(offsets)
        self.type_ids.append(type_id)
        self.special_tokens_mask.append(int(special))

    def extend(self, other: Encoding, type_id: int | None = None) -> None:
        """Append `other`'s tokens, optionally relabelling their type id."""
        self.ids += other.ids
        self.tokens += other.tokens
        self.offsets += other.offsets
        self.type_ids += other.type_ids if type_id is None else [type_id] * len(other.ids)
        self.special_tokens_mask += other.special_tokens_mask

    def __len__(self) -> int:
        return len(self.ids)


# ---------------------------------------------------------------- decoders


class ByteLevelDecoder:
    """Byte-level symbols back to text; invalid UTF-8 becomes U+FFFD (`from_utf8_lossy`).

    A token holding any character that is not a byte symbol (an added token such as "[CLS]",
    or a raw space) contributes its own UTF-8 bytes unchanged, as in the library.
    """

    def decode(self, tokens: list[str]) -> str:
        data = bytearray()
        for token in tokens:
            try:
                data += bytes(UNICODE_TO_BYTE[char] for char in token)
            except KeyError:
                data += token.encode("utf-8")
        return data.decode("utf-8", errors="replace")

    def to_hf_json(self) -> dict:
        # One struct serves as pre-tokenizer, decoder and post-processor in the library.
        return {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}


# What the library's WordPiece decoder undoes, token by token, when `cleanup` is on.
_CLEANUP_REPLACEMENTS = (
    (" .", "."),
    (" ?", "?"),
    (" !", "!"),
    (" ,", ","),
    (" ' ", "'"),
    (" n't", "n't"),
    (" 'm", "'m"),
    (" do not", " don't"),
    (" 's", "'s"),
    (" 've", "'ve"),
    (" 're", "'re"),
)


def cleanup_tokenization_spaces(text: str) -> str:
    for old, new in _CLEANUP_REPLACEMENTS:
        text = text.replace(old, new)
    return text


class WordPieceDecoder:
    """Glue `##`-continued pieces to their word, put a space before every other token.

    Cleanup runs on each token separately (as in the library), so " do not" spread over two
    tokens is left alone.
    """

    def __init__(self, prefix: str = "##", cleanup: bool = True):
        self.prefix = prefix
        self.cleanup = cleanup

    def decode(self, tokens: list[str]) -> str:
        pieces = []
        for position, token in enumerate(tokens):
            if position > 0:
                token = token[len(self.prefix) :] if token.startswith(self.prefix) else " " + token
            if self.cleanup:
                token = cleanup_tokenization_spaces(token)
            pieces.append(token)
        return "".join(pieces)

    def to_hf_json(self) -> dict:
        return {"type": "WordPiece", "prefix": self.prefix, "cleanup": self.cleanup}


class BPEDecoder:
    """Every end-of-word suffix becomes a space, except in the last token where it is dropped."""

    def __init__(self, suffix: str = "</w>"):
        self.suffix = suffix

    def decode(self, tokens: list[str]) -> str:
        last = len(tokens) - 1
        return "".join(token.replace(self.suffix, "" if i == last else " ") for i, token in enumerate(tokens))

    def to_hf_json(self) -> dict:
        return {"type": "BPEDecoder", "suffix": self.suffix}


class MetaspaceDecoder:
    """The library's Metaspace decoder: every replacement character becomes a space, except in
    the first token where they are all dropped (unless prepend_scheme is "never")."""

    def __init__(self, replacement: str = "▁", prepend_scheme: str = "always", split: bool = True):
        self.replacement = replacement
        self.prepend_scheme = prepend_scheme
        self.split = split  # not used to decode: carried for tokenizer.json

    def decode(self, tokens: list[str]) -> str:
        pieces = []
        for position, token in enumerate(tokens):
            drop = position == 0 and self.prepend_scheme != "never"
            pieces.append(token.replace(self.replacement, "" if drop else " "))
        return "".join(pieces)

    def to_hf_json(self) -> dict:
        # One struct serves as pre-tokenizer and decoder in the library.
        return Metaspace(self.replacement, self.prepend_scheme, self.split).to_hf_json()


Decoder = ByteLevelDecoder | WordPieceDecoder | BPEDecoder | MetaspaceDecoder


def _string_field(d: dict, key: str, default: str, where: str) -> str:
    value = d.get(key, default)
    if not isinstance(value, str):
        raise ValueError(f"{where}.{key} must be a string, got {value!r}")
    return value


def decoder_from_hf_json(d: object) -> Decoder | None:
    """The decoder of a tokenizer.json (its "decoder" value, possibly null)."""
    if d is None:
        return None
    if not isinstance(d, dict):
        raise ValueError("decoder must be an object or null")
    decoder_type = d.get("type")
    if decoder_type == "ByteLevel":
        return ByteLevelDecoder()
    if decoder_type == "WordPiece":
        cleanup = d.get("cleanup", True)
        if not isinstance(cleanup, bool):
            raise ValueError(f"decoder.cleanup must be true or false, got {cleanup!r}")
        return WordPieceDecoder(_string_field(d, "prefix", "##", "decoder"), cleanup)
    if decoder_type == "BPEDecoder":
        return BPEDecoder(_string_field(d, "suffix", "</w>", "decoder"))
    if decoder_type == "Metaspace":
        try:  # the same fields and checks as the pre-tokenizer
            settings = Metaspace.from_hf_json(d)
        except ValueError as error:
            raise ValueError(f"decoder: {error}") from None
        return MetaspaceDecoder(settings.replacement, settings.prepend_scheme, settings.split_at_replacement)
    raise ValueError(
        f"decoder.type {decoder_type!r} is not supported (ByteLevel, WordPiece, BPEDecoder, Metaspace)"
    )


# ---------------------------------------------------------------- post-processor


@dataclass(frozen=True)
class TemplatePiece:
    """One item of a template: a special token by name, or sequence "A" / "B"."""

    kind: str  # "special" or "sequence"
    name: str  # the special token's name, or "A" / "B"
    type_id: int

    def to_hf_json(self) -> dict:
        key = "SpecialToken" if self.kind == "special" else "Sequence"
        return {key: {"id": self.name, "type_id": self.type_id}}


def parse_template(template: str) -> list[TemplatePiece]:
    """'[CLS] $A [SEP] $B:1 [SEP]:1' -> pieces, with the library's rules (`$` = `$A`, `$1` = `$A:1`)."""
    pieces = []
    for item in template.split():
        name, colon, type_text = item.partition(":")
        if colon and (":" in type_text or not type_text.isdigit()):
            raise ValueError(f"cannot read template piece {item!r}")
        type_id = int(type_text) if colon else 0
        if name.startswith("$"):
            rest = name[1:]
            if rest in ("", "A", "a"):
                pieces.append(TemplatePiece("sequence", "A", type_id))
            elif rest in ("B", "b"):
                pieces.append(TemplatePiece("sequence", "B", type_id))
            elif rest.isdigit() and not colon:
                pieces.append(TemplatePiece("sequence", "A", int(rest)))
            else:
                raise ValueError(f"cannot read template piece {item!r}")
        else:
            pieces.append(TemplatePiece("special", name, type_id))
    return pieces


class TemplateProcessing:
    """Wrap encodings in special tokens following a template, e.g. '[CLS] $A [SEP]'.

    `special_tokens` maps each special token named in the templates to its ids and token
    strings (usually one of each); pass (name, id) pairs for the common single-id case.
    """

    def __init__(
        self,
        single: str | list[TemplatePiece],
        pair: str | list[TemplatePiece] | None,
        special_tokens: list[tuple[str, int]] | dict[str, tuple[list[int], list[str]]],
    ):
        self.single = parse_template(single) if isinstance(single, str) else list(single)
        if pair is None:
            pair = "$A $B:1"  # the library's default pair template
        self.pair = parse_template(pair) if isinstance(pair, str) else list(pair)
        if isinstance(special_tokens, dict):
            self.special_tokens = {
                name: (list(ids), list(tokens)) for name, (ids, tokens) in special_tokens.items()
            }
        else:
            self.special_tokens = {name: ([token_id], [name]) for name, token_id in special_tokens}
        self._validate()

    def _validate(self) -> None:
        for label, template, expected in (("single", self.single, ["A"]), ("pair", self.pair, ["A", "B"])):
            sequences = sorted(piece.name for piece in template if piece.kind == "sequence")
            if sequences != expected:
                wanted = " and ".join(f"${name}" for name in expected)
                raise ValueError(f"the {label} template must hold {wanted} exactly once")
        for piece in self.single + self.pair:
            if piece.kind == "special" and piece.name not in self.special_tokens:
                raise ValueError(
                    f"template uses {piece.name!r} but it is not among the template's special tokens"
                )
        for name, (ids, tokens) in self.special_tokens.items():
            if len(ids) != len(tokens):
                raise ValueError(f"special token {name!r}: ids and tokens differ in length")

    def process(
        self, first: Encoding, second: Encoding | None = None, add_special_tokens: bool = True
    ) -> Encoding:
        """Without special tokens the template still sets the sequences' type ids (library)."""
        template = self.single if second is None else self.pair
        result = Encoding()
        for piece in template:
            if piece.kind == "sequence":
                result.extend(first if piece.name == "A" else second, type_id=piece.type_id)
            elif add_special_tokens:
                ids, tokens = self.special_tokens[piece.name]
                for token_id, token in zip(ids, tokens):
                    result.append(token_id, token, (0, 0), piece.type_id, special=True)
        return result

    def to_hf_json(self) -> dict:
        return {
            "type": "TemplateProcessing",
            "single": [piece.to_hf_json() for piece in self.single],
            "pair": [piece.to_hf_json() for piece in self.pair],
            "special_tokens": {
                name: {"id": name, "ids": ids, "tokens": tokens}
                for name, (ids, tokens) in sorted(self.special_tokens.items())
            },
        }

    @classmethod
    def from_hf_json(cls, d: dict) -> TemplateProcessing:
        where = "post_processor"
        templates = []
        for key in ("single", "pair"):
            raw = d.get(key)
            if isinstance(raw, str):
                templates.append(raw)
                continue
            if not isinstance(raw, list):
                raise ValueError(f"{where}.{key} must be a list of template pieces")
            pieces = []
            for item in raw:
                try:
                    ((kind, body),) = item.items()
                    name, type_id = body["id"], body["type_id"]
                except (AttributeError, ValueError, KeyError, TypeError):
                    raise ValueError(f"{where}.{key}: cannot read template piece {item!r}") from None
                if kind == "Sequence" and name in ("A", "B") and isinstance(type_id, int):
                    pieces.append(TemplatePiece("sequence", name, type_id))
                elif kind == "SpecialToken" and isinstance(name, str) and isinstance(type_id, int):
                    pieces.append(TemplatePiece("special", name, type_id))
                else:
                    raise ValueError(f"{where}.{key}: cannot read template piece {item!r}")
            templates.append(pieces)
        raw_specials = d.get("special_tokens", {})
        if not isinstance(raw_specials, dict):
            raise ValueError(f"{where}.special_tokens must be an object")
        special_tokens = {}
        for name, body in raw_specials.items():
            ids = body.get("ids") if isinstance(body, dict) else None
            tokens = body.get("tokens") if isinstance(body, dict) else None
            if not (
                isinstance(ids, list)
                and all(isinstance(i, int) for i in ids)
                and isinstance(tokens, list)
                and all(isinstance(t, str) for t in tokens)
            ):
                raise ValueError(
                    f"{where}.special_tokens[{name!r}] must have a list of ids and a list of tokens"
                )
            special_tokens[name] = (ids, tokens)
        try:
            return cls(templates[0], templates[1], special_tokens)
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None


def post_processor_from_hf_json(d: object) -> TemplateProcessing | None:
    if d is None:
        return None
    if not isinstance(d, dict):
        raise ValueError("post_processor must be an object or null")
    if d.get("type") != "TemplateProcessing":
        raise ValueError(f"post_processor.type {d.get('type')!r} is not supported (TemplateProcessing)")
    return TemplateProcessing.from_hf_json(d)


# ---------------------------------------------------------------- the tokenizer


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
        special_tokens: list[str] = (),
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
        encoding, dropped = Encoding(), []
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
