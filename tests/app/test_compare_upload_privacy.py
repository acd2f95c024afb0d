"""An uploaded tokenizer's file name stays in its uploader's session: whoever opens the Compare
link that names it sees a neutral label ("tokenizer.json (uploaded, …)"), never the name, on the
Compare page and on the Vocabulary page's audit choice."""

from __future__ import annotations

import json

from explorer.pipeline.tokenizer_json import tokenizer_to_json
from explorer.train import tokenizer_from_trace
from explorer.ui.common.state import Widget as W
from tests.app.helpers import (
    COMPARE,
    component_data,
    html_bodies,
    new_app,
    open_compare,
    query,
    run_of,
)
from tests.app.test_serving import train_pasted, words

PRIVATE = "PRIVATE-okapi-tokenizer.json"


def page_text(at) -> str:
    """Everything the page drew that a visitor can read: HTML, messages, widget options and labels,
    the components' data."""
    parts = [*html_bodies(at)]
    for kind in ("markdown", "caption", "info", "warning", "error", "success", "code", "subheader"):
        parts += [str(element.value) for element in getattr(at, kind)]
    for widget in (*at.multiselect, *at.selectbox):
        parts += [str(widget.label), *map(str, widget.options)]
    parts += [json.dumps(data) for data in component_data(at, "explorer_token_counts")]
    return "\n".join(parts)


def test_someone_elses_link_shows_an_upload_under_a_neutral_name():
    at = train_pasted(new_app(), words(200, seed=29))
    exported = tokenizer_to_json(tokenizer_from_trace(run_of(at).history))
    open_compare(at)
    at.file_uploader(key=W.TOKENIZER_UPLOAD).set_value(
        [(PRIVATE, exported.encode(), "application/json")]
    ).run()
    assert not at.exception, at.exception
    assert PRIVATE in page_text(at)  # the uploader sees the name of the file
    link = query(at)
    key = next(one for one in link["cols"].split(",") if one.startswith("upload:"))
    elsewhere = new_app(link, COMPARE)
    assert key in elsewhere.multiselect(key=W.COLUMNS).value
    shown = page_text(elsewhere)
    assert "tokenizer.json (uploaded, " in shown
    assert "PRIVATE" not in shown and "okapi" not in shown
