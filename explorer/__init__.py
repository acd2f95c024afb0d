"""Tokenizer Explorer core: pure-Python BPE, WordPiece and Unigram training that records its history.

The package is the pipeline: normalizers -> pre_tokenizers -> trainers (which emit a Trace or a
UnigramTrace) -> models (encode with offsets) -> decoders, with hf_json for tokenizer.json in and
out; pipeline.py runs it end to end. The README's "How it works" lists every module by stage. It
never imports streamlit; the web app's glue lives in explorer/ui/ only.
"""
