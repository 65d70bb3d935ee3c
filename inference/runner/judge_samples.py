"""Several judge samples per call (`--judge-samples K`): each sample is its own record, with its own seed.

Sample 0 keeps the call's own key (a run judged once is a run with K = 1); sample s > 0 is `<key>~s<s>` and is
judged with seed `seed + s`, so raising K on a finished run makes only the new samples' calls.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from ..benchmarks import JudgeCall
from ..config import GenerationConfig

SAMPLE_KEY = re.compile(r"^(?P<base>.*)~s(?P<sample>[1-9]\d*)$")


def sample_key(key: str, sample: int) -> str:
    return key if sample == 0 else f"{key}~s{sample}"


def split_sample_key(key: str) -> tuple[str, int]:
    """`<key>~s<s>` -> (key, s); a key without the suffix is sample 0."""
    match = SAMPLE_KEY.match(key)
    return (match["base"], int(match["sample"])) if match else (key, 0)


def sample_call(call: JudgeCall, sample: int) -> JudgeCall:
    if sample == 0:
        return call
    key = sample_key(call.key, sample)
    return replace(call, key=key, request=replace(call.request, key=key), meta={**call.meta, "judge_sample": sample})


def sample_settings(settings: GenerationConfig, sample: int) -> GenerationConfig:
    """The judge's sampling settings for sample `sample`: seed, seed + 1, ... (0, 1, ... when the judge has none)."""
    if sample == 0:
        return settings
    return settings.model_copy(update={"seed": (settings.seed or 0) + sample})


def samples_problem(samples: int, settings: GenerationConfig) -> str | None:
    """Why K judge samples would measure nothing, or None: a greedy judge gives the same verdict every time."""
    if samples > 1 and settings.temperature == 0:
        return (
            "the judge decodes greedily (temperature 0), so every sample would repeat the first verdict and measure "
            "no judge noise; keep one judge sample or raise the judge's temperature"
        )
    return None


def verdicts_by_sample(verdicts: dict[str, Any], samples: int) -> list[dict[str, Any]]:
    """Judge-call key -> verdict, split into one dict per sample (keyed by the call's own key); samples past K
    (left by an earlier, larger K) are not used."""
    split: list[dict[str, Any]] = [{} for _ in range(samples)]
    for key, verdict in verdicts.items():
        base, sample = split_sample_key(key)
        if sample < samples:
            split[sample][base] = verdict
    return split


def calls_by_sample(pending: list[tuple[JudgeCall, bool, str]]) -> dict[int, list[tuple[JudgeCall, bool, str]]]:
    """Pending judge calls grouped by judge sample (each sample has its own seed), sample 0 first."""
    groups: dict[int, list[tuple[JudgeCall, bool, str]]] = {}
    for entry in pending:
        groups.setdefault(split_sample_key(entry[0].key)[1], []).append(entry)
    return dict(sorted(groups.items()))
