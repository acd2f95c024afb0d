"""Every bad input of issue 5 ("Hardening for a public hosted demo") through the app (AppTest, no
browser): each gives a clear message, never an exception, and odd but valid text trains.

Limits are set through their environment variables (`monkeypatch.setenv`); the app reads them on
every script run. Training, and reading messages back as the visitor sees them: tests/app/helpers.py.
"""

from __future__ import annotations

import random
import re

import pytest
from streamlit.testing.v1 import AppTest

from explorer.checks import Limits
from explorer.drawing.markdown_literal import markdown_literal
from explorer.training import engines
from explorer.ui.common.state import Widget as W
from explorer.ui.train import corpus_input
from tests.app.helpers import (
    COMPARE,
    MERGES,
    STOP_BEFORE_SECONDS,
    TRAIN,
    TRAIN_WAIT_SECONDS,
    VOCABULARY,
    click,
    component_data,
    html_bodies,
    job_running,
    joined,
    learning,
    literal_from_markdown,
    metrics,
    new_app,
    open_compare,
    player,
    player_act,
)
from tests.helpers.processes import wait_until

ENVIRONMENT = (
    "EXPLORER_ENGINE",
    "EXPLORER_MAX_CORPUS_MB",
    "EXPLORER_MAX_SECONDS",
    "EXPLORER_MAX_STEPS",
    "EXPLORER_MAX_VOCAB",
    "EXPLORER_MAX_UPLOAD_MB",
)

USER_MARKERS = ("onerror", "xss", "bold", "title", "red[", "**b**", "**9**")
HOSTILE = [
    "<script>window.__xss=1</script> <img src=x onerror=alert(1)>",
    '<a href="javascript:alert(1)">click</a> [link](javascript:alert(1))',
    "**bold** _it_ $x$ $$y$$ :red[x] :smile: # not a title",
]


def rendered_markup(markdown: str) -> list[str]:
    """Markup Streamlit would interpret in `markdown`: what is left once every backslash-escaped
    character (and the app's word joiners) is taken out."""
    bare = re.sub(r"\\.", "", markdown.replace("\u2060", ""), flags=re.DOTALL)
    found = [markup for markup in ("<", "**", "$", ":red[", "javascript:", "](", "`") if markup in bare]
    return found + (["# heading"] if re.search(r"(?m)^\s*#", bare) else [])


def assert_markdown_is_literal(at: AppTest) -> None:
    """No Markdown body that holds user text (a marker of the hostile inputs) has live markup."""
    for body in markdown_bodies(at):
        if any(marker in body.replace("\\", "") for marker in USER_MARKERS):
            assert not rendered_markup(body), body


@pytest.fixture(autouse=True)
def default_limits(monkeypatch):
    """Each test starts from the default limits, whatever the environment says."""
    for name in ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)


# ---------------------------------------------------------------- helpers


def paste(at: AppTest, text: str) -> AppTest:
    at.text_area(key=W.CORPUS).set_value(text).run()
    assert not at.exception, at.exception
    return at


def markdown_bodies(at: AppTest) -> list[str]:
    """Everything Streamlit renders as Markdown: markdown, captions, alerts, metric labels."""
    bodies = [
        str(element.value)
        for kind in ("markdown", "caption", "error", "warning", "info", "success")
        for element in getattr(at, kind)
    ]
    return bodies + [metric.label for metric in at.metric]


def assert_trained(at: AppTest) -> dict[str, str]:
    summary = metrics(at)
    assert "Merges learned" in summary, (joined(at, "error"), joined(at, "warning"))
    return summary


def assert_not_trained(at: AppTest) -> None:
    assert "Merges learned" not in metrics(at)


def visit_every_page(at: AppTest) -> None:
    """Merge history (last step), Vocabulary and Compare render the current run without an exception."""
    at.switch_page(MERGES).run()
    assert not at.exception, at.exception
    if component_data(at, "explorer_player"):
        player_act(at, player(at)["steps"])
    at.switch_page(VOCABULARY).run()
    assert not at.exception, at.exception
    open_compare(at)
    assert not at.exception, at.exception
    at.switch_page(TRAIN).run()
    assert not at.exception, at.exception


