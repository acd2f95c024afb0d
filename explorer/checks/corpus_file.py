"""An uploaded corpus file: its text when it is UTF-8, else a sentence naming what it looks like.

`decode_upload(data, filename)` accepts UTF-8 only (a leading byte order mark is removed) and
nothing is silently transcoded: any other file raises `InputError` saying what it appears to be
(empty, UTF-16 or UTF-32, a PDF, a ZIP or Office document, an image, gzip, other binary data,
Latin-1/Windows-1252 or another legacy encoding, UTF-8 cut off mid-character or with a few stray
bytes) and what to do about it. Strict UTF-8 decoding never produces lone surrogates.
`check_upload_start(head, filename)` runs the checks that need only the first START_BYTES bytes,
for a reader that checks a file before reading all of it.

What it does not do: read files from disk (the app's uploader and the CLI do), or check the text
itself (explorer.checks.corpus).
"""

from __future__ import annotations

import re

from explorer.checks.limits import InputError

# (leading bytes, what the file is, what to do) - checked before anything else.
_COPY_TEXT = "copy its text into a plain .txt file saved as UTF-8"
_CHOOSE_TEXT = "choose a plain .txt file saved as UTF-8"
_MAGIC_NUMBERS = (
    (b"%PDF-", "a PDF document", _COPY_TEXT),
    (b"PK\x03\x04", "a ZIP archive (.docx, .xlsx, .odt and .epub files are ZIP archives too)", _COPY_TEXT),
    (b"PK\x05\x06", "an (empty) ZIP archive", _CHOOSE_TEXT),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Microsoft Office file (.doc, .xls, .ppt)", _COPY_TEXT),
    (b"\x89PNG\r\n\x1a\n", "a PNG image", _CHOOSE_TEXT),
    (b"\xff\xd8\xff", "a JPEG image", _CHOOSE_TEXT),
    (b"GIF87a", "a GIF image", _CHOOSE_TEXT),
    (b"GIF89a", "a GIF image", _CHOOSE_TEXT),
    (b"\x1f\x8b", "a gzip-compressed file", "decompress it first"),
)
# Byte order marks, UTF-32 before UTF-16: FF FE 00 00 also starts with the UTF-16 LE mark.
_UNICODE_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32 (little-endian)"),
    (b"\x00\x00\xfe\xff", "UTF-32 (big-endian)"),
    (b"\xff\xfe", "UTF-16 (little-endian)"),
    (b"\xfe\xff", "UTF-16 (big-endian)"),
)
_UTF8_BOM = b"\xef\xbb\xbf"
# Like git and grep: a NUL byte near the start means binary.
_BINARY_SNIFF_BYTES = 8000
START_BYTES = _BINARY_SNIFF_BYTES + len(_UTF8_BOM)  # what `check_upload_start` looks at
_SAVE_AS_UTF8 = "open it in a text editor and save it as UTF-8"


def decode_upload(data: bytes, filename: str) -> str:
    """The text of an uploaded file, which must be UTF-8 (a leading byte order mark is removed).

    Anything else raises InputError naming what the file looks like: empty, UTF-16/UTF-32 (by
    byte order mark, or by NUL bytes at every other position), a known binary format (PDF,
    ZIP/docx, old Office, PNG, JPEG, GIF, gzip), other binary data (NUL bytes in the first
    8,000 bytes), Latin-1/Windows-1252 or another legacy encoding, a UTF-8 file cut off in the
    middle of a character, or UTF-8 with a few stray bytes of another encoding.
    """
    name = f"'{filename}'"
    if not data:
        raise InputError(f"{name} is empty (0 bytes): choose a file with some text in it.")
    check_upload_start(data, filename)
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM) :]
        if not data:
            raise InputError(f"{name} is empty (only a byte order mark): choose a file with some text in it.")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(_not_utf8_message(name, data, error)) from None


def check_upload_start(data: bytes, filename: str) -> None:
    """InputError when the start of a file already shows it is not UTF-8 text: a UTF-16/UTF-32
    byte order mark or layout, a known binary format, or NUL bytes. Only the first
    START_BYTES bytes are looked at, so a reader can check them before reading the rest
    (the CLI does: `train /dev/zero` stops after 8,000 bytes)."""
    name = f"'{filename}'"
    for bom, encoding in _UNICODE_BOMS:
        if data.startswith(bom):
            raise InputError(f"{name} is not UTF-8: it is {encoding} text; {_SAVE_AS_UTF8}.")
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM) :]
    for magic, kind, advice in _MAGIC_NUMBERS:
        if data.startswith(magic):
            raise InputError(f"{name} looks like {kind}, not text: {advice}.")
    wide = _wide_encoding(data)
    if wide is not None:
        raise InputError(f"{name} is not UTF-8: it looks like {wide} text; {_SAVE_AS_UTF8}.")
    first_nul = data.find(b"\x00", 0, _BINARY_SNIFF_BYTES)
    if first_nul >= 0:
        raise InputError(
            f"{name} looks like a binary file, not text (it has NUL bytes, the first at byte {first_nul:,}): "
            f"{_CHOOSE_TEXT}."
        )


