"""Everything a visitor can type, paste or upload, checked before it reaches the pipeline.

The app and the CLI share these pure functions (no streamlit here), so a bad input gets the same
clear sentence in both: what was found, and what to do about it.

- `limits`: `Limits` (the hosted demo's bounds, from the environment), `Budget` (a run's time and
  step budget), `InputError`, `MB`.
- `corpus_file`: `decode_upload`, an uploaded file's text, or what the file looks like instead.
- `corpus`: `check_corpus` (a `Check` of errors and warnings), `corpus_prefix` / `sample_lines`
  to shrink a corpus that is too large, `utf8_size` / `format_size`.
- `json_text`: `load_json`, JSON read within a nesting depth and a size bound
  (`check_json_bounds`, `MAX_JSON_DEPTH`, `MAX_JSON_CHARACTERS`).

Every name above can be imported from the package itself. The checks of training settings (special
tokens, vocabulary size, Unigram's own) are explorer.training.settings_checks: they need the
pipeline. This package is the lowest layer: it imports nothing else from explorer at run time.

What it does not do: render messages (the app and the CLI do), read files, or change a corpus on
its own (shrinking is the visitor's choice, offered by the app).
"""

from explorer.checks.corpus import (
    SAMPLE_BYTES,
    SAMPLE_SEED,
    Check,
    check_corpus,
    corpus_prefix,
    corpus_sample,
    format_size,
    over_size,
    sample_lines,
    sampled_text,
    utf8_size,
)
from explorer.checks.corpus_file import decode_upload
from explorer.checks.json_text import MAX_JSON_CHARACTERS, MAX_JSON_DEPTH, check_json_bounds, load_json
from explorer.checks.limits import MB, Budget, InputError, Limits

__all__ = [
    "MAX_JSON_CHARACTERS",
    "MAX_JSON_DEPTH",
    "MB",
    "Budget",
    "Check",
    "InputError",
    "Limits",
    "check_corpus",
    "check_json_bounds",
    "corpus_prefix",
    "corpus_sample",
    "SAMPLE_BYTES",
    "SAMPLE_SEED",
    "sampled_text",
    "decode_upload",
    "format_size",
    "load_json",
    "sample_lines",
    "over_size",
    "utf8_size",
]
