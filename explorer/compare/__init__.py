"""Comparing tokenizers: the Compare page's data, one idea a module.

- `columns`: each tokenizer as a `TokenizerColumn` (a name plus `encode(text) -> pieces`): our runs
  and uploads (`tokenizer_column`), the bundled pretrained ones (`pretrained_column`), SentencePiece
  models (`sentencepiece_column`).
- `encoders`: fast batch encoders for a whole corpus (tiktoken, the `tokenizers` library).
- `measure`: `metrics` figures over a corpus (`measure_corpus`, timed, in bounded batches); the
  live figures on the page's text come from the columns' own encodings (explorer.ui.compare.live_columns).
- `research`: the vocabulary audit's research figures of a column on a corpus
  (`column_research`: Rényi efficiency, unreachable and unused counts, tokens per script), run in
  a worker beside `measure_corpus`.
- `diff`: where two tokenizers cut one text differently (`boundary_diff`, `diff_summary`).
- `curve`: a trained run's figures against vocabulary size, read from its MergeHistory (`metrics_curve`).
- `readers` and `uploads`: uploaded tokenizer.json, vocab.txt, vocab.json + merges.txt and
  SentencePiece files read into tokenizers (`read_uploads`).
- `html`: the token columns (with their headers) and the boundary diff as escaped HTML with
  classes (`explorer.drawing.stylesheet`).
- `picker`: the model picker's order, labels and first selection (grouped by family).
- `decode`: token ids back to text for our tokenizers and library-only uploads (`Decoding`s, as
  explorer.pretrained gives for the bundled ones), and their HTML.

The names most modules use are importable from the package itself; the others from their module.

What it does not do: import streamlit, cache (but `research`, its unreachable counts per
tokenizer in the worker process), or time anything but `measure_corpus`; train
(explorer.train) or define the metrics (explorer.measures.metrics).
"""

from explorer.compare.columns import TokenizerColumn, pretrained_column, tokenizer_column
from explorer.compare.measure import measure_corpus
from explorer.compare.readers import UploadedFile, UploadedTokenizer
from explorer.compare.uploads import read_uploads

__all__ = [
    "TokenizerColumn",
    "UploadedFile",
    "UploadedTokenizer",
    "measure_corpus",
    "pretrained_column",
    "read_uploads",
    "tokenizer_column",
]
