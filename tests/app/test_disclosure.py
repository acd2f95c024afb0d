"""Progressive disclosure (issue 18): the Train page's advanced settings sit in a closed section whose
label says what differs from the defaults; Merge history shows first the step's line, why its pair
won, the competing pairs and the words after k, and the rest in closed sections, each drawn at the
same step."""

from __future__ import annotations

from explorer.drawing.token_html import escape_text
from explorer.samples import SAMPLES
from explorer.ui.common.state import Widget as W
from explorer.ui.train.corpus_input import PREVIEW_LINES
from tests.app.helpers import MERGES, new_app, open_sections, player, player_tick

COURSE_WORDPIECE = {"algorithm": "wordpiece", "flavor": "course", "vocab_size": "70", "sample": "hf-course"}


def expander(at, starts: str):
    found = [element for element in at.expander if element.label.startswith(starts)]
    assert len(found) == 1, [element.label for element in at.expander]
    return found[0]


def html_under(node) -> list[str]:
    """The HTML bodies drawn inside a block, at any depth."""
    bodies = []
    for child in getattr(node, "children", {}).values():
        if child.type == "html":
            bodies.append(child.proto.body)
        bodies.extend(html_under(child))
    return bodies


def test_advanced_settings_are_closed_and_their_label_says_what_changed():
    at = new_app()
    advanced = expander(at, "Advanced settings")
    assert advanced.label == "Advanced settings (the defaults)" and not advanced.proto.expanded
    at.number_input(key=W.MIN_FREQUENCY).set_value(2).run()
    at.multiselect(key=W.NORMALIZERS).set_value(["nfkc"]).run()
    assert (
        expander(at, "Advanced settings").label
        == "Advanced settings (2 changed: normalizers, min frequency 2)"
    )
    at.radio(key=W.ALGORITHM).set_value("unigram").run()  # its own defaults: min frequency is not its
    assert expander(at, "Advanced settings").label == "Advanced settings (1 changed: normalizers)"


def test_merge_history_shows_the_why_first_and_the_rest_in_closed_sections_at_the_same_step():
    at = new_app({**COURSE_WORDPIECE, "step": "3"}, MERGES)
    sections = {
        "Counts and compression charts": W.SECTION_CHARTS,
        "How a token was built": W.SECTION_TREE,
        "As the course prints it": W.SECTION_COURSE,
        "How a text is tokenized, step by step": W.SECTION_STEPS,
    }
    for label in sections:
        assert not expander(at, label).proto.expanded
        assert not expander(at, label).children, f"{label}: a closed section draws nothing"
    outside = [element.proto.body for element in at.get("html")]
    assert any('class="why"' in body for body in outside)
    line = player(at)["line_html"]  # the step's line, drawn by the player above every section
    assert 'class="merge-summary"' in line and "Merge <b>3</b>" in line
    assert any('class="top-words"' in body for body in outside)
    assert not at.get("plotly_chart")  # the competition's bars are HTML; the sections' charts wait

    open_sections(at, *sections.values())
    inside = [body for label in sections for body in html_under(expander(at, label))]
    assert not any('class="why"' in body for body in inside)
    assert any("merge 3" in body for body in html_under(expander(at, "How a token was built")))
    assert any("after 3 merges" in header.value for header in at.subheader)
    assert len(at.get("plotly_chart")) == 3  # counts, compression and the merge tree
    assert player_tick(at)["step"] == 4  # an open section stays open as the step moves, drawn at it
    assert expander(at, "How a token was built").proto.expanded
    assert any("merge 4" in body for body in html_under(expander(at, "How a token was built")))


def test_a_lessons_course_check_is_closed_and_draws_its_printouts_only_when_opened():
    # Closed, it sends no code block: the browser would load its syntax highlighter (1.5 MB of
    # JavaScript) before a lesson link's first screen is drawn.
    at = new_app({"lesson": "course-bpe"}, MERGES)
    check = expander(at, "Matches the course")
    assert not check.proto.expanded and not check.children and not at.code
    open_sections(at, W.SECTION_COURSE_CHECK)
    check = expander(at, "Matches the course")
    codes = [element.value for element in at.code]
    assert check.proto.expanded and codes and len(codes) % 2 == 0  # the course's printout, then ours
    assert all(codes[index] == codes[index + 1] for index in range(0, len(codes), 2))  # equal entries


def test_a_large_samples_first_lines_are_escaped_html_and_no_code_block():
    # A code block would make the browser load its syntax highlighter (about 0.75 s of CPU) before
    # the Train page of a large sample's link is drawn.
    at = new_app({"sample": "shakespeare"})
    assert not at.code
    (preview,) = [body for body in html_under(at.main) if 'class="sample-preview"' in body]
    first_lines = SAMPLES["shakespeare"].text.splitlines()[:PREVIEW_LINES]
    assert escape_text("\n".join(first_lines)) in preview and 'tabindex="0"' in preview


def test_until_the_first_action_a_sentence_says_the_player_is_coming():
    # A new browser draws plain HTML at once; the player's component code loads after (the
    # stylesheet hides this as soon as the player is in the page: tests/browser/test_lessons.py).
    at = new_app({**COURSE_WORDPIECE, "step": "3"}, MERGES)
    placeholders = [
        e.proto.body for e in at.get("html") if e.proto.body.startswith('<p class="player-placeholder"')
    ]
    assert placeholders == [
        '<p class="player-placeholder">The player (Play, Pause, Back, Next and the step slider) '
        f"is loading, at merge 3 of {player(at)['steps']:,} …</p>"
    ]
    assert player_tick(at)["step"] == 4  # the visitor's first action: the player is there
    assert not [e for e in at.get("html") if e.proto.body.startswith('<p class="player-placeholder"')]
