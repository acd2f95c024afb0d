"""A run of the library flavor as plain `tokenizers` code: the program that trains the same tokenizer
with the Hugging Face library itself and saves its tokenizer.json.

`library_program(config, corpus)` writes the model (with the unknown token, prefix and suffix the app
gives it), the normalizers, the pre-tokenizer (with its split pattern), the trainer with every
setting of the run, and the decoder and post-processor the app puts around the trained model
(explorer.pipeline.assemble, explorer.training.unigram.round_history). The corpus goes to the
library as the run cut it, with the run's reading: one line at a time, empty lines dropped, as the
app counts words (explorer.training.word_counts.split_lines), or each line with its ending, as
`Tokenizer.train(files)` reads a file (corpus_source.CorpusSource); for files the CLI streamed,
corpus_files.CorpusFiles (`tokenizer.train(FILES, trainer)` for lines with their endings).

What the program gives, as docs/exactness.md says and each program repeats in a comment:
- BPE without prefix or suffix: the app's tokenizer.json byte for byte (both break ties between
  equal counts by the smallest pair of ids);
- BPE with a continuing-subword prefix or end-of-word suffix, and WordPiece: the same, except that
  the library adds the decorated characters ("##x") in hash-map order, which changes from run to
  run (the app uses code-point order); where that order decides a tie, the vocabularies differ;
- Unigram: the same pieces, scores within 1e-3 (the library's own runs differ in the fourth decimal).

What it does not do: the course flavor (the course's loops are not the library's; see
api_program.py), or check the run's settings (RunConfig did).
"""

from __future__ import annotations

from typing import cast

from explorer.pipeline.bytelevel import BYTE_LEVEL_ALPHABET
from explorer.pipeline.pre_tokenizers import BYTE_LEVEL_PRE_TOKENIZERS, is_byte_level
from explorer.pipeline.pre_tokenizers.split_patterns import LIBRARY_PATTERNS
from explorer.reproduce.corpus_files import CorpusFiles
from explorer.reproduce.corpus_source import CorpusSource
from explorer.reproduce.python_source import Call, Expression, Items, assignment, literal, statement
from explorer.reproduce.run_line import run_summary
from explorer.run_config import RunConfig, TrainerConfig, UnigramConfig

NORMALIZER_CALLS = {
    "nfd": "normalizers.NFD()",
    "nfkc": "normalizers.NFKC()",
    "lowercase": "normalizers.Lowercase()",
    "strip-accents": "normalizers.StripAccents()",
    "bert": "normalizers.BertNormalizer()",
}
PRE_TOKENIZER_CALLS = {
    "byte-level": "pre_tokenizers.ByteLevel(add_prefix_space=False)",
    "bert": "pre_tokenizers.BertPreTokenizer()",
    "whitespace": "pre_tokenizers.Whitespace()",
    "whitespace-split": "pre_tokenizers.WhitespaceSplit()",
    "metaspace": "pre_tokenizers.Metaspace()",
}
SPLIT_PATTERN_NAMES = {name: pattern for pattern, name in BYTE_LEVEL_PRE_TOKENIZERS.items()}

BPE_TIES = (
    "# Pairs of equal count: BpeTrainer merges the one with the smallest (id, id) first, as the app does."
)
DECORATED_TIES = [
    "# The library adds the decorated characters (e.g. '##x') to the vocabulary in hash-map order, which",
    "# changes from run to run; the app uses code-point order. Where that order decides a tie between",
    "# pairs of equal count, this vocabulary can differ from the app's (docs/exactness.md); elsewhere it",
    "# is the same, merge for merge.",
]
UNIGRAM_TIES = [
    "# UnigramTrainer gives the app's pieces with scores within 1e-3 (its own runs differ in the fourth",
    "# decimal: it sums in hash-map order), so tokenizer.json can differ from the app's in the last digits.",
    "# It never finishes when the corpus needs more pieces than vocab_size (its characters and the",
    '# special tokens): the app stops such a run ("stuck") and gives the explorer package\'s program.',
]


def normalizer_expression(names: tuple[str, ...]) -> Expression | None:
    """The library's normalizer for the app's normalizer names (None: none)."""
    if not names:
        return None
    calls = tuple(NORMALIZER_CALLS[name] for name in names)
    return calls[0] if len(calls) == 1 else Call("normalizers.Sequence", (Items(calls),))


