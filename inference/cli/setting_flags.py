"""The flags of the Python API's typed settings (RunSettings), generated from its fields.

Each field is a flag `--field-name` with the field's type, bounds, description and default, so that a setting added
to RunSettings gets its flag and the command line cannot disagree with the API on a default. ODD_FLAGS maps the few
that are not one typed value; the backend options (`--model-arg`, `--model-config`, ...) are declared in args.py.
A flag not given is no setting (argparse's default None, or the API's own default for an on/off flag)."""

from __future__ import annotations

import argparse
import types
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from typing import Annotated, Any, Union, get_args, get_origin

from annotated_types import Ge, Gt
from pydantic import AfterValidator
from pydantic.fields import FieldInfo

from longform_eval.common.arg_types import Ceiling, dataset_folder_or_repo, finite_float, source_folder

from ..api.defaults import DEFAULT_LIMITS
from ..api.settings import RunSettings
from ..config import parse_model_args
from .help_text import states_default

BACKEND_OPTIONS = ("model_args", "judge_args")  # `--ROLE-arg KEY=VALUE` and `--ROLE-config FILE` (args.py)
ODD_FLAGS: dict[str, dict[str, Any]] = {
    "model_args": {"flag": "--model-arg"},
    "judge_args": {"flag": "--judge-arg"},
    "subcategory": {"action": "append", "metavar": "GROUP"},
    "benchmark_args": {"flag": "--benchmark-arg", "dest": "benchmark_arg", "action": "append", "metavar": "KEY=VALUE"},
    "strip_think": {
        "flag": "--no-strip-think",
        "action": "store_const",
        "const": False,
        "help": "keep <think>...</think> in answers when judging and scoring (default: stripped)",
    },
}
FOLDER_TYPES: dict[str, Callable[[str], str]] = {"dataset": dataset_folder_or_repo, "source": source_folder}
ON_OFF = ["on", "off"]
DEMO = "without --model and --benchmark (the embedded demo)"


def flag_of(field: str) -> str:
    return ODD_FLAGS.get(field, {}).get("flag", f"--{field.replace('_', '-')}")


def dest_of(field: str) -> str:
    return ODD_FLAGS.get(field, {}).get("dest", field)


def add_settings_arguments(parser: argparse.ArgumentParser, fields: Iterable[str], run: bool = False) -> None:
    """One flag per RunSettings field named (the backend options excepted), in the order given; `run`: a command
    that runs a benchmark (`run`, `generate`), whose help also says what the command line adds to the defaults."""
    for name in fields:
        if name not in BACKEND_OPTIONS:
            field = RunSettings.model_fields[name]
            odd = {key: value for key, value in ODD_FLAGS.get(name, {}).items() if key not in ("flag", "help")}
            kwargs = odd or value_kwargs(name, field)
            parser.add_argument(flag_of(name), help=flag_help(name, field, run), **({"dest": name} | kwargs))


def value_kwargs(name: str, field: FieldInfo) -> dict[str, Any]:
    """argparse's type (or action) of a field: its base type, bounds and ceiling (inference/limits.py)."""
    base, constraints = annotated_parts(field.annotation)
    if base is bool:
        return {"action": "store_true"} if field.default is False else {"choices": ON_OFF}
    ceiling = next((check.func.__self__ for check in constraints if is_ceiling(check)), None)
    if ceiling is not None:
        return {"type": ceiling.argument(), "metavar": "N"}
    if base is float:
        return {"type": finite_float(minimum=lower_bound(constraints)), "metavar": "X"}
    return {"type": FOLDER_TYPES.get(name, str)}


def annotated_parts(annotation: Any) -> tuple[Any, list[Any]]:
    """`Annotated[int, ...] | None` -> (int, the constraints, nested FieldInfos flattened)."""
    if get_origin(annotation) in (Union, types.UnionType):
        annotation = next(kind for kind in get_args(annotation) if kind is not type(None))
    if get_origin(annotation) is not Annotated:
        return annotation, []
    base, *metadata = get_args(annotation)
    return base, list(flattened(metadata))


def flattened(metadata: list[Any]) -> Iterator[Any]:
    for item in metadata:
        yield from item.metadata if isinstance(item, FieldInfo) else (item,)


def is_ceiling(constraint: Any) -> bool:
    return isinstance(constraint, AfterValidator) and isinstance(getattr(constraint.func, "__self__", None), Ceiling)


def lower_bound(constraints: list[Any]) -> float | None:
    bounds = [bound.ge if isinstance(bound, Ge) else bound.gt for bound in constraints if isinstance(bound, (Ge, Gt))]
    return bounds[0] if bounds else None


def flag_help(name: str, field: FieldInfo, run: bool) -> str:
    """The field's description, its default (if the description does not say it) and how the command line differs."""
    text = ODD_FLAGS.get(name, {}).get("help") or field.description or ""
    if not states_default(text) and field.default not in (None, False):
        text += f" (default: {field.default})"
    notes = command_line_notes().get(name) if run else None
    return (f"{text}. {notes}" if notes else text).replace("%", "%%")


@cache
def command_line_notes() -> dict[str, str]:
    """What the command line adds to a setting's default: the embedded demo's caps, and HelloBench's per-model
    limits (from the paper settings it reads, metric/helloeval/checklist_judge.yaml)."""
    from longform_eval.metric.helloeval.settings import paper_settings
    from longform_eval.metric.helloeval.upstream_runs import limits_line

    generation = paper_settings().generation
    notes = {name: [f"{DEMO.capitalize()}: at most {cap}"] for name, cap in DEFAULT_LIMITS.items()}
    notes["judge_attempts"] = [f"{DEMO.capitalize()}: 1"]
    notes["max_new_tokens"][:0] = [
        f"HelloBench run.py's limits: {limits_line(generation.models)}; its length-constrained configs: "
        f"{generation.max_new_tokens} ({generation.max_new_tokens_16k} for length_constrained_16k)"
    ]
    for name in ("max_new_tokens", "judge_max_new_tokens"):
        notes[name].append("--dry-run prints the limit chosen")
    return {name: ". ".join(sentences) for name, sentences in notes.items()}


def settings_of(args: argparse.Namespace, fields: Iterable[str] = RunSettings.model_fields) -> dict[str, Any]:
    """The API's keyword settings the flags give (a flag not given, or not declared by the command, is no setting);
    the backend options are args.py's."""
    given = {name: setting_value(name, getattr(args, dest_of(name), None)) for name in fields}
    return {name: value for name, value in given.items() if name not in BACKEND_OPTIONS and value is not None}


def setting_value(name: str, value: Any) -> Any:
    """A flag's value as the API takes it: on/off -> True/False, repeated -> a tuple, KEY=VALUE -> a dict."""
    if name == "benchmark_args":
        return parse_model_args(value, flag_of(name)) or None
    if isinstance(value, list):
        return tuple(value) or None
    return (value == "on") if is_on_off(name) and value is not None else value


def is_on_off(name: str) -> bool:
    field = RunSettings.model_fields[name]
    return annotated_parts(field.annotation)[0] is bool and field.default is None


__all__ = ["add_settings_arguments", "flag_of", "settings_of"]
