"""The worked example of HelloEval's card (the first block of its "How to Use") and of its Space's page: the
arguments of one `compute` call."""

from typing import Any

EXAMPLE: dict[str, Any] = {
    "predictions": [[1, 1, 1, 1, 1, 1], [0.75] * 7],  # checklist scores per row...
    "references": ["report_write", "Science"],  # ...and the row's subcategory ("category")
}
DIGITS = 2  # the decimals its card prints its figures with, and its Space page shows
