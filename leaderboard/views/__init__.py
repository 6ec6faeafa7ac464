"""What people see, as pandas tables, markdown and plotly figures; no UI code.

table: the ranking table, filters, sorting, exports, plot (shared with the command line);
details: model details and duels; submission: problems, preview, sample file;
share: the view in the URL; markdown: escaping user text.
"""
from leaderboard.views.table import leaderboard_table

__all__ = ["leaderboard_table"]