def pre_tokenizer_expression(name: str | None) -> Expression | None:
    """The library's pre-tokenizer for the app's name; the split patterns as
    `Sequence([Split(Regex(pattern), "isolated"), ByteLevel(add_prefix_space=False, use_regex=False)])`."""
    if name is None:
        return None
    if name in PRE_TOKENIZER_CALLS:
        return PRE_TOKENIZER_CALLS[name]
    pattern = LIBRARY_PATTERNS[SPLIT_PATTERN_NAMES[name]]
    split = Call(
        "pre_tokenizers.Split",
        (Call("Regex", (literal(pattern),)), literal("isolated")),
    )
    byte_level = "pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)"
    return Call("pre_tokenizers.Sequence", (Items((split, byte_level)),))


def _unk_token(config: RunConfig) -> str | None:
    """The BPE/WordPiece model's unknown token, as explorer.pipeline.assemble.build_tokenizer picks it."""
    if config.algorithm == "wordpiece" or "[UNK]" in config.special_tokens:
        return "[UNK]"
    return None


def library_program(config: RunConfig, corpus: CorpusSource | CorpusFiles) -> str:
    """The `tokenizers` program that trains the library-flavor `config` on `corpus` and saves its
    tokenizer.json in the folder it runs in. ValueError for a course-flavor run."""
    if config.flavor != "library":
        raise ValueError(
            "only a library-flavor run can be written as `tokenizers` code (course: api_program)"
        )
    if config.pre_tokenizer is None:
        raise ValueError("a run without a pre-tokenizer was given words, not a corpus")
    if isinstance(corpus, CorpusSource) and corpus.reading != config.reading:
        raise ValueError(f"the corpus is read as {corpus.reading!r}, the run read {config.reading!r}")
    uses_regex = config.pre_tokenizer not in PRE_TOKENIZER_CALLS
    names = ["Tokenizer", "decoders", "models", "normalizers", "pre_tokenizers", "processors", "trainers"]
    lines = [
        '"""'
        + f"Train this run's tokenizer with the Hugging Face `tokenizers` library: {run_summary(config)}.",
        "",
        "Written by Tokenizer Explorer. Saves tokenizer.json in the current folder.",
        '"""',
        "",
        "import hashlib",
        "from pathlib import Path",
        "",
        f"from tokenizers import {', '.join((['Regex'] if uses_regex else []) + names)}",
        *(["", *corpus.imports()] if corpus.imports() else []),
        "",
        *corpus.corpus_lines(),
        "",
        *corpus.sequence_lines(),
        "",
    ]
    if config.is_unigram:
        lines += _unigram_training(config, corpus.train_statement())
    else:
        lines += _bpe_training(config, corpus.train_statement())
    lines += _assembly(config)
    lines += [
        "",
        'tokenizer.save("tokenizer.json")',
        'print(f"vocabulary of {tokenizer.get_vocab_size():,} tokens -> tokenizer.json")',
    ]
    return "\n".join(lines) + "\n"


def _stages(config: RunConfig) -> list[str]:
    lines = []
    normalizer = normalizer_expression(config.normalizers)
    if normalizer is not None:
        lines.append(assignment("tokenizer.normalizer", normalizer))
    pre_tokenizer = pre_tokenizer_expression(config.pre_tokenizer)
    if pre_tokenizer is not None:
        lines.append(assignment("tokenizer.pre_tokenizer", pre_tokenizer))
    return lines


def _bpe_training(config: RunConfig, train_statement: str) -> list[str]:
    trainer = cast(TrainerConfig, config.trainer)
    unk = _unk_token(config)
    prefix, suffix = trainer.prefix, trainer.suffix
    decoration: list[tuple[str, Expression]] = []
    if prefix is not None:
        decoration.append(("continuing_subword_prefix", literal(prefix)))
    if suffix is not None:
        decoration.append(("end_of_word_suffix", literal(suffix)))
    if config.algorithm == "wordpiece":
        model = Call("models.WordPiece", (), (("unk_token", literal(unk)), *decoration[:1]))
        trainer_class = "trainers.WordPieceTrainer"
    else:
        unknown = (("unk_token", literal(unk)),) if unk is not None else ()
        model = Call("models.BPE", (), (*unknown, *decoration))
        trainer_class = "trainers.BpeTrainer"
    settings: list[tuple[str, Expression]] = [("vocab_size", literal(trainer.vocab_size))]
    if trainer.min_frequency:
        settings.append(("min_frequency", literal(trainer.min_frequency)))
    if trainer.special_tokens:
        settings.append(("special_tokens", Items(tuple(literal(token) for token in trainer.special_tokens))))
    alphabet = trainer.initial_alphabet
    if config.is_byte_level and (not alphabet or tuple(alphabet) == tuple(BYTE_LEVEL_ALPHABET)):
        # The app's byte-level runs start from all 256 byte symbols, as GPT-2's BPE does.
        settings.append(("initial_alphabet", "pre_tokenizers.ByteLevel.alphabet()"))
    elif alphabet:
        settings.append(("initial_alphabet", Items(tuple(literal(symbol) for symbol in alphabet))))
    settings += decoration
    settings.append(("show_progress", "False"))
    ties = DECORATED_TIES if prefix is not None or suffix is not None else [BPE_TIES]
    return [
        assignment("tokenizer", Call("Tokenizer", (model,))),
        *_stages(config),
        assignment("trainer", Call(trainer_class, (), tuple(settings))),
        *ties,
        train_statement,
        *_wordpiece_unknown(config),
    ]


