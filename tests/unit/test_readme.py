"""The README and docs/ keep to the owner's rule: a short README, links that resolve, no hand-kept counts.

- README.md is at most 200 lines (the rest of the documentation lives in docs/);
- every relative link (and image) in README.md and docs/*.md points to a file that exists, and a
  `#anchor` on a Markdown file names one of its headings (as GitHub spells the anchor);
- no page keeps a count of tests by hand ("1,234 tests", "812 passed"): pytest prints the count;
- every page of docs/ starts with one line saying what it covers.
"""

import re
from pathlib import Path

import pytest

from tests import ROOT

README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README, *DOCS]

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
TEST_COUNT = re.compile(r"\d[\d,]* (tests|passed)\b")


def _ids(pages):
    return [str(p.relative_to(ROOT)) for p in pages]


def _prose(text: str) -> str:
    """The page without its fenced code blocks (a shell example is not a link)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lowercased, punctuation but - and _ dropped, spaces to -."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    headings = re.findall(r"^#+ (.+)$", _prose(path.read_text(encoding="utf-8")), flags=re.M)
    return {_anchor(h) for h in headings}


def test_the_readme_is_at_most_200_lines():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines: move detail to docs/"


def test_there_are_docs_pages():
    assert DOCS, "docs/ holds no Markdown page"


@pytest.mark.parametrize("page", PAGES, ids=_ids(PAGES))
def test_every_relative_link_points_to_an_existing_file(page):
    text = _prose(page.read_text(encoding="utf-8"))
    broken = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        path_part, _, anchor = target.partition("#")
        linked = (page.parent / path_part).resolve() if path_part else page
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
            broken.append(f"{target}: no heading with that anchor")
    assert not broken, broken


@pytest.mark.parametrize("page", PAGES, ids=_ids(PAGES))
def test_no_hand_kept_count_of_tests(page):
    found = [m.group(0) for m in TEST_COUNT.finditer(page.read_text(encoding="utf-8"))]
    assert not found, f"{page.name} keeps a count of tests by hand: {found}"


@pytest.mark.parametrize("page", DOCS, ids=_ids(DOCS))
def test_every_docs_page_starts_with_what_it_covers(page):
    first = page.read_text(encoding="utf-8").splitlines()[0]
    assert first.strip() and not first.startswith(("#", "!", "|", "-", "`")), first
