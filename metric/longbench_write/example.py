"""The worked example of LongBench-Write's card (the first block of its "How to Use") and of its Space's page: the
arguments of one `compute` call."""

from typing import Any

REPLY = (  # a judge's reply to the prompt of the output
    '{"Analysis": "Clear.", "Relevance": 4, "Accuracy": 4, "Coherence": 4, "Clarity": 4, '
    '"Breadth and Depth": 4, "Reading Experience": 4}'
)
EXAMPLE: dict[str, Any] = {"predictions": ["word " * 200], "references": [100], "judge_completions": [REPLY]}
DIGITS = 2  # the decimals its card prints its figures with, and its Space page shows
