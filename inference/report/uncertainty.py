"""What report.md says about its intervals: how they were computed and what they mean, and where their variance
comes from (the choice of prompts or the judge's noise), so that a user knows whether more prompts or more judge
samples would narrow them more. Generic: read from scores.json's `intervals`, `interval_method`, `judge_samples`,
`judge_sd` and `variance_split` (see `runner/uncertainty.py`).
"""

from __future__ import annotations

from pathlib import Path

from ..benchmarks import Benchmark
from ..benchmarks.run_scores import RunScores, VarianceParts
from ..runner.folder import CONFIG_FILE, read_config
from .sections.tables import fmt


def interval_sentences(scores: RunScores) -> list[str]:
    """How the intervals were computed and what they mean, said once (nothing for a scores.json before intervals),
    which bounds were clipped to the figure's scale, and why a figure has no interval."""
    if not scores.has_intervals:
        return []
    method = scores.interval_method or "method not recorded"
    if not any(scores.intervals.values()):
        return [f"No figure has an interval ({method}).", *note_sentences(scores)]
    samples = scores.judge_samples
    noise = (
        f"the judge's sampling noise is inside it, measured from {samples} judge samples per call"
        if samples > 1
        else "the judge's sampling noise is inside it, though one judge sample per call cannot tell it from the "
        "prompts'"
    )
    return [
        f"In brackets: the 95% interval ({method}). Another sample of prompts like these, judged the same way, would "
        f"give a figure in this range 95% of the time; {noise}. It does not cover the judge's bias: a judge that "
        "favours some answers moves the figure and its interval together. `[no interval]`: too few scored units.",
        *note_sentences(scores),
    ]


def note_sentences(scores: RunScores) -> list[str]:
    """The figures whose bounds were clipped to their scale, and why a figure has no interval."""
    clipped = [name for name, found in scores.intervals.items() if found is not None and found.clipped]
    lines = []
    if clipped:
        lines.append(
            f"Clipped to the figure's scale (a bound of figure ± t x SE lay past what the scale allows): "
            f"{', '.join(f'`{name}`' for name in clipped)}."
        )
    notes = scores.interval_notes
    if notes:
        lines.append("No interval: " + "; ".join(f"`{name}`: {why}" for name, why in notes.items()) + ".")
    return lines


VARIANCE_TITLE = "## Where the variance comes from"
MEASURE_NOISE = (
    "Judge noise not measured: this run took one judge sample per call, so its intervals cannot say how much of "
    "their width is the judge's and how much the choice of prompts'. To measure it, judge again with "
    "`--judge-samples 2` (or more): `longform-eval judge FOLDER --judge-samples 2`, then `longform-eval score FOLDER` "
    "and `longform-eval report FOLDER` (or the same `run` command with the option); only the new samples' judge calls "
    "are made."
)


GREEDY_JUDGE = (
    "The judge samples at temperature 0: another sample of it gives the same verdict, so the intervals' width is the "
    "choice of prompts' (and more judge samples would buy nothing)."
)


def judge_temperature(folder: Path) -> float | None:
    """The judge's sampling temperature recorded in the run's config.yaml (None: not recorded)."""
    if not (Path(folder) / CONFIG_FILE).is_file():
        return None
    judging = read_config(Path(folder)).get("judge_generation")
    return judging.get("temperature") if isinstance(judging, dict) else None


def variance_lines(scores: RunScores, benchmark: Benchmark, temperature: float | None = None) -> list[str]:
    """The report.md section: per figure, the shares of its variance from the prompts and from the judge, and
    whether more prompts or more judge samples would narrow it more."""
    split = scores.variance_split
    if not isinstance(split, dict):
        return [VARIANCE_TITLE, "", unmeasured(scores, temperature)]
    samples = scores.judge_samples
    lines = [
        VARIANCE_TITLE,
        "",
        f"Judge noise measured with {samples} judge samples per call: one sample of a row's score differs from "
        f"another by a standard deviation of {fmt(scores.judge_sd, 3)} (judge_sd, in the row score's units).",
        "",
    ]
    for name, parts in split.items():
        lines.append(f"- {variance_advice(name, parts, samples, 100.0 if name in benchmark.percent_figures else 1.0)}")
    return lines + [
        "",
        f"With n scored prompts and K = {samples} judge samples per call, doubling the prompts costs n generations "
        "and n x K judge calls more; doubling the judge samples costs the same judge calls and no generation. Judge "
        "samples are the better buy where they bring at least half of the gain doubling the prompts would.",
    ]


def unmeasured(scores: RunScores, temperature: float | None) -> str:
    """Why the run's variance is not split, and how to split it."""
    if scores.judge_samples < 2:
        return GREEDY_JUDGE if temperature == 0 else MEASURE_NOISE
    return f"Not split: {scores.variance_split or 'this benchmark names no row score to split'}."


def variance_advice(name: str, parts: VarianceParts | None, samples: int, scale: float) -> str:
    """One figure's line: its SE, the shares, and what doubling the prompts or the judge samples would bring."""
    if parts is None:
        return f"`{name}`: not measured (no row has two scored judge samples, or the figure is undefined)."
    se, more_prompts = parts.se, parts.se_twice_the_prompts
    line = (
        f"`{name}` (SE {fmt(scale * se, 3)}): {parts.prompt_share:.0%} of the variance from the prompts, "
        f"{parts.judge_share:.0%} from the judge. Doubling the prompts ({parts.n} to {2 * parts.n}) would "
        f"bring the SE to {fmt(scale * more_prompts, 3)}"
    )
    more_samples = parts.se_twice_the_judge_samples
    if more_samples is None:
        return line + "."
    line += f"; doubling the judge samples ({samples} to {2 * samples}), to {fmt(scale * more_samples, 3)}"
    gained = se - more_prompts
    if gained <= 0:
        return line + "."
    share = (se - more_samples) / gained
    buy = "buy judge samples" if share >= 0.5 else "buy prompts"
    return line + f", {share:.0%} of that gain without a new generation: {buy}."
