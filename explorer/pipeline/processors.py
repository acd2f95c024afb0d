"""The post-processor: wraps encodings in special tokens following a template ("[CLS] $A [SEP]").

Follows the `tokenizers` library's TemplateProcessing (tokenizers/src/processors/template.rs,
0.23.3): the template syntax (`$A`, `$B`, `$` = `$A`, `$1` = `$A:1`, `[SEP]:1`), special tokens
added with offsets (0, 0), type ids set even when special tokens are left out, the default pair
template `$A $B:1`, and the tokenizer.json form. Without a post-processor a Tokenizer simply
concatenates a pair, its second sequence's tokens with type id 1.

What it does not do: the library's BertProcessing, RobertaProcessing, ByteLevel (offset
trimming) or Sequence post-processors; truncation or padding.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.pipeline.components import Component
from explorer.pipeline.encoding import Encoding


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
        if colon and (":" in type_text or not (type_text.isascii() and type_text.isdigit())):
            raise ValueError(f"cannot read template piece {item!r}")
        type_id = int(type_text) if colon else 0
        if name.startswith("$"):
            rest = name[1:]
            if rest in ("", "A", "a"):
                pieces.append(TemplatePiece("sequence", "A", type_id))
            elif rest in ("B", "b"):
                pieces.append(TemplatePiece("sequence", "B", type_id))
            elif rest.isascii() and rest.isdigit() and not colon:  # as Rust's parse::<u32>: no "²"
                pieces.append(TemplatePiece("sequence", "A", int(rest)))
            else:
                raise ValueError(f"cannot read template piece {item!r}")
        else:
            pieces.append(TemplatePiece("special", name, type_id))
    return pieces


class TemplateProcessing(Component):
    """Wrap encodings in special tokens following a template, e.g. '[CLS] $A [SEP]'.

    `special_tokens` maps each special token named in the templates to its ids and token
    strings (usually one of each); pass (name, id) pairs for the common single-id case.
    """

    stage = "post_processor"
    hf_type = "TemplateProcessing"

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
                sequence = first if piece.name == "A" else second
                assert sequence is not None  # "B" is only in the pair template
                result.extend(sequence, type_id=piece.type_id)
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
        where = cls.stage
        templates: list[str | list[TemplatePiece]] = []  # a string template is parsed by __init__
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