def random_words(count: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    words = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 12)))
        for _ in range(count)
    ]
    return "\n".join(" ".join(words[i : i + 12]) for i in range(0, len(words), 12))


# ---------------------------------------------------------------- the table of bad corpora

# (id, corpus, setup: environment + widget values, expected: what the page must say)
CORPORA = [
    pytest.param("", {}, {"error": "The corpus is empty."}, False, id="empty"),
    pytest.param(
        " \n\t  \n", {}, {"error": "The corpus is empty: it has only white space"}, False, id="whitespace"
    ),
    pytest.param(
        "a",
        {},
        {"warning": "The corpus is a single character ('a')", "info": "no pair is left to merge"},
        True,
        id="one-character",
    ),
    pytest.param(
        "zzzz zzzz zzzz",
        {},
        {"warning": "only one distinct character ('z')"},
        True,
        id="one-distinct-character",
    ),
    pytest.param(
        "tab\tNUL\x00 bell\x07 escape\x1b[31m DEL\x7f\nline two\n" * 3,
        {},
        {"warning": "control characters (U+0000 NUL x3"},
        True,
        id="nul-and-control-characters",
    ),
    pytest.param(
        "old\rmac\rline\rendings\r" * 4,
        {},
        {"warning": "carriage returns (\\r) without a line feed"},
        True,
        id="lone-carriage-returns",
    ),
    pytest.param(
        "東京は日本の首都です。大阪は食べ物で有名です。北京是中国的首都。서울은한국의수도입니다。\n" * 5,
        {"pre_tokenizer": "whitespace-split"},
        {},
        True,
        id="cjk-without-spaces",
    ),
    pytest.param(
        "👩‍👩‍👧‍👦 family 🏳️‍🌈 flag 🇯🇵🇫🇷 flags e\u0301te\u0301 cafe\u0301 Z\u0351\u0364\u0300algo\n"
        "שלום עולם مرحبا بالعالم \u202eevil\u202c mixed עברית and English\n" * 4,
        {},
        {},
        True,
        id="emoji-flags-combining-rtl",
    ),
    pytest.param(
        "\n".join(HOSTILE * 4), {"pre_tokenizer": "whitespace-split"}, {}, True, id="html-markdown-latex"
    ),
]


@pytest.mark.parametrize("corpus, setup, expected, trains", CORPORA)
def test_a_bad_or_odd_corpus_is_explained_and_trains_only_if_it_can(corpus, setup, expected, trains):
    at = new_app()
    paste(at, corpus)
    if "pre_tokenizer" in setup:
        at.selectbox(key=W.PRE_TOKENIZER).set_value(setup["pre_tokenizer"]).run()
    click(at, W.TRAIN)
    for kind, text in expected.items():
        assert text in joined(at, kind), (kind, joined(at, kind))
    if trains:
        assert_trained(at)
        assert not at.error, joined(at, "error")
        visit_every_page(at)
    else:
        assert_not_trained(at)


def test_million_character_word_trains_within_a_step_budget(monkeypatch):
    monkeypatch.setenv("EXPLORER_MAX_STEPS", "1")  # the trainer stops after exactly one merge
    rng = random.Random(0)
    word = "".join(rng.choice("abcdefgh") for _ in range(1_000_000))
    at = paste(new_app(), word)
    assert "a run of 1,000,000 characters without white space" in joined(
        at, "warning"
    )  # said before training
    click(at, W.TRAIN)
    summary = assert_trained(at)
    assert summary["Stop reason"].startswith("stopped")
    assert int(summary["Merges learned"]) == 1
    assert "by the limit of 1 merge." in joined(at, "info")  # explain_vocab_size
    at.switch_page(MERGES).run()
    assert not at.exception, at.exception
    top_words = next(body for body in html_bodies(at) if 'class="top-words"' in body)
    assert "+999,880 characters" in top_words and len(top_words) < 50_000  # drawn cut, not 1 MB of spans