def _wordpiece_unknown(config: RunConfig) -> list[str]:
    """The app's WordPiece always has "[UNK]": when it is not a special token of the run, it is added
    after the trained vocabulary and made a special token (explorer.pipeline.assemble)."""
    if config.algorithm != "wordpiece" or "[UNK]" in config.special_tokens:
        return []
    trainer = cast(TrainerConfig, config.trainer)
    model = Call(
        "models.WordPiece",
        ("vocab",),
        (("unk_token", literal("[UNK]")), ("continuing_subword_prefix", literal(trainer.prefix))),
    )
    return [
        "# The app's WordPiece model always has an unknown token: '[UNK]', after the trained vocabulary.",
        "vocab = tokenizer.get_vocab(with_added_tokens=False)",
        'if "[UNK]" not in vocab:',
        '    vocab["[UNK]"] = len(vocab)',
        assignment("tokenizer.model", model),
        'tokenizer.add_special_tokens(["[UNK]"])',
    ]


def _unigram_training(config: RunConfig, train_statement: str) -> list[str]:
    trainer = cast(UnigramConfig, config.trainer)
    settings: list[tuple[str, Expression]] = [("vocab_size", literal(trainer.vocab_size))]
    if trainer.special_tokens:
        settings.append(("special_tokens", Items(tuple(literal(token) for token in trainer.special_tokens))))
    settings += [
        ("unk_token", literal(trainer.unk_token)),
        ("shrinking_factor", literal(trainer.shrinking_factor)),
        ("n_sub_iterations", literal(trainer.n_sub_iterations)),
        ("max_piece_length", literal(trainer.max_piece_length)),
        ("seed_size", literal(trainer.seed_size)),
        ("show_progress", "False"),
    ]
    return [
        "tokenizer = Tokenizer(models.Unigram())",
        *_stages(config),
        assignment("trainer", Call("trainers.UnigramTrainer", (), tuple(settings))),
        *UNIGRAM_TIES,
        train_statement,
    ]


def _assembly(config: RunConfig) -> list[str]:
    """The decoder and post-processor the app puts around the trained model."""
    decoder = None
    if config.is_unigram and config.pre_tokenizer == "metaspace":
        decoder = "decoders.Metaspace()"
    elif is_byte_level(config.pre_tokenizer):
        decoder = "decoders.ByteLevel()"
    elif config.is_unigram:
        decoder = None
    elif config.algorithm == "wordpiece":
        decoder = statement(
            Call("decoders.WordPiece", (), (("prefix", literal(cast(TrainerConfig, config.trainer).prefix)),))
        )
    elif config.suffix:
        decoder = statement(Call("decoders.BPEDecoder", (), (("suffix", literal(config.suffix)),)))
    lines = ["", "# Around the trained model, as the app assembles it:"]
    if decoder is not None:
        lines.append(f"tokenizer.decoder = {decoder}")
    else:
        lines.append("# no decoder (tokens are joined with spaces when decoding).")
    if "[CLS]" in config.special_tokens and "[SEP]" in config.special_tokens:
        lines.append(
            assignment(
                "tokenizer.post_processor",
                Call(
                    "processors.TemplateProcessing",
                    (),
                    (
                        ("single", literal("[CLS] $A [SEP]")),
                        ("pair", literal("[CLS] $A [SEP] $B:1 [SEP]:1")),
                        (
                            "special_tokens",
                            Items(
                                tuple(
                                    Items((literal(token), f"tokenizer.token_to_id({literal(token)})"), "()")
                                    for token in ("[CLS]", "[SEP]")
                                )
                            ),
                        ),
                    ),
                ),
            )
        )
    else:
        lines.append("# no post-processor ([CLS] and [SEP] are not both special tokens).")
    return lines
