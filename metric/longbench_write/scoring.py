"""LongBench-Write figures, as upstream `eval_length.py` and `eval_quality.py` compute them (LongWriter @ 3fcfdff).

- Output length = CJK characters (`[\\u4e00-\\u9fff]`) + English words (`\\b[a-zA-Z]+\\b`), counted with Python's
  `re` as upstream `pred.py` does. `\\b` sees CJK characters and digits as word characters, so Latin letters glued
  to them are no word ("Python编程" counts 2, "abc123" counts 0), as upstream.
- S_l per item, required length x, output length y: `100 * max(0, 1 - (y/x - 1)/3)` if y > x, else
  `100 * max(0, 1 - (x/y - 1)/2)`; an empty output (y = 0, where upstream divides by zero) scores 0.
  S_l = mean over the items.
- S_q: per dimension `(mean score - 1) * 25` over the scored items, then the mean of the six dimensions. Unscored
  items are left out of S_q and counted, never given a score.
- S = (S_l + S_q) / 2 (S_l over every generated item, S_q over the scored ones, as upstream).
- S_l per required-length bucket: the paper's [0,500), [500,2k), [2k,4k), [4k,20k] (20,000 belongs to the last);
  required lengths above 20,000 (the ruler probe's 30,000) fall in ">20k".
"""

from __future__ import annotations

import numbers
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..unscored import Unscored
from .settings import paper_settings

CJK_CHARACTER = re.compile(r"[\u4e00-\u9fff]")
ENGLISH_WORD = re.compile(r"\b[a-zA-Z]+\b")
# The paper's four buckets of required length, then what lies beyond 20,000 (the ruler probe's 30,000).
BUCKETS = ("[0,500)", "[500,2k)", "[2k,4k)", "[4k,20k]", ">20k")


def cjk_characters(text: str) -> int:
    return len(CJK_CHARACTER.findall(text))


def english_words(text: str) -> int:
    return len(ENGLISH_WORD.findall(text))


def count_length(text: str) -> int:
    """Upstream's length of a text: CJK characters + English words."""
    if not isinstance(text, str):
        raise ValueError(f"expected the output text, got {type(text).__name__}")
    return cjk_characters(text) + english_words(text)


def is_count(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def length_score(required: int, actual: int) -> float:
    """S_l of one output of length `actual` asked to be `required` long (0..100)."""
    if not is_count(required) or required <= 0:
        raise ValueError(f"required length must be a positive integer, got {required!r}")
    if not is_count(actual) or actual < 0:
        raise ValueError(f"output length must be a non-negative integer, got {actual!r}")
    if actual == 0:
        return 0.0
    if actual > required:
        return 100 * max(0.0, 1.0 - (actual / required - 1) / 3)
    return 100 * max(0.0, 1.0 - (required / actual - 1) / 2)


def bucket_of(required: int) -> str:
    """The bucket of a required length: [0,500), [500,2k), [2k,4k), [4k,20k] (20,000 included) or >20k."""
    if not is_count(required) or required <= 0:
        raise ValueError(f"required length must be a positive integer, got {required!r}")
    if required < 500:
        return BUCKETS[0]
    if required < 2_000:
        return BUCKETS[1]
    if required < 4_000:
        return BUCKETS[2]
    return BUCKETS[3] if required <= 20_000 else BUCKETS[4]


def dimension_scores(verdict: Mapping[str, float]) -> dict[str, float]:
    """Each dimension's score on 0..100: `(score - 1) * 25`."""
    return {dimension: (float(verdict[dimension]) - 1) * 25 for dimension in paper_settings().dimensions}


def quality_score(verdict: Mapping[str, float]) -> float:
    """One item's S_q: the mean of its six dimension scores on 0..100."""
    scores = dimension_scores(verdict)
    return sum(scores.values()) / len(scores)


@dataclass(frozen=True)
class Item:
    """One output: its required and counted length, and its judge verdict (None: not judged)."""

    item_id: str
    required: int
    length: int
    verdict: Mapping[str, float] | Unscored | None = None
    language: str | None = None


@dataclass
class Part:
    """The figures of a group of items (a bucket, a language)."""

    n_items: int = 0
    n_scored: int = 0
    s_l: float | None = None
    s_q: float | None = None


@dataclass
class LongBenchWriteScores:
    s_l: float | None
    s_q: float | None
    s: float | None
    n_items: int
    n_judged: int
    n_scored: int
    n_unscored: int
    unscored_reasons: dict[str, int]
    dimensions: dict[str, float | None]
    buckets: dict[str, Part] = field(default_factory=dict)
    by_language: dict[str, Part] = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def check_verdict(verdict: object, where: str) -> None:
    if verdict is None or isinstance(verdict, Unscored):
        return
    if not isinstance(verdict, Mapping):
        raise ValueError(f"{where}: expected a verdict (dimension -> score), Unscored or None, got {verdict!r}")
    low, high = paper_settings().score_range
    for dimension in paper_settings().dimensions:
        value = verdict.get(dimension)
        if not isinstance(value, numbers.Real) or isinstance(value, bool) or not low <= value <= high:
            raise ValueError(f"{where}[{dimension!r}]: expected a score in [{low:g}, {high:g}], got {value!r}")


def part_of(items: Iterable[Item]) -> Part:
    items = list(items)
    scored = [item.verdict for item in items if isinstance(item.verdict, Mapping)]
    return Part(
        n_items=len(items),
        n_scored=len(scored),
        s_l=mean([length_score(item.required, item.length) for item in items]),
        s_q=mean([quality_score(verdict) for verdict in scored]),
    )


def score_items(items: Sequence[Item]) -> LongBenchWriteScores:
    """S_l, S_q, S, the six dimensions, S_l per bucket and per language, and one row per item."""
    for index, item in enumerate(items):
        check_verdict(item.verdict, f"item {index} ({item.item_id})")
    scored = [item.verdict for item in items if isinstance(item.verdict, Mapping)]
    unscored = [item.verdict for item in items if isinstance(item.verdict, Unscored)]
    dimensions = {
        dimension: None if not scored else (mean([float(v[dimension]) for v in scored]) - 1) * 25
        for dimension in paper_settings().dimensions
    }
    overall = part_of(items)
    s_q = mean(list(dimensions.values())) if scored else None
    by_bucket = {name: [item for item in items if bucket_of(item.required) == name] for name in BUCKETS}
    languages = sorted({item.language for item in items if item.language is not None})
    return LongBenchWriteScores(
        s_l=overall.s_l,
        s_q=s_q,
        s=None if overall.s_l is None or s_q is None else (overall.s_l + s_q) / 2,
        n_items=len(items),
        n_judged=len(scored) + len(unscored),
        n_scored=len(scored),
        n_unscored=len(unscored),
        unscored_reasons=dict(Counter(verdict.reason for verdict in unscored).most_common()),
        dimensions=dimensions,
        buckets={name: part_of(members) for name, members in by_bucket.items() if members},
        by_language={language: part_of(i for i in items if i.language == language) for language in languages},
        rows=[row_of(item) for item in items],
    )


def row_of(item: Item) -> dict[str, Any]:
    verdict = item.verdict
    return {
        "id": item.item_id,
        "required": item.required,
        "length": item.length,
        "bucket": bucket_of(item.required),
        "language": item.language,
        "s_l": length_score(item.required, item.length),
        "s_q": quality_score(verdict) if isinstance(verdict, Mapping) else None,
        "unscored": verdict.reason if isinstance(verdict, Unscored) else None,
    }