# ---------------------------------------------------------------- over the size limit


def test_over_the_size_limit_offers_a_prefix_and_a_sample(monkeypatch):
    monkeypatch.setenv("EXPLORER_ENGINE", "python")  # its limit (the compiled engine's is the upload's)
    monkeypatch.setenv("EXPLORER_MAX_CORPUS_MB", "0.001")  # 1,000 bytes
    corpus = "\n".join(f"line {index:03d} alpha beta gamma delta" for index in range(60))  # 2,039 bytes
    at = paste(new_app(), corpus)
    assert "the limit is 1.0 KB" in joined(at, "error")
    labels = {button.label for button in at.button}
    assert {"Train on the first 1.0 KB", "Train on a random sample of lines (1.0 KB)"} <= labels
    click(at, W.TRAIN)
    assert "fix the problems shown above" in joined(at, "error")
    assert_not_trained(at)

    click(at, W.TRAIN_PREFIX)
    prefix_summary = assert_trained(at)
    characters = int(prefix_summary["Corpus characters"].replace(",", ""))
    assert 950 <= characters <= 1_000
    assert any("first 1.0 KB of pasted text" in body for body in html_bodies(at))
    visit_every_page(at)

    click(at, W.TRAIN_SAMPLE)
    sample_summary = assert_trained(at)
    assert int(sample_summary["Corpus characters"].replace(",", "")) <= 1_048
    assert any("random lines (1.0 KB) of pasted text" in body for body in html_bodies(at))


def test_an_upload_over_the_limit_offers_the_same(monkeypatch):
    monkeypatch.setenv("EXPLORER_ENGINE", "python")
    monkeypatch.setenv("EXPLORER_MAX_CORPUS_MB", "0.001")
    data = ("\n".join(f"uploaded line {index} with some words" for index in range(80))).encode()
    at = new_app()
    at.file_uploader(key=W.UPLOAD).upload("big.txt", data, "text/plain").run()
    assert "the limit is 1.0 KB" in joined(at, "error")
    click(at, W.TRAIN_SAMPLE)
    assert_trained(at)
    assert any("random lines (1.0 KB) of big.txt" in body for body in html_bodies(at))


# ---------------------------------------------------------------- uploads that are not UTF-8 text

UPLOADS = [
    pytest.param(
        b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n",
        "looks like a PDF document",
        id="pdf",
    ),
    pytest.param(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "looks like a PNG image", id="png"),
    pytest.param(b"PK\x03\x04\x14\x00\x06\x00word/document.xml", "looks like a ZIP archive", id="docx"),
    pytest.param(random.Random(3).randbytes(4096), "looks like a binary file", id="random-binary"),
    pytest.param(
        "\ufeffhello world\nsecond line\n".encode("utf-16-le"), "UTF-16 (little-endian)", id="utf-16-bom"
    ),
    pytest.param(
        "hello world, plain ASCII in UTF-16\n".encode("utf-16-be"), "UTF-16 (big-endian)", id="utf-16-no-bom"
    ),
    pytest.param(
        "Le café était très animé à Noël; déjà vu.\n".encode("latin-1"), "Latin-1/Windows-1252", id="latin-1"
    ),
    pytest.param(
        "Привет, как дела? Всё хорошо.\n".encode("cp1251"), "another legacy encoding", id="windows-1251"
    ),
    pytest.param(b"", "is empty (0 bytes)", id="empty-file"),
    pytest.param(
        "naïve text then a cut character \u00e9".encode()[:-1],
        "ends in the middle of a UTF-8 character",
        id="truncated",
    ),
]


@pytest.mark.parametrize("data, message", UPLOADS)
def test_upload_handler_gives_the_message(data, message):
    upload = corpus_input.read_upload("file-id", data, "upload.txt", Limits())
    corpus, problem = upload.corpus, upload.problem
    assert corpus is None and problem
    assert message in problem
    assert "'upload.txt'" in problem


