"""Every error the toolkit raises for a user's input is a LongformEvalError: `except le.LongformEvalError` catches
them all (a changed setting's RunConfigMismatch included), and each keeps the built-in class it refines."""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

import pytest

import longform_eval as le

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("dataset_builder", "metric", "inference", "spaces", "cards", "longform_eval")
BUILTIN_ERRORS = {  # warnings are no errors: a StaleResultWarning is shown, never raised
    name
    for name, cls in vars(builtins).items()
    if isinstance(cls, type) and issubclass(cls, Exception) and not issubclass(cls, Warning)
}


def error_classes() -> list[tuple[str, str, list[str]]]:
    """(file, class, base names) of every class in the package whose bases include a built-in exception."""
    found = []
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef):
                    bases = [b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases]
                    if set(bases) & BUILTIN_ERRORS:
                        found.append((str(path.relative_to(REPO)), node.name, bases))
    return found


def test_every_error_class_has_the_common_base():
    classes = error_classes()
    assert len(classes) >= 20  # the scan sees the package's errors
    missing = [f"{file}: {name}({', '.join(b)})" for file, name, b in classes if "LongformEvalError" not in {name, *b}]
    assert not missing, "not under LongformEvalError: " + "; ".join(missing)


def test_a_changed_setting_is_caught_by_the_exported_base():
    assert issubclass(le.RunConfigMismatch, le.LongformEvalError) and issubclass(le.RunConfigMismatch, ValueError)
    assert issubclass(le.ConfigError, le.LongformEvalError)
    with pytest.raises(le.LongformEvalError, match="another"):
        raise le.RunConfigMismatch(["generation"], "another configuration")
    for name in le.ERRORS:
        assert issubclass(getattr(le, name), le.LongformEvalError), name
