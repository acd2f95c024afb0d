"""Assemble a Tokenizer around a trainer's output: the model, and the normalizer, pre-tokenizer,
decoder and post-processor a library user would put around it.

- `build_tokenizer` (BPE, WordPiece): a vocab in id order and merges in the order learned, with the
  run's normalizer and pre-tokenizer names; its docstring lists every choice it makes.
- `cls_sep_template`: the BERT-style post-processor ('[CLS] $A [SEP]', pair
  '[CLS] $A [SEP] $B:1 [SEP]:1') when both [CLS] and [SEP] are special tokens, else None; Unigram
  tokenizers (explorer.training.unigram.round_history.RoundHistory.tokenizer_at) get the same one.

What it does not do: read or write tokenizer.json (explorer.pipeline.tokenizer_json) or train
(explorer.training.bpe).
"""

from __future__ import annotations

from explorer.pipeline.decoders import BPEDecoder, ByteLevelDecoder, Decoder, WordPieceDecoder
from explorer.pipeline.models import BPEModel, WordPieceModel
from explorer.pipeline.normalizers import build_normalizer
from explorer.pipeline.pre_tokenizers import build_pre_tokenizer, is_byte_level
from explorer.pipeline.processors import TemplateProcessing
from explorer.pipeline.tokenizer import Tokenizer


def cls_sep_template(special_token_ids: dict[str, int]) -> TemplateProcessing | None:
    """'[CLS] $A [SEP]' and '[CLS] $A [SEP] $B:1 [SEP]:1' when both are special tokens, else None."""
    if "[CLS]" not in special_token_ids or "[SEP]" not in special_token_ids:
        return None
    return TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", special_token_ids["[CLS]"]), ("[SEP]", special_token_ids["[SEP]"])],
    )


def build_tokenizer(
    algorithm: str,
    vocab: list[str],
    merges: list[tuple[str, str]],
    normalizer_names: list[str],
    pre_tokenizer_name: str | None,
    special_tokens: list[str],
    continuing_subword_prefix: str | None = None,
    end_of_word_suffix: str | None = None,
    unk_token: str | None = None,
) -> Tokenizer:
    """The tokenizer a library user would assemble around a trainer's output.

    - `vocab` is in id order (token i has id i); `merges` in the order learned.
    - unk token: `unk_token` if given, else "[UNK]" when it is one of the special tokens, else
      none for BPE (unknown characters are dropped, as in the library) and "[UNK]" for
      WordPiece (a WordPiece model without one fails on the first word it cannot match, which
      no user wants). The unk token is made a special token, and appended to the vocab (next
      id) if the trainer did not put it there.
    - WordPiece: prefix defaults to "##"; `end_of_word_suffix` is ignored (the library's
      WordPiece model has no suffix). BPE: prefix and suffix as given.
    - decoder: byte-level pre-tokenizer -> ByteLevel; else WordPiece -> WordPiece; else BPE with
      a suffix -> BPEDecoder; else none (tokens joined with spaces).
    - post-processor: '[CLS] $A [SEP]' / '[CLS] $A [SEP] $B:1 [SEP]:1' when both [CLS] and [SEP]
      are special tokens.
    """
    if algorithm not in ("bpe", "wordpiece"):
        raise ValueError(f"algorithm {algorithm!r} is not supported (bpe, wordpiece)")
    vocab_ids = {token: token_id for token_id, token in enumerate(vocab)}
    special_tokens = list(dict.fromkeys(special_tokens))
    if unk_token is None and ("[UNK]" in special_tokens or algorithm == "wordpiece"):
        unk_token = "[UNK]"
    if unk_token is not None:
        if unk_token not in special_tokens:
            special_tokens.append(unk_token)
        if unk_token not in vocab_ids:
            # The model looks its unk token up in its own vocab, not among added tokens.
            vocab_ids[unk_token] = len(vocab)

    model: WordPieceModel | BPEModel
    if algorithm == "wordpiece":
        prefix = continuing_subword_prefix if continuing_subword_prefix is not None else "##"
        assert unk_token is not None  # "[UNK]" when none was given, above
        model = WordPieceModel(vocab_ids, unk_token=unk_token, continuing_subword_prefix=prefix)
    else:
        model = BPEModel(
            vocab_ids,
            merges,
            unk_token=unk_token,
            continuing_subword_prefix=continuing_subword_prefix,
            end_of_word_suffix=end_of_word_suffix,
        )

    decoder: Decoder | None
    if is_byte_level(pre_tokenizer_name):
        decoder = ByteLevelDecoder()
    elif isinstance(model, WordPieceModel):  # algorithm == "wordpiece"
        decoder = WordPieceDecoder(prefix=model.continuing_subword_prefix)
    elif end_of_word_suffix:
        decoder = BPEDecoder(suffix=end_of_word_suffix)
    else:
        decoder = None

    tokenizer = Tokenizer(
        normalizer=build_normalizer(normalizer_names) if normalizer_names else None,
        pre_tokenizer=build_pre_tokenizer(pre_tokenizer_name) if pre_tokenizer_name else None,
        model=model,
        special_tokens=special_tokens,
        decoder=decoder,
    )
    tokenizer.post_processor = cls_sep_template(tokenizer.special_token_ids)
    return tokenizer
