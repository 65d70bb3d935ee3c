"""HelloBench's human-fitted checklist weights (`weighted_scores.txt`), parsed without eval."""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path

from longform_eval.common.atomic import write_text_atomic
from longform_eval.common.errors import SourceError
from longform_eval.common.records import read_text

WEIGHT_TOTAL = 100.0


def load_weights(path: Path) -> dict[str, list[float]]:
    """Parse `{subcategory: [weight, ...]}` from a Python literal (optionally `NAME = {...}`) or JSON.

    Each list must hold numbers summing to 100; a task-grouped JSON (`{task: {sub: [...]}}`) is flattened.
    """
    text = read_text(path)
    try:
        tree = ast.parse(text, filename=str(path))
    except SyntaxError as error:
        raise SourceError(path, error.lineno, None, f"not a Python/JSON literal ({error.msg})") from error
    node = literal_node(path, tree)
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError) as error:
        raise SourceError(path, node.lineno, None, f"not a literal ({error})") from error
    if not isinstance(value, dict):
        raise SourceError(path, node.lineno, None, "expected a mapping subcategory -> weights")
    lines = key_lines(node)
    if value and all(isinstance(v, dict) for v in value.values()):
        value = {sub: weights for group in value.values() for sub, weights in group.items()}
    return {sub: checked_weights(path, lines.get(sub), sub, weights) for sub, weights in value.items()}


def literal_node(path: Path, tree: ast.Module) -> ast.expr:
    if len(tree.body) != 1 or not isinstance(tree.body[0], (ast.Assign, ast.Expr)):
        raise SourceError(path, 1, None, "expected one literal, optionally assigned to a name")
    return tree.body[0].value


def key_lines(node: ast.expr) -> dict[str, int]:
    """Line of each subcategory key, including keys nested one level under a task."""
    lines: dict[str, int] = {}
    if isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values, strict=True):
            if isinstance(key, ast.Constant):
                lines[key.value] = key.lineno
            lines.update(key_lines(value))
    return lines


def checked_weights(path: Path, line: int | None, subcategory: str, weights: object) -> list[float]:
    if not isinstance(weights, list) or not weights:
        raise SourceError(path, line, subcategory, "expected a non-empty list of numbers")
    if not all(isinstance(w, (int, float)) and not isinstance(w, bool) and math.isfinite(w) for w in weights):
        raise SourceError(path, line, subcategory, "every weight must be a finite number")
    total = math.fsum(weights)
    if not math.isclose(total, WEIGHT_TOTAL, abs_tol=1e-6):
        raise SourceError(path, line, subcategory, f"weights sum to {total:.6f}, expected {WEIGHT_TOTAL:g}")
    return [float(w) for w in weights]


def dump_weights(weights: dict[str, list[float]], path: Path, header: str = "") -> None:
    """Write weights in the shipped form: a Python dict literal (also valid JSON) named REGRESSION_DICT.

    `header` (comment lines, each starting with `#`) goes first.
    """
    write_text_atomic(path, header + "REGRESSION_DICT = " + json.dumps(weights, indent=4) + "\n")