@pytest.mark.parametrize("data, message", UPLOADS[:7])
def test_a_bad_upload_is_an_error_on_the_page_and_blocks_training(data, message):
    at = new_app()
    at.file_uploader(key=W.UPLOAD).upload("upload.txt", data, "text/plain").run()
    assert not at.exception, at.exception
    assert message in joined(at, "error")
    click(at, W.TRAIN)
    assert_not_trained(at)


def test_utf8_upload_with_a_byte_order_mark_trains():
    upload = corpus_input.read_upload(
        "file-id", "\ufeffnaïve café\nnaïve\n".encode("utf-8"), "bom.txt", Limits()
    )
    corpus, problem = upload.corpus, upload.problem
    assert problem is None and corpus.text == "naïve café\nnaïve\n" and corpus.label == "bom.txt"


def test_the_text_path_takes_what_such_files_hold_once_decoded():
    """The same content pasted as text (the visitor re-saved it as UTF-8) trains."""
    at = paste(new_app(), "Le café était très animé à Noël; déjà vu.\nПривет, как дела? Всё хорошо.\n" * 3)
    click(at, W.TRAIN)
    assert_trained(at)


def test_a_hostile_file_name_is_shown_literally():
    name = "**b** $x$ :red[x] <img src=x onerror=alert(1)>.txt"
    at = new_app()
    at.file_uploader(key=W.UPLOAD).upload(name, b"%PDF-1.4 not text", "text/plain").run()
    assert f"'{name}' looks like a PDF document" in joined(at, "error")
    assert_markdown_is_literal(at)


# ---------------------------------------------------------------- vocabulary size


def test_vocab_size_below_the_alphabet_is_explained():
    at = new_app()
    at.number_input(key=W.VOCAB_NUMBER).set_value(10).run()
    click(at, W.TRAIN)
    assert assert_trained(at)["Merges learned"] == "0"
    assert "You asked for 10 tokens, but the starting alphabet alone has 257" in joined(at, "info")


def test_vocab_size_above_what_the_corpus_can_reach_is_explained():
    at = paste(new_app(), "low lower lowest\nlow low")
    at.number_input(key=W.VOCAB_NUMBER).set_value(50_000).run()
    click(at, W.TRAIN)
    assert_trained(at)
    assert "You asked for 50,000 tokens, but this corpus can only give" in joined(at, "info")


@pytest.mark.parametrize(
    "environment, value, message",
    [
        ({}, 0, "vocab_size must be from 1 to 100,000 (got 0)."),
        ({}, 100_001, "vocab_size must be from 1 to 100,000 (got 100,001)."),
        ({"EXPLORER_MAX_VOCAB": "500"}, 600, "vocab_size must be from 1 to 500 (got 600)."),
    ],
)
def test_vocab_size_out_of_bounds_blocks_training(monkeypatch, environment, value, message):
    for name, setting in environment.items():
        monkeypatch.setenv(name, setting)
    at = new_app()
    at.number_input(key=W.VOCAB_NUMBER).set_value(value).run()
    assert message in joined(at, "error")  # shown as soon as it is typed
    click(at, W.TRAIN)
    assert_not_trained(at)


def test_the_vocab_slider_reach_comes_from_the_limits(monkeypatch):
    monkeypatch.setenv("EXPLORER_MAX_VOCAB", "500")
    at = new_app()
    assert at.slider(key=W.VOCAB_SLIDER).max == 500
    assert "From 1 to 500" in at.number_input(key=W.VOCAB_NUMBER).help


# ---------------------------------------------------------------- special tokens

