"""calibrated.json (written by `longform-eval calibrate`) side by side: the judge's figure, the humans' and PPI++."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from longform_eval.common.bounded_json import loads_json
from longform_eval.common.guarded import DOCUMENT, read_bytes
from longform_eval.common.plurals import counted

CALIBRATED_FILE = "calibrated.json"
ROWS = (("judge_only", "judge only"), ("human_only", "humans only"), ("ppi", "calibrated (PPI++)"))


def calibration_lines(folder: str | Path) -> list[str]:
    """Markdown lines for the run's calibrated.json; none when it has none (one line when it cannot be read)."""
    path = Path(folder) / CALIBRATED_FILE
    if not path.exists():
        return []
    try:
        document = loads_json(read_bytes(path, DOCUMENT))  # a FIFO, a device or a file too large: cannot be read
        return [line for name, figure in document["figures"].items() for line in figure_lines(document, name, figure)]
    except (OSError, ValueError, KeyError, TypeError) as error:
        return [f"{path}: not shown, it cannot be read ({type(error).__name__}: {error}); run `calibrate` again"]


def figure_lines(document: dict[str, Any], name: str, figure: dict[str, Any]) -> list[str]:
    factor = 100.0 if str(figure.get("scale", "")).startswith("0..1") else 1.0
    level = f"{100 * document.get('level', 0.95):g}%"
    lines = [
        f"Human-calibrated `{name}` (humans: {document.get('human_source')}; {level} intervals):",
        "",
        f"| estimate | {name} | {level} interval | se | n human | n judge | lam |",
        "|---|---|---|---|---|---|---|",
    ]
    for key, label in ROWS:
        lines.append(estimate_row(label, figure.get(key), factor))
    if figure.get("absent"):
        lines += ["", f"No calibrated figure: {figure['absent']}."]
    lines += agreement_lines(figure)
    lines += [f"- {note}" for note in figure.get("notes", [])]
    return ["", *lines, ""]


def estimate_row(label: str, estimate: dict[str, Any] | None, factor: float) -> str:
    if estimate is None:
        return f"| {label} | - | - | - | - | - | - |"
    lam = "" if estimate.get("lam") is None else f"{estimate['lam']:.2f}"
    value = factor * estimate["estimate"]
    if estimate.get("low") is None or estimate.get("high") is None:
        spread, se = f"no interval: {estimate.get('reason') or 'no spread'}", "-"
    else:
        low, high = factor * estimate["low"], factor * estimate["high"]
        spread, se = f"[{low:.2f}, {high:.2f}]", f"{factor * estimate['se']:.2f}"
    return f"| {label} | {value:.2f} | {spread} | {se} | {estimate['n_human']} | {estimate['n_judge']} | {lam} |"


def agreement_lines(figure: dict[str, Any]) -> list[str]:
    agreed = figure.get("agreement")
    if agreed and agreed.get("n"):
        intervals = {k: v and [v["low"], v["high"]] for k, v in (agreed.get("intervals") or {}).items()}
        notes = agreed.get("interval_notes") or {}
        kappa = (
            f"undefined ({notes.get('cohen_kappa', 'a single label on both sides')})"
            if agreed.get("cohen_kappa") is None
            else f"{agreed['cohen_kappa']:.3f}{span(intervals.get('cohen_kappa'), notes.get('cohen_kappa'))}"
        )
        return [
            "",
            f"Judge-human agreement on {counted(agreed['n'], 'matched label')} ({agreed['label_set']}): "
            f"{agreed['agreement']:.3f}"
            f"{span(intervals.get('agreement'), notes.get('agreement'))}, Cohen's kappa {kappa}.",
        ]
    rows = figure.get("row_agreement") or {}
    if rows.get("mean_difference") is None:
        return []
    notes = rows.get("notes") or {}
    r = (
        f"undefined ({notes.get('pearson_r', 'a side does not vary')})"
        if rows.get("pearson_r") is None
        else f"{rows['pearson_r']:.3f}{span(rows.get('pearson_r_interval'), notes.get('pearson_r'))}"
    )
    difference = span(rows.get("mean_difference_interval"), notes.get("mean_difference"), ".2f")
    return [
        "",
        f"Judge vs human row scores on {counted(figure.get('n_human', 0), 'annotation')}: Pearson r {r}, mean judge - "
        f"human {rows['mean_difference']:+.2f}{difference}.",
    ]


def span(interval: list[float] | None, why: str | None = None, digits: str = ".3f") -> str:
    """` [low, high]`; ` [no interval: why]` where there is a reason for none; nothing otherwise."""
    if not interval:
        return f" [no interval: {why}]" if why else ""
    return f" [{interval[0]:{digits}}, {interval[1]:{digits}}]"


def print_calibration_view(folders: Iterable[str | Path]) -> None:
    """Each run's calibrated figures, under its folder's name (nothing for runs without calibrated.json)."""
    for folder in folders:
        lines = calibration_lines(folder)
        if lines:
            print("\n".join([f"{folder}:", *lines]))


__all__ = ["CALIBRATED_FILE", "calibration_lines", "print_calibration_view"]
