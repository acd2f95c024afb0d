"""What the AppTest tests share: the app's pages, a session opened on a link, training that waits
for its job, and the page read back as the visitor sees it (metrics, HTML bodies, charts,
messages).

Training runs in a worker (explorer.ui.common.training): a click on Train waits briefly and then hands
over to a poller, so `click` reruns the app (each run one tick of the poller) until the session's
job is collected, bounded by TRAIN_WAIT_SECONDS. Messages that hold user text are
Markdown-escaped by the app (`markdown_literal`); `texts` and `joined` read them back unescaped.
Compare's text box is a v2 component (explorer.ui.common.live_text), not a widget AppTest knows:
`type_compare_text` types into it the way the browser does, through the box's own state.

What it does not do: start a server or a browser (tests/browser/ does), or change a limit (the
tests set the EXPLORER_* variables themselves with monkeypatch).
"""

from __future__ import annotations

import ast
import html
import json
import re
import time
from html.parser import HTMLParser

from streamlit.testing.v1 import AppTest

from explorer.compare.warm import wait_all
from explorer.drawing.markdown_literal import WORD_JOINER
from explorer.ui.common.live_text import box_state_key
from explorer.ui.common.state import CURRENT_RUN, JOB, MEASURE_JOBS, PLAYER_ACK
from explorer.ui.common.state import Widget as W
from tests import ROOT

APP = str(ROOT / "app.py")
TRAIN = "app.py"  # switch_page names pages by their path from the app's folder
MERGES = "pages/1_Merge_history.py"
VOCABULARY = "pages/2_Vocabulary.py"
COMPARE = "pages/3_Compare.py"
PAGES = (MERGES, VOCABULARY, COMPARE)
TRAIN_WAIT_SECONDS = 120
# A time limit (EXPLORER_MAX_SECONDS) for a test that presses Stop: no loaded machine reaches it
# first. Under the default 60 s of the worker's wall time, a slowed training that a loaded machine
# had not brought to its Stop in time ended "by the time limit (60 s)" where "the Stop button" was
# meant (the Unigram one reached its first round about 5 s after its start at a load of 5).
STOP_BEFORE_SECONDS = str(30 * TRAIN_WAIT_SECONDS)


def new_app(query: dict[str, str] | None = None, page: str | None = None) -> AppTest:
    """A new session (a new visitor) opened on `page` (Train by default) with the link's `query`
    (on Compare, once its columns are loaded and its figures measured)."""
    at = AppTest.from_file(APP, default_timeout=TRAIN_WAIT_SECONDS)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    if page:
        at.switch_page(page)
    at.run()
    assert not at.exception, at.exception
    return compare_settled(at) if page == COMPARE else at


# ---------------------------------------------------------------- training


def session_value(at: AppTest, key: str):
    """The session's value for `key`, or None when it has none."""
    return at.session_state[key] if key in at.session_state else None


def job_running(at: AppTest) -> bool:
    return session_value(at, JOB) is not None


def learning(at: AppTest, steps: int = 1) -> bool:
    """Whether the session's job trains in a worker and has reported at least `steps` merges (or
    Unigram rounds): an event to wait for before pressing Stop, so that even on a loaded machine
    there is something to keep (a Stop before the first merge is a run with nothing learned)."""
    job = session_value(at, JOB)
    if job is None or job.job.state != "running":
        return False
    progress = job.job.progress
    return progress.get("phase") == "training" and progress.get("step", 0) >= steps


def settle(at: AppTest, seconds: float = TRAIN_WAIT_SECONDS) -> AppTest:
    """Wait for the end of the session's training job (the worker's message), then rerun (a tick
    of the page's poller) to collect it; again while a job follows it."""
    deadline = time.monotonic() + seconds
    while job_running(at):
        remaining = deadline - time.monotonic()
        assert remaining > 0, f"training still running after {seconds} s"
        session_value(at, JOB).job.wait(remaining)
        at.run()
    assert not at.exception, at.exception
    return at


def collect(at: AppTest, jobs_key: str, seconds: float = TRAIN_WAIT_SECONDS) -> AppTest:
    """Wait for the end of every job the session holds under `jobs_key` ({key: JobHandle}, as
    state.AUDIT_JOBS, MEASURE_JOBS and OVERLAP_JOBS: the worker's message), then rerun (a tick of
    the page's poller) to collect them; again while that run asked for more. (A finished job may
    stay held, as a measurement of a column no longer shown: only running ones are waited for.)"""
    deadline = time.monotonic() + seconds

    def running() -> list:
        return [handle for handle in (session_value(at, jobs_key) or {}).values() if not handle.job.finished]

    while True:
        for handle in running():
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"{jobs_key}: still running after {seconds} s"
            handle.job.wait(remaining)
        at.run()
        assert not at.exception, at.exception
        if not running():
            return at


