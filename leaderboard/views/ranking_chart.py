"""The chart of a view's ranking: each model's score with its 95% interval as a bar, best at
the top, the models of one tie group in one colour (the colours alternate from group to
group), as LMArena draws its confidence intervals."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from leaderboard.views.table import INTERVAL

GROUP_COLOURS = ["#4C78A8", "#F58518"]  # alternate tie groups
ROW_PX = 22  # the chart's height per model
MAX_MODELS = 200  # more cannot be read in one chart: the first of the view's order
LABEL_CHARS = 22  # a model's label cut short (a phone's chart keeps room for the bars); whole on hover


def ranking_chart(table: pd.DataFrame, score_column: str) -> go.Figure:
    """`table`: rows of a leaderboard_table in the view's order (rank, Model, the score,
    its "95% low"/"high" columns and the tie group when the board has intervals)."""
    shown = table.head(MAX_MODELS)
    rank, group_column = shown.columns[0], next((c for c in shown.columns if c.endswith("ie group")), None)
    low, high = f"{score_column} {INTERVAL} low", f"{score_column} {INTERVAL} high"
    labels = [f"{r}. {m if len(m) <= LABEL_CHARS else m[:LABEL_CHARS - 1] + '…'}"
              for r, m in zip(shown[rank], shown["Model"])]
    groups = shown[group_column].astype(str) if group_column else pd.Series("", index=shown.index)
    first_of_group = ~groups.duplicated()
    colour_index = first_of_group.cumsum() - 1  # the n-th tie group from the top
    fig = go.Figure()
    for parity, colour in enumerate(GROUP_COLOURS):
        rows = (colour_index % 2 == parity).to_numpy()
        part = shown[rows]
        intervals = low in shown and high in shown
        fig.add_trace(go.Scatter(
            x=part[score_column], y=[label for label, keep in zip(labels, rows) if keep], mode="markers",
            marker={"color": colour, "size": 8}, showlegend=False,
            error_x={"type": "data", "symmetric": False, "array": (part[high] - part[score_column]).tolist(),
                     "arrayminus": (part[score_column] - part[low]).tolist(), "color": colour,
                     "thickness": 2, "width": 0} if intervals else None,
            customdata=list(zip(groups[rows], part[low] if intervals else part[score_column],
                                part[high] if intervals else part[score_column], part["Model"])),
            hovertemplate=("%{customdata[3]}<br>" + score_column + " %{x:.2f}" + (
                f"<br>{INTERVAL} interval %{{customdata[1]:.2f}}–%{{customdata[2]:.2f}}<br>tie group %{{customdata[0]}}"
                if intervals else "") + "<extra></extra>")))
    fig.update_layout(height=120 + ROW_PX * len(shown), margin={"l": 10, "r": 10, "t": 40, "b": 40},
                      title={"text": f"{score_column}, {INTERVAL} intervals<br>(one colour a tie group)",
                             "font": {"size": 13}},
                      xaxis={"title": {"text": score_column}, "range": [-2, 102]},
                      yaxis={"autorange": "reversed", "automargin": True, "categoryorder": "array",
                             "categoryarray": labels})
    return fig
