"""The tests, one folder per kind (a package, so that every module has a name of its own):

- unit/: our own code alone, checked on cases worked out by hand or by its invariants.
- parity/: exactness against a reference: the installed `tokenizers` library, tiktoken,
  SentencePiece, the course notebooks' printed outputs (the seeds) and the simple reference
  implementations in reference/.
- app/: the Streamlit app through AppTest (no browser); what they share in app/helpers.py.
- browser/: the app in a real Chromium (marker `browser`); the fixtures in browser/conftest.py,
  the plain helpers (also used by bench/ and docs/) in browser/helpers.py.
- reference/: the slow, obviously-faithful reference implementations (not tests themselves).
- helpers/: what tests of several folders share (the seed files, worker tasks, waiting on
  processes).

conftest.py (here) gives every test session a run store of its own; test_bench_smoke.py (here)
runs every bench/ script in its --smoke mode, so that none can rot.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the repository
