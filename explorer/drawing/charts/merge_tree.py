"""How one token was built: an icicle chart of `MergeHistory.merge_tree(token_id)`, the token on top, its
two parents below, down to the initial symbols.

What it does not do: build the tree (explorer.training.bpe.merge_history does).
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from explorer.drawing.charts.labels import escape


def merge_tree_figure(tree: dict, labels: Sequence[str]) -> go.Figure:
    """Icicle chart of `MergeHistory.merge_tree(token_id)`: the token on top, its two parents below, down
    to characters. Box widths count the characters (initial symbols) each part covers."""
    ids, parents, texts, values, hovers = [], [], [], [], []

    def visit(node: dict, path: str, parent: str) -> int:
        children = node["children"]
        size = (
            sum(visit(child, f"{path}/{index}", path) for index, child in enumerate(children))
            if children
            else 1
        )
        ids.append(path)
        parents.append(parent)
        texts.append(escape(labels[node["id"]]))
        values.append(size)
        rank = "initial symbol" if node["rank"] is None else f"merge {node['rank'] + 1:,}"
        hovers.append(f"id {node['id']}, {rank}")
        return size

    visit(tree, "0", "")
    return go.Figure(
        {
            "data": [
                {
                    "type": "icicle",
                    "ids": ids,
                    "parents": parents,
                    "labels": texts,
                    "values": values,
                    "branchvalues": "total",
                    "customdata": hovers,
                    "hovertemplate": "%{label}<br>%{customdata}<extra></extra>",
                    "tiling": {"orientation": "v"},
                    "textfont": {"size": 16},
                    "sort": False,
                }
            ],
            "layout": {"margin": {"l": 10, "r": 10, "t": 10, "b": 10}, "height": 300},
        }
    )
