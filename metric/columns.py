"""An `evaluate` module's input columns checked against its features before `evaluate` encodes them.

`evaluate` answers a value of the wrong type with "Predictions and/or references don't match the expected format"
(naming neither the column nor the example), a bare `int()` error ("invalid literal for int() with base 10:
'nonsense'"), a KeyError, or silently cuts 1.5 to 1. Checked here first, each is a ValueError naming the column, the
example and the field: `references[0]: expected an integer, got 'nonsense'`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

SHOWN = 40  # characters of a refused value shown in the message


def is_list(value: object) -> bool:
    return isinstance(value, (Sequence, np.ndarray)) and not isinstance(value, (str, bytes))


def shown(value: object) -> str:
    """A refused value in a message: a scalar as written (cut), a container by its type."""
    if value is None or isinstance(value, (str, bytes, numbers.Number, np.generic)):
        return f"{value!r:.{SHOWN}}"
    return f"a {type(value).__name__}"


def kind_name(feature: Any) -> str:
    """A feature type in words: `string`, `list of number`, `object {id, checks}`."""
    if isinstance(feature, Mapping):
        return "object {" + ", ".join(feature) + "}"
    inner = getattr(feature, "feature", None)  # datasets' List / Sequence / LargeList
    if inner is not None:
        return f"list of {kind_name(inner)}"
    dtype = str(getattr(feature, "dtype", feature))
    if dtype.startswith(("int", "uint")):
        return "integer"
    if dtype.startswith("float"):
        return "number"
    return {"large_string": "string", "bool": "boolean"}.get(dtype, dtype)


def expected(feature: Any) -> str:
    """What `feature` takes, in words: `a string`, `a list of numbers`, `an object {id, checks}`."""
    inner = None if isinstance(feature, Mapping) else getattr(feature, "feature", None)
    if inner is not None:
        return f"a list of {plural(inner)}"
    name = kind_name(feature)
    return ("an " if name[0] in "aeiou" else "a ") + name


def plural(feature: Any) -> str:
    """`expected` of many: `strings`, `lists of numbers`, `objects {kind, subtask}`."""
    if isinstance(feature, Mapping):
        return "objects {" + ", ".join(feature) + "}"
    inner = getattr(feature, "feature", None)
    if inner is not None:
        return f"lists of {plural(inner)}"
    return expected(feature).split(" ", 1)[1] + "s"


def problem(feature: Any, value: object, where: str) -> str | None:
    """Why `value` cannot be an entry of `feature` (`where: expected ..., got ...`), or None if it can. None is left
    to the module's own checks (it names the place), except where a string is expected: `evaluate` refuses it there."""
    if isinstance(feature, Mapping):
        return mapping_problem(feature, value, where)
    inner = getattr(feature, "feature", None)
    if inner is not None:
        if value is None:
            return None
        if not is_list(value):
            return f"{where}: expected {expected(feature)}, got {shown(value)}"
        found = (problem(inner, item, f"{where}[{index}]") for index, item in enumerate(value))
        return next((text for text in found if text is not None), None)
    dtype = str(getattr(feature, "dtype", ""))
    if dtype in ("string", "large_string"):
        fits = isinstance(value, str)
    elif value is None:
        return None
    elif dtype.startswith(("int", "uint")):
        fits = integer_fits(value, dtype)
        if not fits and is_whole(value):
            bounds = np.iinfo(dtype)
            return f"{where}: expected an integer from {bounds.min:,} to {bounds.max:,}, got {shown(value)}"
    elif dtype.startswith("float"):
        fits = isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
    elif dtype == "bool":
        fits = isinstance(value, (bool, np.bool_))
    else:
        return None
    return None if fits else f"{where}: expected {expected(feature)}, got {shown(value)}"


def is_whole(value: object) -> bool:
    """An integer, or a float holding one exactly: no bool, no string, no 1.5 (`evaluate` would cut it to 1)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        return False
    return isinstance(value, numbers.Integral) or (math.isfinite(value) and float(value).is_integer())


def integer_fits(value: object, dtype: str) -> bool:
    """A whole number within `dtype`'s range."""
    if not is_whole(value):
        return False
    bounds = np.iinfo(dtype)
    return bounds.min <= int(value) <= bounds.max


def mapping_problem(feature: Mapping[str, Any], value: object, where: str) -> str | None:
    """An object of the feature's fields: a field it does not have is refused, a missing one left to the module."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        return f"{where}: expected {expected(feature)}, got {shown(value)}"
    unknown = [key for key in value if key not in feature]
    if unknown:
        return f"{where}[{unknown[0]!r}]: unknown field; {where} has {', '.join(feature)}"
    found = (problem(feature[key], value[key], f"{where}[{key!r}]") for key in feature if key in value)
    return next((text for text in found if text is not None), None)


def entry_problem(formats: Sequence[Mapping[str, Any]], name: str, value: object, where: str) -> str | None:
    """Why `value` fits the column `name` in none of the module's input formats, or None."""
    problems = [problem(features[name], value, where) for features in formats]
    if any(found is None for found in problems):
        return None
    if len(formats) == 1:
        return problems[0]
    kinds = " or ".join(dict.fromkeys(expected(features[name]) for features in formats))
    return f"{where}: expected {kinds}, got {shown(value)}"


def check_columns(features: Any, **columns: object) -> None:
    """Raise a ValueError naming the column, the example and the field unless every column is a list whose entries
    all fit one of the module's input formats (`features`: a `datasets.Features` or a list of them). All columns None
    is `evaluate`'s own case (the examples were given to `add_batch`); lengths are left to `evaluate` (its message
    names both columns)."""
    if all(column is None for column in columns.values()):
        return
    formats = features if isinstance(features, list) else [features]
    for name, column in columns.items():
        if column is None:
            raise ValueError(f"{name}: missing; give a list, one entry per example")
        if not is_list(column):
            raise ValueError(f"{name}: expected a list, one entry per example, got {shown(column)}")
        for index, value in enumerate(column):
            found = entry_problem(formats, name, value, f"{name}[{index}]")
            if found is not None:
                raise ValueError(found)
    check_one_format(formats, columns)


def check_one_format(formats: Sequence[Mapping[str, Any]], columns: Mapping[str, Any]) -> None:
    """Every example in the one format the first example takes (`evaluate` picks it from the first example)."""
    if len(formats) < 2:
        return
    empty = next((name for name, column in columns.items() if not len(column)), None)
    if empty is not None:  # evaluate cannot pick a format without a first example
        raise ValueError(f"{empty}: empty; give one entry per example")
    first = next((f for f in formats if all(problem(f[n], c[0], n) is None for n, c in columns.items())), formats[0])
    for name, column in columns.items():
        for index, value in enumerate(column):
            if problem(first[name], value, name) is not None:
                raise ValueError(
                    f"{name}[{index}]: expected {expected(first[name])} as {name}[0] is (one format for every "
                    f"example), got {shown(value)}"
                )


__all__ = ["check_columns", "is_list", "shown"]
