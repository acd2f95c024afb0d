"""Tokenizer Explorer core: pure-Python BPE and WordPiece training that records its history.

The package is the pipeline: normalizers -> pre_tokenizers -> trainers (which emit a Trace) ->
models (encode/decode with offsets) -> hf_json (tokenizer.json in and out). It never imports
streamlit; the web app's glue lives in explorer/ui/ only.
"""
