"""SentencePiece `.model` files (Llama 2, Mistral v1-v3, T5, Gemma), encoded by the pinned
`sentencepiece` package: Unigram and BPE models alike.

`SentencePieceTokenizer.from_bytes(data)` reads a model (ValueError with a sentence for anything
that is not one); `encode(text, special_tokens)` gives `Piece`s whose `token_bytes` are the
piece as the vocabulary spells it, `▁` marking a space, except byte-fallback pieces (`<0xE2>`),
which carry their one byte so the display groups them into their character like any other
byte-level tokens; the unknown piece is flagged `unknown`. Spans come from sentencepiece's own
offset mapping; the byte pieces of one character, which sentencepiece gives empty spans but the
last, all get that character's span.

Special tokens: the model's control pieces (`<s>`, `</s>`, Mistral's `[INST]`...) and its unknown
piece. sentencepiece never matches them in text; with the switch on they are cut out of the text
first and each becomes its id, the stretches between them encoded apart (each gets the dummy
prefix `▁`, as mistral-common encodes the text between `[INST]` and `[/INST]`).

`model_facts` reads the model's type, byte fallback and normalizer from its protobuf with a small
reader (`protobuf_fields`), without the protobuf package.

What it does not do: add BOS/EOS, sample (subword regularization), or train.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from explorer.pretrained.decoding import DecodedToken, Decoding, out_of_range
from explorer.pretrained.pieces import replace_surrogates, special_token_pattern, split_at_special_tokens
from explorer.tokens import SPECIAL, TOKEN, UNKNOWN, Piece

MODEL_TYPES = {1: "Unigram", 2: "BPE", 3: "word", 4: "char"}


# ---------------------------------------------------------------- the model's protobuf, read by hand


def _varint(data: bytes, position: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if position >= len(data) or shift > 63:
            raise ValueError("a number runs past the end of the data")
        byte = data[position]
        value |= (byte & 0x7F) << shift
        position += 1
        shift += 7
        if byte < 0x80:
            return value, position


def protobuf_fields(data: bytes) -> Iterator[tuple[int, int | bytes]]:
    """(field number, value) of a protobuf message: ints for varints, bytes for the rest.

    ValueError when the bytes are not a protobuf message (a wire type that does not exist, a
    length past the end).
    """
    position = 0
    value: int | bytes
    while position < len(data):
        key, position = _varint(data, position)
        number, wire_type = key >> 3, key & 7
        if number == 0:
            raise ValueError("field number 0")
        if wire_type == 0:
            value, position = _varint(data, position)
        elif wire_type == 2:
            length, position = _varint(data, position)
            if position + length > len(data):
                raise ValueError("a field runs past the end of the data")
            value, position = data[position : position + length], position + length
        elif wire_type in (1, 5):
            size = 8 if wire_type == 1 else 4
            if position + size > len(data):
                raise ValueError("a field runs past the end of the data")
            value, position = data[position : position + size], position + size
        else:
            raise ValueError(f"wire type {wire_type} is not used by SentencePiece models")
        yield number, value


@dataclass(frozen=True)
class ModelFacts:
    pieces: int
    model_type: str  # "Unigram", "BPE", ...
    byte_fallback: bool
    normalizer: str  # e.g. "nmt_nfkc", "identity"


def model_facts(data: bytes) -> ModelFacts:
    """What a SentencePiece model is, from `sentencepiece_model.proto`: ModelProto has pieces (1),
    trainer_spec (2: model_type 3, byte_fallback 35) and normalizer_spec (3: name 1)."""
    pieces, model_type, byte_fallback, normalizer = 0, 1, False, ""
    for number, value in protobuf_fields(data):
        if number == 1 and isinstance(value, bytes):
            pieces += 1
        elif number == 2 and isinstance(value, bytes):
            for inner, inner_value in protobuf_fields(value):
                if inner == 3 and isinstance(inner_value, int):
                    model_type = inner_value
                elif inner == 35 and isinstance(inner_value, int):
                    byte_fallback = bool(inner_value)
        elif number == 3 and isinstance(value, bytes):
            for inner, inner_value in protobuf_fields(value):
                if inner == 1 and isinstance(inner_value, bytes):
                    normalizer = inner_value.decode("utf-8", errors="replace")
    return ModelFacts(pieces, MODEL_TYPES.get(model_type, f"type {model_type}"), byte_fallback, normalizer)


# ---------------------------------------------------------------- encoding and decoding


def _looks_like_rank_file(data: bytes) -> bool:
    """Llama 3's `tokenizer.model` is a tiktoken rank file: lines of "base64 rank"."""
    first_line = data[:200].split(b"\n", 1)[0].split()
    return len(first_line) == 2 and first_line[1].isdigit()


