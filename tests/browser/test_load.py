"""A small load test in a real browser: three sessions train tiny corpora on one server at the same
time; all finish without an error box and none sees another's corpus (its marker word) on any
page or in its vocabulary CSV. The full version, with figures, is bench/load_test.py.

Marked `browser` (Debian's Chromium through Playwright; skipped with a message without it).
"""

from __future__ import annotations

import asyncio

import pytest

from bench.load_test import run_sessions

pytestmark = pytest.mark.browser

SESSIONS = 3
TIMEOUT_SECONDS = 150


def test_three_sessions_at_once_keep_their_corpora_to_themselves(server):
    results = asyncio.run(
        run_sessions(server, sessions=SESSIONS, words=600, vocab=300, timeout=TIMEOUT_SECONDS)
    )
    assert len(results) == SESSIONS
    for result in results:
        assert not result.problems, f"session {result.index} ({result.marker}): {result.problems}"
        assert result.pages_checked == 4  # Train, Merge history, Vocabulary, Compare