SPECIAL_TOKENS = [
    pytest.param(
        "[PAD],[PAD]",
        "error",
        "The special token '[PAD]' is listed twice; keep one.",
        False,
        id="listed-twice",
    ),
    pytest.param("[PAD],,[CLS]", "error", "A special token is empty", False, id="empty-entry"),
    pytest.param("the", "warning", "The special token 'the' is ordinary text", True, id="ordinary-word"),
    pytest.param("e", "warning", "The special token 'e' is ordinary text", True, id="one-character"),
    pytest.param(
        "<s> </s>",
        "info",
        "contains white space that the byte-level pre-tokenizer splits on",
        True,
        id="contains-white-space",
    ),
    pytest.param(
        "end-of-text,sep.",
        "info",
        "has separators that the byte-level pre-tokenizer splits on",
        True,
        id="has-separators",
    ),
]


@pytest.mark.parametrize("tokens, kind, message, trains", SPECIAL_TOKENS)
def test_special_tokens_are_checked(tokens, kind, message, trains):
    at = paste(new_app(), "the theory of the thermal theme\nthe end")
    at.text_input(key=W.SPECIAL_TOKENS).set_value(tokens).run()
    click(at, W.TRAIN)
    assert message in joined(at, kind), joined(at, kind)
    if trains:
        assert_trained(at)
        visit_every_page(at)
    else:
        assert_not_trained(at)


def test_a_special_token_that_is_a_corpus_character_gets_a_note_after_training():
    at = paste(new_app(), "a b c d\nx y z")
    at.selectbox(key=W.PRE_TOKENIZER).set_value("whitespace")
    at.text_input(key=W.SPECIAL_TOKENS).set_value("x").run()
    click(at, W.TRAIN)
    assert_trained(at)
    assert "The special token 'x' is also a character of the corpus" in joined(at, "info")


def test_special_tokens_with_markup_are_shown_literally():
    at = paste(new_app(), "some text to train on\nmore text")
    at.text_input(key=W.SPECIAL_TOKENS).set_value("**b**,$x$,:red[x],<img src=x onerror=alert(1)>").run()
    click(at, W.TRAIN)
    assert_trained(at)
    notes = joined(at, "info")
    assert (
        "'**b**'" in notes
        and "'$x$'" in notes
        and "':red[x]'" in notes
        and "'<img src=x onerror=alert(1)>'" in notes
    )
    assert_markdown_is_literal(at)


# ---------------------------------------------------------------- hostile text everywhere


def test_hostile_corpus_reaches_html_escaped_and_markdown_never():
    at = paste(new_app(), "\n".join(HOSTILE * 5))
    at.selectbox(key=W.PRE_TOKENIZER).set_value("whitespace-split").run()
    click(at, W.TRAIN)
    assert_trained(at)
    for page in (MERGES, VOCABULARY, COMPARE):
        at.switch_page(page).run()
        assert not at.exception, at.exception
        if page == MERGES:
            player_act(at, player(at)["steps"])
        bodies = " ".join(html_bodies(at))
        assert "<script" not in bodies and "<img" not in bodies and 'href="javascript' not in bodies, page
        assert_markdown_is_literal(at)
    at.switch_page(MERGES).run()
    assert "&lt;script&gt;" in " ".join(html_bodies(at))


def test_a_hostile_link_is_a_literal_warning():
    at = new_app(
        {"vocab_size": "**9** $x$", "pre_tokenizer": "<img src=x onerror=alert(1)>", "sample": ":red[x]"}
    )
    warnings = joined(at, "warning")
    assert "Ignored vocab_size='**9** $x$'" in warnings
    assert "Ignored pre_tokenizer='<img src=x onerror=alert(1)>'" in warnings
    assert "Unknown sample ':red[x]'" in warnings
    assert_markdown_is_literal(at)


@pytest.mark.parametrize(
    "text",
    [
        *HOSTILE,
        "- item\n# title\n> quote\n1. one\n---",
        "a_b_c _e_ x|y ~~s~~ `c` &lt; &amp; www.example.com a@b.com :smile: :material/home: :streamlit:",
        "\\ \\* trailing backslash \\",
    ],
)
def test_markdown_literal_round_trips(text):
    escaped = markdown_literal(text)
    assert literal_from_markdown(escaped) == text
    assert not rendered_markup(escaped)


# ---------------------------------------------------------------- Stop and the budget


