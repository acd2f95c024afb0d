"""A corpus uploaded on the Train page: read once per file, whatever the reruns after it; shown in
place of the text area it replaces; a file over the uploader's limit pointed to the command line."""

from __future__ import annotations

import contextlib
import gc
import hashlib
import html
import weakref
from collections import Counter

import pytest
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager

from explorer.drawing.wording import character_count
from explorer.samples import SAMPLES
from explorer.session import serving
from explorer.training import engines
from explorer.ui.common import abandoned, state, training
from explorer.ui.common.state import CURRENT_RUN
from explorer.ui.common.state import Widget as W
from explorer.ui.train import corpus_input
from tests.app.helpers import click, html_bodies, joined, metrics, new_app, session_value

JAPANESE = "".join(f"吾輩は猫である。名前はまだ無い。{index}\n" for index in range(3_000))


def notes(at) -> list[str]:
    """The page's notes (`frame.note`), as text."""
    return [html.unescape(body) for body in html_bodies(at) if 'class="note"' in body]


@pytest.fixture
def counted(monkeypatch) -> Counter:
    """How often the work on a corpus's whole text is done: decoding the file, digesting, checking
    and counting its characters."""
    calls: Counter = Counter()

    def counting(module, name):
        original = getattr(module, name)

        def wrapper(*args, **kwargs):
            calls[name] += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(module, name, wrapper)

    counting(corpus_input, "decode_upload")
    counting(corpus_input, "character_count")
    counting(state, "corpus_digest")
    counting(training, "check_corpus")
    return calls


def test_an_upload_is_read_once_and_reruns_after_it_do_no_work_on_its_text(counted):
    at = new_app()
    counted.clear()  # the first view checked the sample the form starts with
    at.file_uploader(key=W.UPLOAD).upload("neko.txt", JAPANESE.encode(), "text/plain").run()
    assert not at.exception, at.exception
    assert counted == Counter(decode_upload=1, corpus_digest=1, check_corpus=1)
    at.number_input(key=W.VOCAB_NUMBER).set_value(300).run()
    at.radio(key=W.ALGORITHM).set_value("unigram").run()
    at.slider(key=W.VOCAB_SLIDER).set_value(400).run()
    assert not at.exception, at.exception
    assert counted == Counter(decode_upload=1, corpus_digest=1, check_corpus=1)


def test_an_upload_in_use_replaces_the_text_area_until_it_is_forgotten():
    at = new_app()
    at.file_uploader(key=W.UPLOAD).upload("neko.txt", JAPANESE.encode(), "text/plain").run()
    assert not at.text_area  # the sample's paragraph no longer shows beside the file that is used
    assert any(
        "Using the uploaded file 'neko.txt' (0.2 MB, 3,000 lines) as the corpus." in note
        for note in notes(at)
    )
    click(at, W.FORGET_UPLOAD)
    assert at.text_area(key=W.CORPUS).value == SAMPLES["scarlet"].text
    at.number_input(key=W.VOCAB_NUMBER).set_value(300).run()  # the file is still in the uploader
    assert at.text_area(key=W.CORPUS).value == SAMPLES["scarlet"].text
    assert not any("neko.txt" in note for note in notes(at))
    click(at, W.TRAIN)
    assert session_value(at, CURRENT_RUN).sample_key == "scarlet"


def test_the_uploaders_limit_and_the_command_line_are_said_beside_it(monkeypatch):
    monkeypatch.setenv("EXPLORER_MAX_UPLOAD_MB", "7")
    at = new_app()
    assert (
        at.file_uploader(key=W.UPLOAD).label
        == "Or upload a .txt file (UTF-8) or a count file (.parquet), up to 7 MB"
    )
    assert 'A file over 7 MB: train it with the command line, "python -m explorer train FILE' in joined(
        at, "caption"
    )


def test_an_upload_is_read_and_checked_under_a_spinner(monkeypatch):
    """A 49 MB file takes seconds to read and check: the page says so while it works (the
    spinner shows after half a second), the file's name escaped."""
    spinners: list[str] = []
    worked: list[str] = []
    spinner = corpus_input.st.spinner

    @contextlib.contextmanager
    def recorded(text, *args, **kwargs):
        spinners.append(text)
        with spinner(text, *args, **kwargs):
            yield
        spinners.append("")

    def note(name, module):
        original = getattr(module, name)
        monkeypatch.setattr(
            module, name, lambda *a: (worked.append(f"{name} in {spinners[-1]!r}"), original(*a))[1]
        )

    monkeypatch.setattr(corpus_input.st, "spinner", recorded)
    note("read_upload", corpus_input)
    note("check_corpus", training)
    at = new_app()
    worked.clear()
    at.file_uploader(key=W.UPLOAD).upload("*neko*.txt", JAPANESE.encode(), "text/plain").run()
    assert not at.exception, at.exception
    assert worked == [
        "read_upload in 'Reading \\\\*neko\\\\*.txt (0.2 MB)...'",
        "check_corpus in 'Checking the corpus...'",
    ]


