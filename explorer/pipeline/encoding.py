"""What encoding a text gives: ids, tokens, offsets, type ids and the special-tokens mask.

Follows the `tokenizers` library's `Encoding` (tokenizers/src/tokenizer/encoding.rs, 0.23.3),
field for field for the fields this package fills. `Tokenizer.encode` builds one, and the
post-processor (processors.py) wraps one or two of them in special tokens.

What it does not do: attention masks, overflowing parts, word ids or padding.
"""

from __future__ import annotations

from dataclasses import dataclass, field


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
