"""GPT-2's reversible byte <-> printable-symbol map, as used by byte-level BPE.

Byte-level BPE works on the UTF-8 bytes of the text, but vocabularies are stored as strings, so
every byte is shown as one printable character: bytes that are already printable Latin-1 keep their
own character, the other 68 (controls, space, 0x7F-0xA0, 0xAD) get chr(256 + n) in byte order.
Hence space -> 'Ġ', '\\n' -> 'Ċ', '\\t' -> 'ĉ', '\\x00' -> 'Ā'. This is `bytes_to_unicode()` from
GPT-2's encoder.py and the `tokenizers` ByteLevel pre-tokenizer / decoder.

Does not split text into pieces (that is `pre_tokenizers.ByteLevel`) and does not decode invalid
UTF-8 (callers decide what a broken byte sequence becomes).
"""

from __future__ import annotations


def _gpt2_byte_to_unicode() -> dict[int, str]:
    printable = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("¡"), ord("¬") + 1),
        *range(ord("®"), ord("ÿ") + 1),
    ]
    mapping = {byte: chr(byte) for byte in printable}
    next_free = 256
    for byte in range(256):
        if byte not in mapping:
            mapping[byte] = chr(next_free)
            next_free += 1
    return dict(sorted(mapping.items()))


BYTE_TO_UNICODE: dict[int, str] = _gpt2_byte_to_unicode()
UNICODE_TO_BYTE: dict[str, int] = {symbol: byte for byte, symbol in BYTE_TO_UNICODE.items()}

# The 256 symbols, sorted by code point (the order `ByteLevel.alphabet()` sorts to).
BYTE_LEVEL_ALPHABET: tuple[str, ...] = tuple(sorted(BYTE_TO_UNICODE.values()))

# Decoding bytes as Latin-1 turns byte n into chr(n) in C; one str.translate then swaps in the
# GPT-2 symbol. Only the 68 non-printable bytes need an entry: the others map to themselves.
_LATIN1_TO_SYMBOL = {byte: symbol for byte, symbol in BYTE_TO_UNICODE.items() if chr(byte) != symbol}
_SYMBOL_TO_LATIN1: dict[int, int | str] = {
    ord(symbol): byte for symbol, byte in UNICODE_TO_BYTE.items() if chr(byte) != symbol
}
# A raw space or control character is not a symbol: send it out of Latin-1 so encoding rejects it.
_SYMBOL_TO_LATIN1.update({byte: "\uffff" for byte in _LATIN1_TO_SYMBOL})


def bytes_to_symbols(data: bytes) -> str:
    """One byte-level symbol per byte: b'hi there' -> 'hiĠthere'."""
    return data.decode("latin-1").translate(_LATIN1_TO_SYMBOL)


class _SymbolsOfChar(dict):
    """ord(char) -> the symbols of char's UTF-8 bytes, computed on first use. As a str.translate
    table it maps whole strings in C; words repeat the same few characters, so it stays small."""

    def __missing__(self, code_point: int) -> str:
        symbols = bytes_to_symbols(chr(code_point).encode("utf-8"))
        self[code_point] = symbols
        return symbols


_SYMBOLS_OF_CHAR = _SymbolsOfChar()


def text_to_symbols(text: str) -> str:
    """bytes_to_symbols(text.encode('utf-8')), faster on many short strings: 'né ' -> 'nÃ©Ġ'."""
    return text.translate(_SYMBOLS_OF_CHAR)


def symbols_to_bytes(symbols: str) -> bytes:
    """Inverse of bytes_to_symbols. Raises ValueError on a character that is not a byte symbol."""
    latin1 = symbols.translate(_SYMBOL_TO_LATIN1)
    try:
        return latin1.encode("latin-1")
    except UnicodeEncodeError as error:
        bad = symbols[error.start]
        raise ValueError(f"{bad!r} (U+{ord(bad):04X}) is not a byte-level symbol") from None
