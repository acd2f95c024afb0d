"""Decoders, the last pipeline stage: tokens back to text, exactly like the `tokenizers` library's.

Follows tokenizers/src/decoders/ (0.23.3): `ByteLevelDecoder` is the library's ByteLevel
(pre_tokenizers/byte_level.rs, one struct for pre-tokenizer, decoder and post-processor),
`WordPieceDecoder` its WordPiece (decoders/wordpiece.rs), `BPEDecoder` (decoders/bpe.rs) and
`MetaspaceDecoder` its Metaspace (pre_tokenizers/metaspace.rs, one struct for pre-tokenizer and
decoder). Each is a `Component` of stage "decoder", read from tokenizer.json's "decoder" entry by
`component_from_hf_json` (explorer.pipeline.tokenizer_json). A Tokenizer without a decoder joins its
tokens with spaces.

What it does not do: the library's Strip, Replace, ByteFallback, Fuse, CTC and Sequence decoders.
"""

from __future__ import annotations

from explorer.pipeline.bytelevel import UNICODE_TO_BYTE
from explorer.pipeline.components import Component
from explorer.pipeline.pre_tokenizers import Metaspace


class Decoder(Component):
    """Tokens (strings) back to text."""

    stage = "decoder"

    def decode(self, tokens: list[str]) -> str:
        raise NotImplementedError


def _string_field(config: dict, key: str, default: str) -> str:
    value = config.get(key, default)
    if not isinstance(value, str):
        raise ValueError(f"{Decoder.stage}.{key} must be a string, got {value!r}")
    return value


class ByteLevelDecoder(Decoder):
    """Byte-level symbols back to text; invalid UTF-8 becomes U+FFFD (`from_utf8_lossy`).

    A token holding any character that is not a byte symbol (an added token such as "[CLS]",
    or a raw space) contributes its own UTF-8 bytes unchanged, as in the library.
    """

    hf_type = "ByteLevel"

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


class WordPieceDecoder(Decoder):
    """Glue `##`-continued pieces to their word, put a space before every other token.

    Cleanup runs on each token separately (as in the library), so " do not" spread over two
    tokens is left alone.
    """

    hf_type = "WordPiece"
    hf_fields = ("prefix", "cleanup")

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

    @classmethod
    def from_hf_json(cls, config: dict) -> WordPieceDecoder:
        cleanup = config.get("cleanup", True)
        if not isinstance(cleanup, bool):
            raise ValueError(f"{cls.stage}.cleanup must be true or false, got {cleanup!r}")
        return cls(_string_field(config, "prefix", "##"), cleanup)


class BPEDecoder(Decoder):
    """Every end-of-word suffix becomes a space, except in the last token where it is dropped."""

    hf_type = "BPEDecoder"
    hf_fields = ("suffix",)

    def __init__(self, suffix: str = "</w>"):
        self.suffix = suffix

    def decode(self, tokens: list[str]) -> str:
        last = len(tokens) - 1
        return "".join(token.replace(self.suffix, "" if i == last else " ") for i, token in enumerate(tokens))

    @classmethod
    def from_hf_json(cls, config: dict) -> BPEDecoder:
        return cls(_string_field(config, "suffix", "</w>"))


class MetaspaceDecoder(Decoder):
    """The library's Metaspace decoder: every replacement character becomes a space, except in
    the first token where they are all dropped (unless prepend_scheme is "never")."""

    hf_type = "Metaspace"

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

    @classmethod
    def from_hf_json(cls, config: dict) -> MetaspaceDecoder:
        try:  # the same fields and checks as the pre-tokenizer
            settings = Metaspace.from_hf_json(config)
        except ValueError as error:
            raise ValueError(f"{cls.stage}: {error}") from None
        return cls(settings.replacement, settings.prepend_scheme, settings.split_at_replacement)
