"""An exception no page caught is one sentence on the page, never Streamlit's traceback box
(explorer.ui.common.frame installs the script run's error handler); st.stop and st.rerun still work."""

from __future__ import annotations

import inspect
import textwrap

from streamlit.testing.v1 import AppTest

from explorer.ui.common.frame import UNEXPECTED
from tests import ROOT


def app_of(function, folder) -> AppTest:
    """`function`'s body as the entry script `app.py` in `folder`, beside a link to the app's pages
    (the sidebar links to them by path, relative to the entry script)."""
    (folder / "pages").symlink_to(ROOT / "pages")
    script = folder / "app.py"
    body = inspect.getsource(function).split("\n", 1)[1]
    script.write_text(textwrap.dedent(body), encoding="utf-8")
    return AppTest.from_file(str(script), default_timeout=30).run()


def page_that_fails():
    from explorer.ui.common import frame

    with frame.page("Failing"):
        raise RecursionError("maximum recursion depth exceeded in /srv/explorer/secret_path.py")


def page_that_stops():
    import streamlit as st

    from explorer.ui.common import frame

    with frame.page("Stopping"):
        st.write("before the stop")
        st.stop()
        st.write("after the stop")


def page_that_reruns_once():
    import streamlit as st

    from explorer.ui.common import frame

    with frame.page("Rerunning"):
        if not st.session_state.get("reran"):
            st.session_state["reran"] = True
            st.rerun()
        st.write("after the rerun")


def test_an_uncaught_exception_is_one_sentence_without_server_paths(tmp_path):
    at = app_of(page_that_fails, tmp_path)
    assert not at.exception, at.exception
    assert [error.value for error in at.error] == [UNEXPECTED.format(kind="RecursionError")]
    assert "secret_path" not in at.error[0].value


def test_st_stop_passes_through_the_handler(tmp_path):
    at = app_of(page_that_stops, tmp_path)
    assert not at.exception and not at.error
    shown = [text.value for text in at.main.markdown]
    assert "before the stop" in shown and "after the stop" not in shown


def test_st_rerun_passes_through_the_handler(tmp_path):
    at = app_of(page_that_reruns_once, tmp_path)
    assert not at.exception and not at.error
    assert "after the rerun" in [text.value for text in at.main.markdown]
