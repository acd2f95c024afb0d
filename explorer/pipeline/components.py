"""One base class and one registry for the pipeline's components: normalizers, pre-tokenizers,
decoders and the post-processor.

Follows the `tokenizers` library's serialization (0.23.3): in tokenizer.json every component is an
object tagged with its "type" (serde's `#[serde(tag = "type")]` on `NormalizerWrapper` in
tokenizers/src/normalizers/mod.rs, `PreTokenizerWrapper` in pre_tokenizers/mod.rs,
`DecoderWrapper` in decoders/mod.rs, `PostProcessorWrapper` in processors/mod.rs), and a type
name belongs to a stage: "ByteLevel" is a pre-tokenizer, a decoder and a post-processor.

- `Component`: equality, hash and repr come from `to_hf_json()`, so two components are equal
  exactly when the library would write them the same way. A subclass says its `stage` (the
  tokenizer.json key: "normalizer", "pre_tokenizer", "decoder", "post_processor"), its `hf_type`
  and the attributes it writes (`hf_fields`, in the library's order); the default `to_hf_json`
  and `from_hf_json` read and write just those.
- The registry: every subclass that names its own `hf_type` is registered under its stage when
  the class is defined. `component_from_hf_json(stage, config)` reads one entry, and every stage
  words an unknown type the same way: "normalizer.type 'Nmt' is not supported (BertNormalizer,
  Lowercase, ...)", the tokenizer.json path and the types this package knows, as for models.

What it does not do: validate field values (a component's `from_hf_json` or constructor does), or
know the app's own stage names ("nfkc", "byte-level": `build_normalizer`, `build_pre_tokenizer`).
"""

from __future__ import annotations

from typing import Any, ClassVar

# stage -> tokenizer.json "type" -> class
_REGISTRY: dict[str, dict[str, type[Component]]] = {}


class Component:
    """One pipeline component that tokenizer.json can hold."""

    stage: ClassVar[str]  # the tokenizer.json key of its stage, e.g. "pre_tokenizer"
    hf_type: ClassVar[str | None] = None  # its tokenizer.json "type"; None: not registered
    hf_fields: ClassVar[tuple[str, ...]] = ()  # attributes written after "type", in the library's order

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        hf_type = cls.__dict__.get("hf_type")  # its own, not inherited
        if hf_type is not None:
            types = _REGISTRY.setdefault(cls.stage, {})
            if hf_type in types:
                raise TypeError(f"two {cls.stage} classes with type {hf_type!r}")
            types[hf_type] = cls

    def to_hf_json(self) -> dict | None:
        """The tokenizer.json object the library writes for this component."""
        return {"type": self.hf_type, **{name: getattr(self, name) for name in self.hf_fields}}

    @classmethod
    def from_hf_json(cls, config: dict) -> Component:
        """The component for its tokenizer.json object: a missing field takes the constructor's
        default, keys that are not fields are ignored."""
        return cls(**{name: config[name] for name in cls.hf_fields if name in config})

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.to_hf_json() == self.to_hf_json()

    def __hash__(self) -> int:
        return hash(repr(self.to_hf_json()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.to_hf_json()})"


def known_types(stage: str) -> list[str]:
    """The tokenizer.json types registered for a stage, sorted."""
    return sorted(_REGISTRY.get(stage, {}))


def unknown_type_error(stage: str, kind: object) -> ValueError:
    return ValueError(f"{stage}.type {kind!r} is not supported ({', '.join(known_types(stage))})")


def component_from_hf_json(stage: str, config: object) -> Component | None:
    """The component of a tokenizer.json stage entry; null gives None. The stage's module must be
    imported (each stage package has a reader of its own that guarantees it)."""
    if config is None:
        return None
    if not isinstance(config, dict):
        raise ValueError(f"{stage} must be an object or null")
    kind = config.get("type")
    component_class = None if kind is None else _REGISTRY.get(stage, {}).get(kind)
    if component_class is None:
        raise unknown_type_error(stage, kind)
    return component_class.from_hf_json(config)


def component_to_hf_json(component: Component | None) -> dict | None:
    """What tokenizer.json holds for a stage: null for none (or for a normalizer that changes
    nothing, as the library writes it)."""
    return None if component is None else component.to_hf_json()
