"""LongBench-Write (Bai et al., LongWriter): output length (CJK characters + English words), S_l, the six-dimension
quality judge, S_q and S = (S_l + S_q) / 2."""

from .judge import PARSER_RULES, ParsedJudgement, judge_prompt, parse_judgement
from .scoring import (
    BUCKETS,
    Item,
    LongBenchWriteScores,
    bucket_of,
    count_length,
    length_score,
    quality_score,
    score_items,
)
from .settings import paper_settings

__all__ = [
    "BUCKETS",
    "PARSER_RULES",
    "Item",
    "LongBenchWriteScores",
    "ParsedJudgement",
    "bucket_of",
    "count_length",
    "judge_prompt",
    "length_score",
    "paper_settings",
    "parse_judgement",
    "quality_score",
    "score_items",
]