def test_the_server_lets_go_of_streamlits_copy_of_a_file_once_read(monkeypatch):
    """The session keeps the upload's text; Streamlit's copy of its bytes (49 MB for a 49 MB file,
    for as long as the session lasts) is dropped as the uploader's "x" drops it. (AppTest uploads
    the file again before every run, so the uploader's value cannot show it.)"""
    dropped = []
    remove_file = MemoryUploadedFileManager.remove_file
    monkeypatch.setattr(
        MemoryUploadedFileManager,
        "remove_file",
        lambda manager, session, file_id: (dropped.append(file_id), remove_file(manager, session, file_id))[
            1
        ],
    )
    at = new_app()
    at.file_uploader(key=W.UPLOAD).upload("neko.txt", JAPANESE.encode(), "text/plain").run()
    assert dropped == [session_value(at, W.UPLOAD).file_id]
    at.number_input(key=W.VOCAB_NUMBER).set_value(300).run()
    assert len(dropped) == 1  # read once, let go once
    click(at, W.TRAIN)
    assert session_value(at, CURRENT_RUN).corpus_label == "neko.txt"


class Connections:
    """What the abandoned-session watcher asks Streamlit's runtime: which sessions are connected."""

    def __init__(self):
        self.connected = True

    def is_active_session(self, session_id: str) -> bool:
        return self.connected


def test_a_closed_tabs_upload_is_let_go_and_the_memory_given_back(monkeypatch):
    """Once the visitor has gone (the watcher finds the session away for the grace period), the
    session no longer holds its upload's text, though Streamlit keeps the session for minutes; and
    the C library is asked to give the freed memory back."""
    connections, given_back = Connections(), []
    monkeypatch.setattr(abandoned, "_runtime", lambda: connections)
    monkeypatch.setattr(serving, "give_memory_back", lambda: given_back.append(True))
    monkeypatch.setenv("EXPLORER_ABANDONED_SECONDS", "0")
    at = new_app()
    at.file_uploader(key=W.UPLOAD).upload("neko.txt", JAPANESE.encode(), "text/plain").run()
    upload = weakref.ref(session_value(at, state.UPLOADED_CORPUS))
    assert upload() is not None and upload().corpus.text == JAPANESE
    abandoned.look(connections)  # still there: nothing is let go
    assert upload() is not None and not given_back
    connections.connected = False
    abandoned.look(connections)  # seen away
    abandoned.look(connections)  # away for the grace period (0 s here)
    gc.collect()
    assert upload() is None and given_back == [True]
    assert session_value(at, state.UPLOADED_CORPUS) is None


OVER_THE_PYTHON_LIMIT = "".join(f"uploaded line {index} with words w{index % 97}\n" for index in range(4_000))


@pytest.mark.parametrize("engine", ["rust", "python"])
def test_an_upload_over_the_python_engines_limit_trains_in_full_on_the_compiled_engine(monkeypatch, engine):
    """The corpus limit is the engine's (`Limits.for_engine`): on the compiled engine an upload
    trains whole up to the uploader's limit; the Python engine keeps its limit and its offer. (A
    0.1 MB limit stands for 4 MB, 1 MB for the uploads' 50.)"""
    if engine == "rust" and engines.compiled() is None:
        pytest.skip("the compiled engine is not built")
    monkeypatch.setenv("EXPLORER_ENGINE", engine)
    monkeypatch.setenv("EXPLORER_MAX_CORPUS_MB", "0.1")
    monkeypatch.setenv("EXPLORER_MAX_UPLOAD_MB", "1")
    assert 100_000 < len(OVER_THE_PYTHON_LIMIT) < 1_000_000
    at = new_app()
    at.file_uploader(key=W.UPLOAD).upload("big.txt", OVER_THE_PYTHON_LIMIT.encode(), "text/plain").run()
    offers = {W.TRAIN_PREFIX, W.TRAIN_SAMPLE} & {button.key for button in at.button}
    if engine == "python":
        assert "the limit is 100,000 bytes" in joined(at, "error") and offers
        return
    assert not offers and "limit" not in joined(at, "error")
    click(at, W.TRAIN)
    run = session_value(at, CURRENT_RUN)
    assert run is not None and run.characters == len(OVER_THE_PYTHON_LIMIT)