def _wide_encoding(data: bytes) -> str | None:
    """'UTF-16 (little-endian)' etc. when NUL bytes sit where ASCII text in that encoding has
    them (and the data decodes that way), else None."""
    sample = data[:_BINARY_SNIFF_BYTES]
    if sample.count(0) < max(2, len(sample) // 8):
        return None
    nul_share = [sample[offset::4].count(0) / max(1, len(sample[offset::4])) for offset in range(4)]
    candidates = []
    if min(nul_share[1:]) > 0.7 and nul_share[0] < 0.3:
        candidates.append(("utf-32-le", "UTF-32 (little-endian)"))
    if min(nul_share[:3]) > 0.7 and nul_share[3] < 0.3:
        candidates.append(("utf-32-be", "UTF-32 (big-endian)"))
    odd = (
        sample[1::2].count(0) / max(1, len(sample[1::2])),
        sample[0::2].count(0) / max(1, len(sample[0::2])),
    )
    if odd[0] > 0.3 and odd[1] < 0.05:
        candidates.append(("utf-16-le", "UTF-16 (little-endian)"))
    if odd[1] > 0.3 and odd[0] < 0.05:
        candidates.append(("utf-16-be", "UTF-16 (big-endian)"))
    for codec, label in candidates:
        cut = len(sample) - len(sample) % (4 if "32" in codec else 2)
        try:
            sample[:cut].decode(codec)
        except UnicodeDecodeError:
            continue
        return label
    return None


def _not_utf8_message(name: str, data: bytes, error: UnicodeDecodeError) -> str:
    line = data.count(b"\n", 0, error.start) + 1
    if error.reason == "unexpected end of data" and error.start >= len(data) - 3:
        tail = data[error.start :]
        if len(tail) > 1 or not data[: error.start].isascii():  # more of a character, or UTF-8 before
            return (
                f"{name} ends in the middle of a UTF-8 character (it was probably cut off): "
                "remove the incomplete last character or save the file again as UTF-8."
            )
        # ASCII, then one byte that starts a multi-byte character: a cut UTF-8 file, or (quite as
        # likely) Latin-1 text ending in a letter such as "é" (0xE9).
        return (
            f"{name} is not UTF-8: it is ASCII text that ends with the byte 0x{tail[0]:02X}, which is "
            f"{tail.decode('cp1252', errors='replace')!r} in Latin-1/Windows-1252 but only the start of a "
            f"character in UTF-8 (a cut-off file?); {_SAVE_AS_UTF8}."
        )
    replaced = data.decode("utf-8", errors="replace")
    invalid = replaced.count("\ufffd") - data.decode("utf-8", errors="ignore").count("\ufffd")
    valid_multibyte = len(_VALID_NON_ASCII.findall(replaced))
    if valid_multibyte >= max(2, invalid):
        return (
            f"{name} is mostly UTF-8 but has {invalid:,} invalid byte sequence{'s' if invalid != 1 else ''} "
            f"(the first on line {line:,}): part of it is in another encoding; fix those lines or "
            f"{_SAVE_AS_UTF8}."
        )
    controls = len(_BINARY_CONTROLS.findall(data))
    if controls > max(1, len(data) // 100):
        return (
            f"{name} does not look like text (it is not UTF-8 and has {controls:,} control bytes): "
            f"{_CHOOSE_TEXT}."
        )
    # Western European text is mostly ASCII letters with a few accented ones; Cyrillic, Greek or
    # CJK in their legacy encodings are mostly bytes above 0x7F.
    high = len(data) - len(data.decode("ascii", errors="ignore"))
    letters = len(data.translate(None, _NOT_ASCII_LETTERS))
    if high <= 0.3 * (high + letters):
        encoding = "Latin-1/Windows-1252 text"
    else:
        encoding = "text in another legacy encoding (such as Windows-1251, Shift_JIS or GBK)"
    return (
        f"{name} is not UTF-8 (the first invalid byte is on line {line:,}): it looks like {encoding}; "
        f"{_SAVE_AS_UTF8}."
    )


_VALID_NON_ASCII = re.compile("[^\x00-\x7f\ufffd]")
_NOT_ASCII_LETTERS = bytes(byte for byte in range(256) if not (65 <= byte <= 90 or 97 <= byte <= 122))

# C0 controls but the white space ones and ESC/SUB, which old text files do hold. Bytes 0x80-0x9F
# are not counted: Windows-1252 uses them for printable characters.
_BINARY_CONTROLS = re.compile(b"[\x00-\x08\x0e-\x19\x1c-\x1f\x7f]")
