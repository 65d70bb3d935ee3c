"""The worked example of the pairwise metric's card (the first block of its "How to Use") and of its Space's page:
the arguments of one `compute` call."""

from typing import Any

EXAMPLE: dict[str, Any] = {
    "predictions": ["A", "B", "equally_good", "unscored"],
    "references": ["A", "A", "equally_good", "B"],
}
DIGITS = 3  # the decimals its card prints its figures with, and its Space page shows