class SentencePieceTokenizer:
    def __init__(self, processor, facts: ModelFacts, name: str = ""):
        self.name = name
        self.processor = processor
        self.facts = facts
        self.vocab_size = processor.get_piece_size()
        size = self.vocab_size
        self.unknown_id = processor.unk_id() if processor.unk_id() >= 0 else None
        self.special_tokens: dict[str, int] = {
            processor.id_to_piece(i): i
            for i in range(size)
            if processor.is_control(i) or processor.is_unknown(i)
        }
        self.control_ids = frozenset(i for i in self.special_tokens.values() if processor.is_control(i))
        self._special_pattern = special_token_pattern(self.special_tokens)

    @classmethod
    def from_bytes(cls, data: bytes, name: str = "") -> SentencePieceTokenizer:
        """A model from the bytes of a `.model` file; ValueError saying what is wrong otherwise."""
        if not data:
            raise ValueError("the file is empty")
        if _looks_like_rank_file(data):
            raise ValueError(
                "this is a tiktoken rank file (like Llama 3's tokenizer.model), not a SentencePiece model; "
                "Llama 3 and 4 are bundled"
            )
        try:
            facts = model_facts(data)
        except ValueError as error:
            raise ValueError(f"not a SentencePiece model ({error})") from None
        if facts.pieces == 0:
            raise ValueError("not a SentencePiece model (it holds no vocabulary pieces)")
        import sentencepiece

        processor = sentencepiece.SentencePieceProcessor()
        try:
            processor.LoadFromSerializedProto(data)
        except Exception as error:  # sentencepiece raises RuntimeError/OSError with its C++ message
            reason = (str(error).strip().splitlines() or [type(error).__name__])[0]
            raise ValueError(f"not a SentencePiece model sentencepiece can load ({reason})") from None
        return cls(processor, facts, name)

    def _bytes_of(self, token_id: int, piece: str) -> bytes:
        if self.processor.is_byte(token_id):
            return bytes([int(piece[3:5], 16)])  # "<0xE2>"
        return piece.encode("utf-8")

    def _ordinary(self, text: str, offset: int) -> list[Piece]:
        if not text:
            return []
        result = self.processor.encode(text, return_type="offset_mapping")
        pieces: list[Piece] = []
        waiting: list[tuple[int, str, bytes]] = []  # byte pieces before the one that carries the span
        for token_id, piece, (start, end) in zip(result["ids"], result["pieces"], result["offsets"]):
            token_bytes = self._bytes_of(token_id, piece)
            if self.processor.is_byte(token_id) and start == end and start < len(text):
                waiting.append((token_id, piece, token_bytes))
                continue
            if waiting and end == start:
                end = start + 1
            for waiting_id, waiting_piece, waiting_bytes in waiting:
                pieces.append(Piece(waiting_id, waiting_piece, start + offset, end + offset, waiting_bytes))
            waiting = []
            kind = UNKNOWN if token_id == self.unknown_id else TOKEN
            pieces.append(Piece(token_id, piece, start + offset, end + offset, token_bytes, kind))
        last = (offset + len(text) - 1, offset + len(text))
        for waiting_id, waiting_piece, waiting_bytes in waiting:  # cannot happen: the last carries the span
            pieces.append(Piece(waiting_id, waiting_piece, *last, waiting_bytes))
        return pieces

    def encode(self, text: str, special_tokens: bool = False) -> list[Piece]:
        clean = replace_surrogates(text)
        if not special_tokens:
            return self._ordinary(clean, 0)
        pieces: list[Piece] = []
        for start, end, special_id in split_at_special_tokens(
            clean, self.special_tokens, self._special_pattern
        ):
            if special_id is None:
                pieces.extend(self._ordinary(clean[start:end], start))
            else:
                value = clean[start:end]
                pieces.append(Piece(special_id, value, start, end, value.encode("utf-8"), SPECIAL))
        return pieces

    def token(self, token_id: int) -> DecodedToken:
        if not 0 <= token_id < self.vocab_size:
            return DecodedToken(token_id, b"", problem=out_of_range(self.vocab_size))
        piece = self.processor.id_to_piece(token_id)
        return DecodedToken(token_id, self._bytes_of(token_id, piece), special=token_id in self.control_ids)

    def decode(self, ids: Sequence[int]) -> Decoding:
        """sentencepiece's decoding of each run of ordinary ids; control tokens (which
        sentencepiece drops) as their text, like the `tokenizers` library without
        `skip_special_tokens`."""
        tokens = tuple(self.token(token_id) for token_id in ids)
        parts: list[str] = []
        run: list[int] = []
        for token in tokens:
            if token.problem:
                continue
            if token.special:
                if run:
                    parts.append(self.processor.decode(run))
                    run = []
                parts.append(token.token_bytes.decode("utf-8"))
            else:
                run.append(token.id)
        if run:
            parts.append(self.processor.decode(run))
        return Decoding("".join(parts), tokens)
