"""explorer.work.admission: page runs admitted a few at a time, a place given back while waiting,
and a run that waited too long going anyway. Threads wait for events (barriers, events), never for
a fixed interval."""

from __future__ import annotations

import ast
import threading

import pytest

from explorer.work import admission
from tests import ROOT


@pytest.fixture
def places(monkeypatch):
    """A fresh semaphore of 2 places for each test."""
    monkeypatch.setattr(admission, "_places", threading.Semaphore(2))
    return admission


def test_the_setting_is_a_whole_number_of_at_least_one_else_the_default(caplog):
    assert admission.page_runs_setting({}) == admission.DEFAULT_PAGE_RUNS
    assert admission.page_runs_setting({"EXPLORER_PAGE_RUNS": " 5 "}) == 5
    for bad in ("0", "-1", "two", "1.5"):
        assert admission.page_runs_setting({"EXPLORER_PAGE_RUNS": bad}) == admission.DEFAULT_PAGE_RUNS
    assert "EXPLORER_PAGE_RUNS must be a whole number" in caplog.text


def test_a_third_run_waits_until_one_of_two_ends(places):
    inside, release = threading.Barrier(3), threading.Event()
    entered: list[str] = []
    third_in = threading.Event()

    def hold(name: str) -> None:
        with places.page_run():
            entered.append(name)
            inside.wait()
            release.wait()

    def third() -> None:
        with places.page_run():
            entered.append("third")
            third_in.set()

    first = [threading.Thread(target=hold, args=(name,)) for name in ("a", "b")]
    for thread in first:
        thread.start()
    inside.wait()  # both runs are inside
    waiting = threading.Thread(target=third)
    waiting.start()
    assert not third_in.wait(0.2)  # no place free: it has not entered
    assert entered == ["a", "b"] or entered == ["b", "a"]
    release.set()
    assert third_in.wait(30)
    for thread in (*first, waiting):
        thread.join(30)
    assert sorted(entered) == ["a", "b", "third"]
    assert places._places.acquire(blocking=False) and places._places.acquire(blocking=False)  # both back


def test_set_aside_lends_the_place_and_takes_one_again(places):
    with places.page_run():
        assert places.holds_place()
        places._places.acquire()  # the other place is taken: only ours is left
        with places.set_aside():
            assert not places.holds_place()
            assert places._places.acquire(blocking=False)  # another run can have it now
            places._places.release()
        assert places.holds_place()
        places._places.release()
    assert not places.holds_place()


def test_a_nested_page_run_takes_no_second_place_and_errors_give_it_back(places):
    with pytest.raises(RuntimeError):
        with places.page_run():
            with places.page_run():
                assert places._places.acquire(blocking=False)  # one of two places is still free
                places._places.release()
            assert places.holds_place()
            raise RuntimeError("a page failed")
    assert not places.holds_place()
    assert places._places.acquire(blocking=False) and places._places.acquire(blocking=False)


def test_a_run_that_waited_too_long_goes_without_a_place(places, monkeypatch, caplog):
    monkeypatch.setattr(places, "MAX_WAIT_SECONDS", 0.01)
    places._places.acquire()
    places._places.acquire()  # both places held, never given back
    with places.page_run():
        assert not places.holds_place()
    assert "goes without one" in caplog.text
    assert not places._places.acquire(blocking=False)  # nothing was released that was not taken


PAGE_SCRIPTS = ("app.py", "pages/1_Merge_history.py", "pages/2_Vocabulary.py", "pages/3_Compare.py")


@pytest.mark.parametrize("script", PAGE_SCRIPTS)
def test_every_page_runs_inside_one_admitted_block(script):
    """A page's whole run is admitted: its script is imports and constants, then one
    `with frame.page(...):` block holding everything else (explorer.ui.common.frame.page)."""
    tree = ast.parse((ROOT / script).read_text(encoding="utf-8"))
    rest = [
        node
        for node in tree.body
        if not isinstance(node, (ast.Import, ast.ImportFrom))
        and not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))  # the docstring
        and not (isinstance(node, ast.Assign) and isinstance(node.value, (ast.Constant, ast.Attribute)))
    ]
    assert len(rest) == 1 and isinstance(rest[0], ast.With), [ast.unparse(node)[:60] for node in rest]
    assert ast.unparse(rest[0].items[0].context_expr.func) == "frame.page"
    assert sorted(str(path.relative_to(ROOT)) for path in (ROOT / "pages").glob("*.py")) == sorted(
        PAGE_SCRIPTS[1:]
    )
