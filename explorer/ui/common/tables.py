"""Tables as every page draws them: `st.dataframe` with the first column pinned.

A table wider than its box (any table with a few columns on a phone, the competing pairs at 800 px)
scrolls sideways inside its box; the pinned column, which names each row (a pair, a token, an id),
stays in view while the others scroll under it. A table that shows its index keeps Streamlit's
default: the index is pinned.

What it does not do: build the tables (each page's views do) or choose their columns' formats.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

import streamlit as st

if TYPE_CHECKING:  # pandas only for the type checker: a page's first view imports no pandas
    import pandas as pd
    from pandas.io.formats.style import Styler


def table(
    data: pd.DataFrame | Styler,
    column_config: Mapping[str, Any] | None = None,
    hide_index: bool = True,
    height: int | Literal["auto"] = "auto",
) -> None:
    """Draw `data` with its first column pinned (its index instead, when `hide_index` is False)."""
    config = dict(column_config or {})
    if hide_index:
        first = str(data.columns[0])  # a Styler has its frame's columns too
        config[first] = {**(config.get(first) or {}), "pinned": True}
    st.dataframe(data, hide_index=hide_index, column_config=config, height=height)
