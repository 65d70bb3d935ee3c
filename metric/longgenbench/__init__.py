"""LongGenBench (Wu et al.): split outputs into sub-tasks, yes/no judge per check, CR / STIC-1 / STIC-2 / wAvg."""

from .judge import JUDGE_SETTINGS, judge_prompt, parse_yes_no
from .scoring import ItemResult, LongGenBenchScores, item_result, score_items
from .splitting import MatchedCheck, completion_rate, full_output, match_checks, split_subtasks

__all__ = [
    "JUDGE_SETTINGS",
    "ItemResult",
    "LongGenBenchScores",
    "MatchedCheck",
    "completion_rate",
    "full_output",
    "item_result",
    "judge_prompt",
    "match_checks",
    "parse_yes_no",
    "score_items",
    "split_subtasks",
]
