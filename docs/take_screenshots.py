"""Screenshots of the four pages, taken with Playwright and Debian's Chromium.

    .venv/bin/python -m streamlit run app.py --server.headless true --server.port 8599 &
    .venv/bin/python docs/take_screenshots.py [--port 8599] [--out docs/screenshots]

Trains the default sample (A Study in Scarlet, BPE byte-level) on the Train page, then visits
Merge history (moved to a middle step), Vocabulary and Compare. Streamlit scrolls inside its own
container, so `full_page` would cut the page: the viewport is made tall instead.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


def wait_idle(page, extra: float = 0.8) -> None:
    """Wait until Streamlit stops running the script (its status widget disappears)."""
    page.wait_for_timeout(300)
    for _ in range(120):
        if page.locator('[data-testid="stStatusWidget"]').count() == 0:
            break
        page.wait_for_timeout(250)
    page.wait_for_timeout(int(extra * 1000))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=8599)
    parser.add_argument("--out", default="docs/screenshots")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    base = f"http://localhost:{args.port}"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1700})
        started = time.perf_counter()
        page.goto(base + "/")
        page.get_by_role("button", name="Train", exact=True).wait_for()
        print(f"first render: {time.perf_counter() - started:.1f} s")
        page.get_by_role("button", name="Train", exact=True).click()
        page.get_by_text("Merges learned").wait_for()
        wait_idle(page)
        page.screenshot(path=str(out / "train.png"))

        page.get_by_role("link", name="Merge history").first.click()
        page.get_by_text("Step (merges applied)").wait_for()
        wait_idle(page, 2.0)
        slider = page.get_by_role("slider").nth(1)  # the first one is the speed picker
        slider.focus()
        for _ in range(40):
            page.keyboard.press("ArrowRight")
        wait_idle(page, 1.5)
        page.set_viewport_size({"width": 1400, "height": 2600})
        wait_idle(page, 1.5)
        page.screenshot(path=str(out / "merge_history.png"))

        page.set_viewport_size({"width": 1400, "height": 1700})
        page.get_by_role("link", name="Vocabulary").first.click()
        page.get_by_text("Grid view").wait_for()
        wait_idle(page, 1.5)
        page.screenshot(path=str(out / "vocabulary.png"))

        page.get_by_role("link", name="Compare").first.click()
        page.get_by_role("button", name="Train the other algorithm (WordPiece)").click()
        wait_idle(page, 1.5)
        page.screenshot(path=str(out / "compare.png"))
        browser.close()
    print(f"screenshots in {out}")


if __name__ == "__main__":
    main()
