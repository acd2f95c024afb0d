"""Screenshots of the pages for the README, taken with Playwright and Debian's Chromium, with the
fonts a person's browser has for CJK and emoji (Debian's fonts-noto-cjk and
fonts-noto-color-emoji; without them Chromium draws those characters as boxes).

    .venv/bin/python docs/take_screenshots.py [--out docs/screenshots] [--url http://127.0.0.1:8501]

Starts its own `streamlit run app.py` on a free loopback port (and stops it), unless --url names a
server that is already running. Trains the default sample (A Study in Scarlet, BPE byte-level) on
the Train page, then visits Vocabulary and Compare (with the other algorithm trained); opens
Merge history from links: the course's WordPiece at a tie (merge_history.png) and the course's BPE
with its step-by-step panel (merge_history_steps.png); the Training history of the course's Unigram
at round 2 (training_history.png); the Train summary of the course's BPE at
vocabulary 50, which drops "A" and "P" (lost_characters.png); and the Vocabulary page's audit of a
byte-level BPE 1,000 on the Shakespeare sample (audit.png). `--only NAME` takes one of the
link shots alone. Streamlit scrolls inside its own
container, so `full_page` would cut the page: the viewport is made tall instead.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser.helpers import chromium, chromium_missing_reason, open_page, streamlit_server, wait_idle  # noqa: E402

WIDTH = 1400
# (file name, link, viewport height, text to scroll to: brought to the top of the window)
SHOTS_FROM_LINKS = (
    ("merge_history", "algorithm=wordpiece&flavor=course&vocab_size=70&sample=hf-course&step=3", 2300, None),
    (
        "merge_history_steps",
        "algorithm=bpe&flavor=course&vocab_size=45&sample=hf-course&step=14",
        1500,
        "How a text is tokenized, step by step",
    ),
    (
        "training_history",
        "algorithm=unigram&flavor=course&vocab_size=100&sample=hf-course&step=2",
        3000,
        None,
    ),
    (
        "lost_characters",
        "algorithm=bpe&flavor=course&vocab_size=50&sample=hf-course",
        1500,
        "The tutorial's sample sentences with this tokenizer",
    ),
    (
        "audit",
        "algorithm=bpe&flavor=library&vocab_size=1000&sample=shakespeare&pre_tokenizer=byte-level",
        2000,
        "Audit",
    ),
)
PATHS = {"lost_characters": "/", "audit": "/Vocabulary"}  # the others open Merge history
READY = {"audit": "Scripts:"}  # text shown once the page's worker result is in


def shoot(page, path: Path) -> None:
    page.mouse.move(WIDTH - 5, 5)  # no hover tooltip from the last click in the picture
    page.wait_for_timeout(300)
    page.screenshot(path=str(path))


def take(base_url: str, out: Path, only: str | None = None) -> None:
    with chromium() as browser:
        if only is None:
            take_trained(browser, base_url, out)
        for name, query, height, scroll_to in SHOTS_FROM_LINKS:
            if only in (None, name):
                take_from_link(browser, base_url, out, name, query, height, scroll_to)


def take_trained(browser, base_url: str, out: Path) -> None:
    """Train, Vocabulary and Compare after training the default sample on the Train page."""
    context = browser.new_context(viewport={"width": WIDTH, "height": 1700})
    context.set_default_timeout(60_000)
    page = context.new_page()
    sidebar = page.locator('[data-testid="stSidebar"]')
    started = time.perf_counter()
    open_page(page, base_url, "/")
    print(f"first render: {time.perf_counter() - started:.1f} s")
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text("Merges learned", exact=True).wait_for()
    wait_idle(page, 400)
    shoot(page, out / "train.png")

    page.set_viewport_size({"width": WIDTH, "height": 1700})
    sidebar.get_by_role("link", name="Vocabulary").click()
    page.get_by_text("Grid view", exact=True).wait_for()
    wait_idle(page, 800)
    shoot(page, out / "vocabulary.png")

    sidebar.get_by_role("link", name="Compare").click()
    page.get_by_role("button", name="Train the other algorithm (WordPiece)").click()
    page.get_by_text("WordPiece on the same corpus").first.wait_for()
    wait_idle(page, 800)
    shoot(page, out / "compare.png")
    context.close()


def take_from_link(browser, base_url: str, out: Path, name: str, query: str, height: int, scroll_to) -> None:
    context = browser.new_context(viewport={"width": WIDTH, "height": height})
    context.set_default_timeout(120_000)
    page = context.new_page()
    path = PATHS.get(name, "/Merge_history")
    open_page(page, base_url, path, query)
    if path == "/":  # the Train page's link is its form: train it
        page.get_by_role("button", name="Train", exact=True).click()
        page.get_by_text("Merges learned", exact=True).wait_for()
        wait_idle(page, 400)
    if name in READY:
        page.get_by_text(READY[name]).first.wait_for()
    if scroll_to:
        closed = page.locator("details:not([open]) summary").filter(has_text=scroll_to)
        if closed.count():  # a section a learner opens
            closed.first.click()
            wait_idle(page, 400)
        page.get_by_text(scroll_to, exact=True).first.evaluate(
            "node => node.scrollIntoView({block: 'start'})"
        )
    wait_idle(page, 800)
    shoot(page, out / f"{name}.png")
    context.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshots"))
    parser.add_argument("--url", help="a running server to use instead of starting one")
    parser.add_argument("--only", choices=[shot[0] for shot in SHOTS_FROM_LINKS], help="one link shot alone")
    args = parser.parse_args()
    reason = chromium_missing_reason()
    if reason:
        print(f"cannot take screenshots: {reason}")
        return 1
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    server = (
        contextlib.nullcontext(args.url.rstrip("/")) if args.url else streamlit_server("screenshots-server")
    )
    with server as base_url:
        take(base_url, out, args.only)
    names = ["train", "vocabulary", "compare", *(name for name, *_ in SHOTS_FROM_LINKS)]
    print(f"screenshots in {out}: {', '.join(name + '.png' for name in names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