def test_a_corpus_over_the_stores_bound_is_kept_out_of_the_store_and_its_link_opens_without_text(monkeypatch):
    """Above `serving.STORED_CORPUS_BYTES` (here 1,000 bytes) the run is stored without its
    corpus: the session that trained it still measures on its text; the link opens the run in
    another session, whose views that need the text use a sample instead."""
    monkeypatch.setattr(serving, "STORED_CORPUS_BYTES", 1_000)
    at = new_app()
    at.file_uploader(key=W.UPLOAD).upload(
        "big.txt", OVER_THE_PYTHON_LIMIT[:5_000].encode(), "text/plain"
    ).run()
    click(at, W.TRAIN)
    run = session_value(at, CURRENT_RUN)
    assert run is not None and not run.from_counts
    assert session_value(at, state.TRAINED_CORPUS)[1] == OVER_THE_PYTHON_LIMIT[:5_000]
    # Its summary counts the text this session holds (the stored run has none): 0 before.
    assert run.characters == 5_000 and run.perceived_characters == character_count(
        OVER_THE_PYTHON_LIMIT[:5_000]
    )
    assert metrics(at)["Corpus characters"] == f"{run.perceived_characters:,}"
    entry = serving.store().get(run.store_key)
    assert entry is not None and entry.corpus is None and entry.meta["from_counts"]
    reopened = new_app({key: at.query_params[key] for key in at.query_params})
    again = session_value(reopened, CURRENT_RUN)
    assert again is not None and again.store_key == run.store_key and again.from_counts


def test_an_uploads_text_is_digested_once_from_its_upload_to_its_run(monkeypatch):
    """Its check's digest is the run's key's, its job's and its stored meta's: the server hashes
    the text once (a 50 MB upload's sha256 is a tenth of a second and a 50 MB copy each time)."""
    data = JAPANESE.encode()
    digests: Counter = Counter()
    sha256 = hashlib.sha256

    def counting(content=b"", *args, **kwargs):
        if len(content) == len(data):
            digests["corpus"] += 1
        return sha256(content, *args, **kwargs)

    at = new_app()
    monkeypatch.setattr(hashlib, "sha256", counting)
    at.file_uploader(key=W.UPLOAD).upload("neko.txt", data, "text/plain").run()
    at.number_input(key=W.VOCAB_NUMBER).set_value(300).run()
    click(at, W.TRAIN)
    run = session_value(at, CURRENT_RUN)
    assert run is not None and run.key.corpus_sha256 == sha256(data).hexdigest()
    assert serving.store().get(run.store_key).meta["corpus_sha256"] == run.key.corpus_sha256
    assert digests == Counter(corpus=1)


def test_the_part_of_an_upload_train_used_is_digested_once_and_the_upload_not_again(monkeypatch):
    """Over the size limit, "Train on the first X" trains a part of the upload: the part is digested
    once (for the form's note of what was trained and for its run's key), and the upload's own
    digest is still remembered on the reruns after it."""
    monkeypatch.setenv("EXPLORER_ENGINE", "python")  # its limit (the compiled engine's is the upload's)
    monkeypatch.setenv("EXPLORER_MAX_CORPUS_MB", "0.1")
    data = JAPANESE.encode()  # 0.2 MB
    sha256 = hashlib.sha256
    digested: Counter = Counter()

    def counting(content=b"", *args, **kwargs):
        digested[len(content)] += 1
        return sha256(content, *args, **kwargs)

    at = new_app()
    at.file_uploader(key=W.UPLOAD).upload("neko.txt", data, "text/plain").run()
    monkeypatch.setattr(hashlib, "sha256", counting)
    click(at, W.TRAIN_PREFIX)
    run = session_value(at, CURRENT_RUN)
    assert run is not None and 0 < run.characters < len(JAPANESE)
    part = JAPANESE[: run.characters].encode()
    assert run.key.corpus_sha256 == sha256(part).hexdigest()
    at.number_input(key=W.VOCAB_NUMBER).set_value(300).run()  # a rerun after it
    assert not at.exception, at.exception
    assert digested[len(part)] == 1 and digested[len(data)] == 0
