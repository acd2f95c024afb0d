"""The encoding pipeline, stage by stage, exactly like the `tokenizers` library's: normalizers ->
pre_tokenizers -> models (BPE, WordPiece, Unigram: encode with offsets) -> processors (special-token
templates) -> decoders; `tokenizer` chains them, `encoding` is what it returns, `tokenizer_json`
reads and writes tokenizer.json (and vocab.json + merges.txt, vocab.txt), `assemble` builds a
Tokenizer around a trainer's output.

What it does not do: train (explorer/training/) or draw anything (explorer/drawing/).
"""