def click(at: AppTest, key: str) -> AppTest:
    """Click the button `key` and wait for any training it started."""
    at.button(key=key).click().run()
    assert not at.exception, at.exception
    return settle(at)


HISTORY_SECTIONS = (W.SECTION_CHARTS, W.SECTION_TREE, W.SECTION_COURSE, W.SECTION_STEPS)
COMPARE_SECTIONS = (W.SECTION_FIGURES_CHART, W.SECTION_CURVE, W.SECTION_OVERLAP)


def open_sections(at: AppTest, *keys: str) -> AppTest:
    """Open the closed sections (st.expander) keyed `keys` (Merge history's when none is given),
    as clicks on their labels do: a section's content is drawn only while it is open
    (explorer.ui.common.frame.section)."""
    for key in keys or HISTORY_SECTIONS:
        at.session_state[key] = True
    at.run()
    assert not at.exception, at.exception
    return at


def train(at: AppTest) -> AppTest:
    """Click Train and wait for the run."""
    return click(at, W.TRAIN)


def run_of(at: AppTest):
    """The run every page shows (explorer.runs.run.Run), or None."""
    return session_value(at, CURRENT_RUN)


def query(at: AppTest) -> dict[str, str]:
    """The page's link: its query parameters."""
    return {key: at.query_params[key] for key in at.query_params}


# ---------------------------------------------------------------- Compare's live text box


def type_compare_text(at: AppTest, text: str) -> AppTest:
    """Type `text` into Compare's live box: its state ({"text": ...}) as the browser sets it, then
    a run (in AppTest the fragment's rerun is a whole run), and another once the columns whose
    vocabulary was still loading are loaded (`columns_loaded`)."""
    at.session_state[box_state_key(W.SENTENCES)] = {"text": text}
    at.run()
    assert not at.exception, at.exception
    return columns_loaded(at)


def open_compare(at: AppTest) -> AppTest:
    """Move to Compare (as the sidebar does) and wait for what it draws when ready (`compare_settled`)."""
    at.switch_page(COMPARE).run()
    return compare_settled(at)


def compare_settled(at: AppTest) -> AppTest:
    """Compare once its columns' vocabularies are loaded (`columns_loaded`) and its figures on the
    training corpus measured in the workers (the page never waits for them: its poller reruns it)."""
    columns_loaded(at)
    if session_value(at, MEASURE_JOBS):  # held: running, or finished since the run and not drawn yet
        collect(at, MEASURE_JOBS)
    return at


def columns_loaded(at: AppTest) -> AppTest:
    """While a Compare column says its vocabulary is still loading: wait for the loads, then run
    the page again (in the browser the live box asks for that run: explorer.ui.common.live_text)."""
    for _ in range(3):
        if not any("column-loading" in body for body in html_bodies(at)):
            break
        wait_all(TRAIN_WAIT_SECONDS)
        at.run()
        assert not at.exception, at.exception
    return at


def compare_text(at: AppTest) -> str | None:
    """Compare's text as the page holds it (what the live box last reported)."""
    return session_value(at, W.SENTENCES)


def component_data(at: AppTest, name: str) -> list[dict]:
    """The data each v2 component called `name` was drawn with in the last run: the live box's
    ("explorer_live_text": the text it starts from, its limits), the counts' ("explorer_token_counts")."""
    return [
        json.loads(element.proto.json)
        for element in at.get("bidi_component")
        if element.proto.component_name == name
    ]


# ---------------------------------------------------------------- the page, read back


def metrics(at: AppTest) -> dict[str, str]:
    """The summary's metrics, and its stop reason (a sentence: a metric would cut it off)."""
    summary = {metric.label: metric.value for metric in at.metric}
    for element in at.markdown:
        found = re.fullmatch(r"Stop reason: \*\*(.*)\*\*", str(element.value))
        if found:
            summary["Stop reason"] = found.group(1)
    return summary


def html_bodies(at: AppTest) -> list[str]:
    """Every piece of HTML the page drew: with `st.html`, and with the fast view of the parts that
    follow each keystroke (explorer.ui.common.html_view: Compare's live columns and diff)."""
    drawn = [element.proto.body for element in at.get("html")]
    views = [
        data["html"] if "html" in data else "".join(html for _, html in data["parts"])
        for data in component_data(at, "explorer_html_view")
    ]
    return drawn + views + [data["line_html"] for data in component_data(at, "explorer_player")]


# ---------------------------------------------------------------- the merge player


