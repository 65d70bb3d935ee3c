"""calibrated.json (written by `longform-eval calibrate`) side by side: the judge's figure, the humans' and PPI++."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

CALIBRATED_FILE = "calibrated.json"
ROWS = (("judge_only", "judge only"), ("human_only", "humans only"), ("ppi", "calibrated (PPI++)"))


def calibration_lines(folder: str | Path) -> list[str]:
    """Markdown lines for the run's calibrated.json; none when it has none (one line when it cannot be read)."""
    path = Path(folder) / CALIBRATED_FILE
    if not path.is_file():
        return []
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
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
    value, low, high, se = (factor * estimate[k] for k in ("estimate", "low", "high", "se"))
    return (
        f"| {label} | {value:.2f} | [{low:.2f}, {high:.2f}] | {se:.2f} | {estimate['n_human']} | "
        f"{estimate['n_judge']} | {lam} |"
    )


def agreement_lines(figure: dict[str, Any]) -> list[str]:
    agreed = figure.get("agreement")
    if agreed and agreed.get("n"):
        intervals = figure.get("agreement_intervals") or {}
        kappa = "undefined" if agreed.get("kappa") is None else f"{agreed['kappa']:.3f}{span(intervals.get('kappa'))}"
        return [
            "",
            f"Judge-human agreement on {agreed['n']} matched labels: {agreed['agreement']:.3f}"
            f"{span(intervals.get('agreement'))}, Cohen's kappa {kappa}.",
        ]
    rows = figure.get("row_agreement") or {}
    if rows.get("pearson_r") is not None:
        return [
            "",
            f"Judge vs human row scores on {figure.get('n_human')} annotations: Pearson r {rows['pearson_r']:.3f}"
            f"{span(rows.get('pearson_r_interval'))}, mean judge - human {rows['mean_difference']:+.2f}"
            f"{span(rows.get('mean_difference_interval'), '.2f')}.",
        ]
    return []


def span(interval: list[float] | None, digits: str = ".3f") -> str:
    return "" if not interval else f" [{interval[0]:{digits}}, {interval[1]:{digits}}]"


def print_calibration_view(folders: Iterable[str | Path]) -> None:
    """Each run's calibrated figures, under its folder's name (nothing for runs without calibrated.json)."""
    for folder in folders:
        lines = calibration_lines(folder)
        if lines:
            print("\n".join([f"{folder}:", *lines]))


__all__ = ["CALIBRATED_FILE", "calibration_lines", "print_calibration_view"]
