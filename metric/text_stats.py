"""Cheap repetition detectors of HelloBench's meta-evaluation (paper Table 5).

- Repetition-4: the share of 4-gram occurrences whose 4-gram occurs more than once in the text.
- Distinct-4: the number of distinct 4-grams divided by the number of tokens (as SPEC.md states it; the
  more common Distinct-n divides by the number of n-grams, which differs by n - 1 in the denominator).
Tokens are `nltk.word_tokenize` tokens (see `words.py`), case kept.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .words import word_tokenize


def ngrams(tokens: Sequence[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


def as_tokens(text_or_tokens: str | Sequence[str]) -> Sequence[str]:
    return word_tokenize(text_or_tokens) if isinstance(text_or_tokens, str) else text_or_tokens


def repetition_n(text_or_tokens: str | Sequence[str], n: int = 4) -> float:
    """Share (0..1) of n-gram occurrences that repeat; 0.0 when the text has no n-gram."""
    grams = ngrams(as_tokens(text_or_tokens), n)
    if not grams:
        return 0.0
    counts = Counter(grams)
    return sum(1 for gram in grams if counts[gram] > 1) / len(grams)


def distinct_n(text_or_tokens: str | Sequence[str], n: int = 4) -> float:
    """Distinct n-grams per token (0..1); 0.0 for an empty text."""
    tokens = as_tokens(text_or_tokens)
    if not tokens:
        return 0.0
    return len(set(ngrams(tokens, n))) / len(tokens)