def html_table(body: str) -> list[dict]:
    """The rows of the first HTML table in `body`, each a dict by column heading: a cell's
    `data-value` read as a Python literal when it has one (the exact number), else its text."""

    class Reader(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.headings: list[str] = []
            self.rows: list[list] = []
            self.cell: list[str] | None = None
            self.value: str | None = None
            self.in_head = False

        def handle_starttag(self, tag, attrs):
            if tag == "thead":
                self.in_head = True
            elif tag == "tr" and not self.in_head:
                self.rows.append([])
            elif tag in ("th", "td"):
                self.cell, self.value = [], dict(attrs).get("data-value")

        def handle_endtag(self, tag):
            if tag == "thead":
                self.in_head = False
            elif tag in ("th", "td") and self.cell is not None:
                text = "".join(self.cell)
                if self.in_head:
                    self.headings.append(text)
                else:
                    self.rows[-1].append(ast.literal_eval(self.value) if self.value is not None else text)
                self.cell = None

        def handle_data(self, data):
            if self.cell is not None:
                self.cell.append(data)

    reader = Reader()
    reader.feed(body)
    return [dict(zip(reader.headings, row)) for row in reader.rows]


def player(at: AppTest) -> dict:
    """What the player's transport was drawn with in the last run (explorer.ui.history.player):
    its `step`, `steps`, `playing`, `label`, the step's line (`line_html`), `interval_ms`,
    `per_tick`."""
    (data,) = component_data(at, "explorer_player")
    return data


def player_act(at: AppTest, step: int, playing: bool = False) -> dict:
    """One action of the transport, as the browser sends it (a press, a slider move, a tick), and
    the player drawn after it."""
    seq = (session_value(at, PLAYER_ACK) or 0) + 1
    at.session_state[W.PLAYER] = {"action": {"seq": seq, "step": step, "playing": playing}}
    at.run()
    assert not at.exception, at.exception
    return player(at)


def player_tick(at: AppTest) -> dict:
    """The browser clock's next tick: the shown step moved on by the speed's steps per tick."""
    shown = player(at)
    step = min(shown["steps"], shown["step"] + shown["per_tick"])
    return player_act(at, step, step < shown["steps"])


def column_token_counts(at: AppTest) -> list[int]:
    """The "Tokens" count at the top of each Compare column, in page order."""
    return [
        int(found.replace(",", ""))
        for body in html_bodies(at)
        for found in re.findall(r'<div class="column-count">Tokens<b>([\d,]+)</b>', body)
    ]


def compare_column_bodies(at: AppTest) -> dict[str, str]:
    """The token-span HTML of each Compare column, by its data-tokenizer name (the live columns are
    one view: each `.live-column` is read on its own)."""
    columns = {}
    for body in html_bodies(at):
        for part in body.split('<div class="live-column">'):
            match = re.search(r'class="compare-column" data-tokenizer="([^"]*)"', part)
            if match:
                columns[match[1]] = part
    return columns


def sentence_figures(at: AppTest) -> dict[str, dict[str, float]]:
    """Compare's "Figures on this text" table: each row's tokenizer (as the visitor reads it) and
    its figures by heading, the exact values of the cells' data-value."""
    for body in html_bodies(at):
        if 'class="figures-table"' not in body:
            continue
        labels = [html.unescape(label) for label in re.findall(r"<th title=\"[^\"]*\">([^<]*)</th>", body)]
        return {
            html.unescape(name): dict(zip(labels, map(float, re.findall(r'<td data-value="([^"]*)"', row))))
            for name, row in re.findall(r'<tr data-tokenizer="([^"]*)">(.*?)</tr>', body)
        }
    raise AssertionError("no figures table on the page")


def column_errors(at: AppTest) -> list[str]:
    """What the live columns that cannot encode say in their place, as the visitor reads it."""
    return [
        html.unescape(found)
        for body in html_bodies(at)
        for found in re.findall(r'<div class="column-error" role="alert">([^<]*)</div>', body)
    ]


def plotly_specs(at: AppTest) -> list[dict]:
    return [json.loads(element.proto.spec) for element in at.get("plotly_chart")]


def messages(at: AppTest, kind: str) -> str:
    """The messages of one kind ("error", "warning", "info", ...) as Streamlit received them."""
    return " ".join(str(element.value) for element in getattr(at, kind))


def texts(at: AppTest, kind: str) -> list[str]:
    """The messages of one kind ("error", "warning", "info", "caption") as the visitor reads them."""
    return [literal_from_markdown(str(element.value)) for element in getattr(at, kind)]


def joined(at: AppTest, kind: str) -> str:
    return " | ".join(texts(at, kind))


def literal_from_markdown(markdown: str) -> str:
    """The text `markdown_literal` was given, read back from a message (backslashes and word
    joiners taken out)."""
    return re.sub(r"\\(.)", r"\1", markdown.replace(WORD_JOINER, ""), flags=re.DOTALL)
