"""Which runs can be compared: the one rule that `report`, `compare`, `leaderboard` and power plans share.

Two runs belong in one table when every field that decides their figures agrees:

- the benchmark config (benchmark, config and, for the pairwise benchmarks, the baseline) and its options;
- the dataset (its content hash) and the prompts: the selection, normalized so that `{}` (what `import-generations`
  writes) and the explicit defaults (`run`'s `{limit: null, per_group: null, groups: [], shortest: false}`) are
  one;
- the judge, by its identity: its display name (`--judge-name`) when one is given, else its BACKEND:MODEL and the
  options that change its replies; and the settings that change its verdicts (parser, think handling, constrained
  replies, and the sampling settings, except for a judge that replays recorded verdicts: a replayed verdict does
  not depend on the temperature it was not sampled at). The number of judge samples is not one of them: more
  samples narrow a figure's judge noise, they do not change what it measures (a run judged twice is compared on
  the mean of its samples).

Where two runs are kept apart, `separation_reason` names every field in which they differ, each whole.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..backends import replays_recorded
from ..runner.config import RunConfig, without_neutral_options

LABELS = {
    "benchmark": "benchmark config",
    "benchmark_args": "benchmark options",
    "dataset_hash": "dataset",
    "selection": "prompt selection",
    "judge": "judge",
    "judge_settings": "judge settings",
}


@dataclass(frozen=True)
class Comparability:
    """What must agree for two runs to share a table (LABELS), and `key`: those fields as one string."""

    fields: dict[str, Any]

    @property
    def key(self) -> str:
        return json.dumps(self.fields, sort_keys=True, default=str)


def normalized_selection(selection: dict[str, Any] | None) -> dict[str, Any]:
    """The selection without its unset fields (None, empty, False): `{}` and the explicit defaults are one."""
    return {name: value for name, value in sorted((selection or {}).items()) if value not in (None, [], (), False, 0)}


def judge_identity(config: RunConfig) -> dict[str, Any] | None:
    """Who judged: the display name when given, else BACKEND:MODEL and the options that change its replies."""
    if config.judge is None:
        return None
    if config.judge_name:
        return {"name": config.judge_name}
    spec = without_neutral_options(config.judge.model_dump(mode="json"))
    options = spec.get("options") or {}
    return {"name": config.judge.name} | ({"options": options} if options else {})


def judge_settings(config: RunConfig) -> dict[str, Any] | None:
    """The settings that change a judge's verdicts; the sampling settings only where verdicts are sampled."""
    if config.judge is None:
        return None
    settings: dict[str, Any] = {
        "parser": config.parser,
        "strip_think": config.strip_think,
        "constrained_judge": config.constrained_judge,
    }
    if not replays_recorded(config.judge.backend):
        settings["judge_generation"] = config.judge_generation.model_dump(mode="json")
    return settings


def comparability(config: RunConfig, benchmark_config: str) -> Comparability:
    """The comparability of a run with `config`, whose scores.json names `benchmark_config` (benchmark:config, and
    ` vs BASELINE` for a pairwise benchmark)."""
    return Comparability(
        {
            "benchmark": benchmark_config,
            "benchmark_args": config.benchmark_args,
            "dataset_hash": config.dataset_hash,
            "selection": normalized_selection(config.selection),
            "judge": judge_identity(config),
            "judge_settings": judge_settings(config),
        }
    )


def separation_reason(mine: Comparability, first: Comparability) -> str:
    """Each field of LABELS in which `mine` differs from `first`, with both values whole."""
    parts = []
    for name, label in LABELS.items():
        ours, theirs = mine.fields[name], first.fields[name]
        if ours == theirs:
            continue
        if isinstance(ours, dict) and isinstance(theirs, dict):
            changed = sorted(k for k in {*ours, *theirs} if ours.get(k) != theirs.get(k))
            shown = ", ".join(f"{k} {shown_value(ours.get(k))}, not {shown_value(theirs.get(k))}" for k in changed)
            parts.append(f"other {label} ({shown})")
        else:
            parts.append(f"other {label}: {shown_value(ours)}, not {shown_value(theirs)}")
    return "; ".join(parts)


def shown_value(value: Any) -> str:
    if value in (None, "", {}, []):
        return "none"
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False)


__all__ = ["Comparability", "comparability", "normalized_selection", "separation_reason"]