def test_stop_button_keeps_a_partial_history_explorable_everywhere(monkeypatch):
    # The Python engine, its stop checks slowed (tests.helpers.worker_tasks.slow_training): the
    # compiled one trains this corpus before Stop could be clicked (the server's choice goes with
    # the job to its worker).
    monkeypatch.setenv(engines.ENGINE_VARIABLE, "python")
    from tests.helpers import worker_tasks

    monkeypatch.setattr("explorer.work.tasks.train_task", worker_tasks.slow_training)
    monkeypatch.setenv("EXPLORER_MAX_SECONDS", STOP_BEFORE_SECONDS)  # the Stop ends it, on any load
    at = paste(new_app(), random_words(20_000))
    at.number_input(key=W.VOCAB_NUMBER).set_value(30_000).run()
    at.button(key=W.TRAIN).click().run()
    assert not at.exception, at.exception
    assert job_running(at), "training finished before Stop could be clicked: make the corpus larger"
    assert at.button(key=W.TRAIN).disabled  # one run at a time
    wait_until(lambda: learning(at), TRAIN_WAIT_SECONDS, "the first merge")  # however loaded the machine
    click(at, W.STOP)
    summary = assert_trained(at)
    assert summary["Stop reason"].startswith("stopped")
    steps = int(summary["Merges learned"].replace(",", ""))
    assert "by the Stop button" in joined(at, "info")
    assert "Training was stopped by the Stop button" in joined(at, "warning")
    at.switch_page(MERGES).run()
    assert not at.exception, at.exception
    if steps:
        assert player(at)["steps"] == steps
    at.switch_page(VOCABULARY).run()
    assert not at.exception, at.exception
    assert len(at.dataframe[0].value) == int(summary["Final vocabulary size"].replace(",", ""))
    open_compare(at)
    assert not at.exception, at.exception


def test_time_budget_stops_training(monkeypatch):
    monkeypatch.setenv("EXPLORER_MAX_SECONDS", "0.5")
    monkeypatch.setenv(engines.ENGINE_VARIABLE, "python")  # the compiled engine may be done in 0.5 s
    at = paste(new_app(), random_words(120_000))
    at.number_input(key=W.VOCAB_NUMBER).set_value(30_000).run()
    click(at, W.TRAIN)
    summary = assert_trained(at)
    assert summary["Stop reason"].startswith("stopped")
    assert "by the time limit (0.5 s)" in joined(at, "info")


def test_step_budget_stops_training(monkeypatch):
    monkeypatch.setenv("EXPLORER_MAX_STEPS", "40")
    at = paste(new_app(), random_words(3_000))
    click(at, W.TRAIN)
    summary = assert_trained(at)
    assert int(summary["Merges learned"]) == 40  # exactly the limit
    assert "by the limit of 40 merges" in joined(at, "info")


def test_misconfigured_limits_are_a_warning_and_defaults_apply(monkeypatch):
    monkeypatch.setenv("EXPLORER_MAX_STEPS", "lots")
    at = new_app()
    assert "EXPLORER_MAX_STEPS must be a whole number above 0, not 'lots'" in joined(at, "warning")
    click(at, W.TRAIN)
    assert_trained(at)


def test_an_exception_in_the_training_worker_is_a_message(monkeypatch):
    from tests.helpers import worker_tasks

    monkeypatch.setattr("explorer.work.tasks.train_task", worker_tasks.broken_training)
    at = paste(new_app(), "text that will not train")
    click(at, W.TRAIN)
    assert_not_trained(at)
    errors = joined(at, "error")
    assert "Training failed" in errors and "RuntimeError" in errors and "secret internal detail" not in errors


# ---------------------------------------------------------------- per session


def test_run_numbers_are_per_session():
    first, second = new_app(), new_app()
    click(first, W.TRAIN)
    click(second, W.TRAIN)
    names = [re.search(r"Result of run (#\d+)", " ".join(html_bodies(at)))[1] for at in (first, second)]
    assert names == ["#1", "#1"]
