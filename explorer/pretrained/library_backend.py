"""A bundled tokenizer.json (DeepSeek V4) encoded by the `tokenizers` library.

`LibraryTokenizer.encode(text, special_tokens)` gives `Piece`s: byte-level tokens carry their
bytes (the symbols Ġ, Ċ... turned back into bytes), added tokens their own text, and the
library's offsets as character spans. The special-token switch is the library's own:
`encode_special_tokens = True` makes it encode special added tokens' text as ordinary text.
Added tokens the file marks as not special (DeepSeek's `<think>`, for one) are always one token,
as the model always sees them.

What it does not do: add the post-processor's tokens (`add_special_tokens=False`), or read
tokenizer.json files of other shapes than the library reads (uploads go through
explorer.compare).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence

from explorer.pipeline.bytelevel import symbols_to_bytes
from explorer.pretrained.decoding import UNUSED, DecodedToken, Decoding, out_of_range
from explorer.pretrained.files import read_verified
from explorer.pretrained.pieces import replace_surrogates
from explorer.pretrained.registry import info_for
from explorer.tokens import SPECIAL, TOKEN, Piece


class LibraryTokenizer:
    def __init__(self, name: str):
        import tokenizers

        info = info_for(name)
        (content,) = [read_verified(info.module, data_file) for data_file in info.files]
        text = content.decode("utf-8")
        self.name = name
        self.library = tokenizers.Tokenizer.from_str(text)
        added = json.loads(text).get("added_tokens", [])
        self.added_tokens: dict[int, str] = {entry["id"]: entry["content"] for entry in added}
        self.special_tokens: dict[str, int] = {
            entry["content"]: entry["id"] for entry in added if entry.get("special")
        }
        self.special_ids = frozenset(self.special_tokens.values())
        self.vocab_size = self.library.get_vocab_size(with_added_tokens=True)
        # The switch is a property of the shared tokenizer: set and encode under one lock, so two
        # visitors' reruns (threads of one server) cannot flip it under each other.
        self._lock = threading.Lock()

    def _bytes_of(self, token_id: int, token: str) -> bytes:
        if token_id in self.added_tokens:
            return self.added_tokens[token_id].encode("utf-8")
        try:
            return symbols_to_bytes(token)
        except ValueError:  # not a byte-level symbol string (cannot happen in a byte-level vocabulary)
            return token.encode("utf-8", errors="surrogatepass")

    def encode(self, text: str, special_tokens: bool = False) -> list[Piece]:
        clean = replace_surrogates(text)  # Rust strings cannot hold lone surrogates
        with self._lock:
            self.library.encode_special_tokens = not special_tokens
            encoding = self.library.encode(clean, add_special_tokens=False)
        return [
            Piece(
                token_id,
                token,
                start,
                end,
                self._bytes_of(token_id, token),
                SPECIAL if token_id in self.special_ids else TOKEN,
            )
            for token_id, token, (start, end) in zip(encoding.ids, encoding.tokens, encoding.offsets)
        ]

    def encode_batch(self, texts: Sequence[str], special_tokens: bool = False) -> list:
        """The library's Encodings of `texts`, encoded as `encode` encodes each (its pieces are
        their ids and offsets): for a whole corpus, without a `Piece` per token. Holds the switch's
        lock for the whole batch."""
        clean = [replace_surrogates(text) for text in texts]
        with self._lock:
            self.library.encode_special_tokens = not special_tokens
            return self.library.encode_batch(clean, add_special_tokens=False)

    def token(self, token_id: int) -> DecodedToken:
        if not 0 <= token_id < self.vocab_size:
            return DecodedToken(token_id, b"", problem=out_of_range(self.vocab_size))
        token = self.library.id_to_token(token_id)
        if token is None:
            return DecodedToken(token_id, b"", problem=UNUSED)
        return DecodedToken(token_id, self._bytes_of(token_id, token), special=token_id in self.special_ids)

    def decode(self, ids: Sequence[int]) -> Decoding:
        tokens = tuple(self.token(token_id) for token_id in ids)
        text = self.library.decode([t.id for t in tokens if not t.problem], skip_special_tokens=False)
        return Decoding(text, tokens)
