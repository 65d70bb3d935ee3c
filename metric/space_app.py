"""A metric's Space: one page, and one API endpoint (`/compute`), that run an `evaluate` module's compute.

Each input column of the module's features is a JSON field (a list, one entry per example: the honest generic form
for nested features), the module's other arguments one JSON object; the result comes back as JSON, its numbers
rounded to the decimals the module's card prints (`digits`: 66.67, not 66.66666666666667; the module's own `compute`
keeps full precision). A page given an example (its card's) opens with the example in its fields and its result
beside them, computed once when the page is built. gradio is imported only when a page is built, so the metrics never
need it.

Every field is checked against the Space's ceilings (`space_limits`) before any work starts; the computation then
runs in a process of its own, stopped at COMPUTE_SECONDS, COMPUTE_CONCURRENCY at a time and one at a time for each
client (`space_serving`): a client sending several requests at once holds one of the computations, and another
client's request starts at once in the other.
"""

from __future__ import annotations

import html
import inspect
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from longform_eval.common.bounded_json import loads_json
from longform_eval.metric.columns import kind_name as describe
from longform_eval.metric.space_limits import check_field_text, check_json_value

if TYPE_CHECKING:
    import evaluate
    import gradio as gr

API_NAME = "compute"
COMPUTE_SECONDS = 60.0  # a computation running longer is stopped and refused
COMPUTE_CONCURRENCY = 2  # computations at once (one per client): a long one never holds a short one alone
OTHERS = "other_arguments"  # the JSON object of the module's other keyword arguments
FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.S)
ARGUMENT_KINDS = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
CODE = re.compile(r"(`+)[\s\S]*?\1")  # a code span or a fenced block: markdown shows its `<` as it is
DIGITS = 2  # the decimals a page shows, unless its module's card prints others (the cards' scores: 66.67, 33.33)


def input_columns(module: evaluate.EvaluationModule) -> dict[str, list[Any]]:
    """Each input column with its feature types (several when the module accepts several input formats)."""
    formats = module.features if isinstance(module.features, list) else [module.features]
    columns: dict[str, list[Any]] = {}
    for features in formats:
        for name, feature in features.items():
            columns.setdefault(name, []).append(feature)
    return columns


def other_arguments(module: evaluate.EvaluationModule, columns: Sequence[str]) -> list[str]:
    """The keyword arguments of the module's `_compute` besides its input columns."""
    parameters = inspect.signature(module._compute).parameters.values()
    return [p.name for p in parameters if p.kind in ARGUMENT_KINDS and p.name not in columns]


def parsed_json(name: str, text: str, expected: type) -> Any:
    """`text` read as JSON of the `expected` type (list or dict); a ValueError naming the field otherwise."""
    text = text or ""  # an empty field may come as None
    check_field_text(name, text)
    try:
        value = loads_json(text) if text.strip() else expected()
    except ValueError as error:  # not JSON, nested too deep, an integer too long
        raise ValueError(f"{name}: not valid JSON ({error})") from None
    if not isinstance(value, expected):
        wanted = "a JSON list, one entry per example" if expected is list else "a JSON object"
        raise ValueError(f"{name}: expected {wanted}, got {type(value).__name__} {text.strip()[:80]}")
    check_json_value(name, value)
    return value


def parsed_column(name: str, text: str) -> list[Any]:
    """An input column: a non-empty JSON list."""
    value = parsed_json(name, text, list)
    if not value:
        raise ValueError(f"{name}: empty; give one entry per example")
    return value


def plain(value: Any) -> Any:
    """A result value JSON can hold: numpy scalars and arrays as Python numbers and lists."""
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"the result holds a {type(value).__name__}, which JSON cannot hold")


def parsed_arguments(
    columns: Sequence[str], others: Sequence[str], texts: Sequence[str]
) -> tuple[dict[str, list[Any]], dict[str, Any]]:
    """The input columns and the other arguments from the fields' `texts`, each within the Space's ceilings; a
    ValueError naming the field otherwise."""
    inputs = {name: parsed_column(name, text) for name, text in zip(columns, texts[: len(columns)], strict=True)}
    extra = parsed_json(OTHERS, texts[len(columns)], dict) if others else {}
    unknown = sorted(set(extra) - set(others))
    if unknown:
        raise ValueError(f"{OTHERS}: unknown {', '.join(unknown)} (known: {', '.join(others)})")
    return inputs, extra


def rounded(value: Any, digits: int) -> Any:
    """`value` (a result as JSON holds it) with every finite float rounded to `digits` decimals, as the card prints
    it: 0.49999999999999994 shows as 0.5 (at 3), 33.333333333333336 as 33.33 (at 2); never -0.0."""
    if isinstance(value, float):
        return round(value, digits) + 0.0 if math.isfinite(value) else value
    if isinstance(value, dict):
        return {key: rounded(item, digits) for key, item in value.items()}
    if isinstance(value, list):
        return [rounded(item, digits) for item in value]
    return value


def computed(
    module: evaluate.EvaluationModule, inputs: dict[str, list[Any]], extra: dict[str, Any], digits: int = DIGITS
) -> dict:
    """The module's result as JSON holds it, rounded to `digits` decimals; a ValueError with the reason on input that
    does not fit."""
    try:
        result = module.compute(**inputs, **extra)
    except (TypeError, LookupError) as error:  # a value of the wrong shape, met deep in the module's own code
        raise ValueError(f"the input does not fit {module.name}: {type(error).__name__}: {error}") from error
    return rounded(json.loads(json.dumps(result, default=plain)), digits)


def json_compute(
    module: evaluate.EvaluationModule, columns: Sequence[str], others: Sequence[str], digits: int = DIGITS
) -> Callable:
    """compute(column texts..., other arguments text) -> result dict (rounded to `digits` decimals); a ValueError with
    the reason on bad input."""

    def compute(*texts: str) -> dict[str, Any]:
        return computed(module, *parsed_arguments(columns, others, texts), digits)

    return compute


def limited_compute(
    module: evaluate.EvaluationModule,
    columns: Sequence[str],
    others: Sequence[str],
    seconds: float,
    digits: int = DIGITS,
) -> Callable:
    """As `json_compute`, the fields checked here and the computation run in a process of its own, stopped after
    `seconds` (`space_serving.run_limited`)."""
    from longform_eval.metric.space_serving import run_limited

    def compute(*texts: str) -> dict[str, Any]:
        inputs, extra = parsed_arguments(columns, others, texts)
        return run_limited(
            lambda: computed(in_memory(module), inputs, extra, digits), seconds, f"{module.name} compute"
        )

    return compute


def in_memory(module: evaluate.EvaluationModule) -> evaluate.EvaluationModule:
    """`module` keeping its rows in memory: in a process of its own, no cache file to lock nor to leave behind."""
    module.keep_in_memory = True
    return module


def api_signature(names: Sequence[str], request: type | None = None) -> inspect.Signature:
    """The endpoint's parameters, named after the fields (gradio names the API's parameters from the signature), then
    a `request` parameter of type `request` when given (gradio passes it the `gr.Request`; it is no API parameter)."""
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    parameters = [inspect.Parameter(name, kind, annotation=str) for name in names]
    if request is not None:
        parameters.append(inspect.Parameter("request", kind, annotation=request))
    return inspect.Signature(parameters)


def card_parts(card: Path | None) -> tuple[dict[str, Any], str]:
    """The card's YAML header and its body (empty when there is no card)."""
    if card is None or not card.is_file():
        return {}, ""
    text = card.read_text(encoding="utf-8")
    match = FRONT_MATTER.match(text)
    if not match:
        return {}, text
    return yaml.safe_load(match[1]) or {}, text[match.end() :]


def literal_markup(text: str) -> str:
    """Markdown `text` whose `<`, `>` and `&` outside code show as written (`"<type> N"`): gradio's sanitizer would
    take `<type>` for a tag and drop it with everything after it."""
    pieces, start = [], 0
    for code in CODE.finditer(text):
        pieces += [html.escape(text[start : code.start()], quote=False), code[0]]
        start = code.end()
    return "".join([*pieces, html.escape(text[start:], quote=False)])


def example_texts(example: Mapping[str, Any], columns: Sequence[str], others: Sequence[str]) -> list[str]:
    """The fields' texts of `example` (a compute call's keyword arguments): a JSON list per column, then the JSON
    object of the other arguments when the module has any; what `example` leaves out is empty (`[]`, `{}`)."""
    unknown = sorted(set(example) - {*columns, *others})
    if unknown:
        raise ValueError(f"example: unknown {', '.join(unknown)} (known: {', '.join([*columns, *others])})")
    texts = [json.dumps(example.get(name, []), ensure_ascii=False) for name in columns]
    extra = {name: example[name] for name in others if name in example}
    return texts + ([json.dumps(extra, ensure_ascii=False)] if others else [])


def field_labels(columns: Mapping[str, list[Any]], others: Sequence[str]) -> list[str]:
    """The fields' labels: each column with its feature types, then the other arguments (when the module has any)."""
    labels = [
        f"{name} (JSON list of {' or '.join(dict.fromkeys(map(describe, kinds)))})" for name, kinds in columns.items()
    ]
    return labels + ([f"{OTHERS} (JSON object, optional): {', '.join(others)}"] if others else [])


def build_app(
    module: evaluate.EvaluationModule,
    card: Path | None = None,
    seconds: float = COMPUTE_SECONDS,
    example: Mapping[str, Any] | None = None,
    digits: int = DIGITS,
) -> gr.Blocks:
    """The page of `module`: a JSON field per input column and one for its other arguments, a Compute button
    (API endpoint `/compute`, each computation stopped after `seconds`), the result as JSON (its numbers rounded to
    `digits` decimals, as the card prints them), then the module's description, citation and `card`. With an
    `example` (a compute call's keyword arguments), the fields start with it, the result shows what it computes, and
    `gr.Examples` puts it back in the fields.

    Raises:
        ValueError: `example` names an argument the module does not take, or its computation fails.
    """
    import gradio as gr

    from longform_eval.metric.space_serving import BoundedBlocks, ClientBusy, OnePerClient, TimeLimitExceeded, client_of

    header, body = card_parts(card)
    columns = input_columns(module)
    others = other_arguments(module, list(columns))
    compute = limited_compute(module, list(columns), others, seconds, digits)
    clients = OnePerClient()

    def on_compute(*values: Any) -> dict[str, Any]:
        *texts, request = values  # gradio passes the request last (the signature's `request: gr.Request`)
        try:
            with clients.held(client_of(request)):
                return compute(*texts)
        except (ValueError, TimeLimitExceeded, ClientBusy) as error:
            raise gr.Error(str(error), print_exception=False) from error

    on_compute.__signature__ = api_signature([*columns, *([OTHERS] if others else [])], request=gr.Request)
    on_compute.__annotations__ = {"request": gr.Request}  # gradio finds the request by its type hint

    texts = example_texts(example or {}, list(columns), others)
    first = computed(in_memory(module), *parsed_arguments(list(columns), others, texts), digits) if example else None
    title = header.get("title") or module.name
    with BoundedBlocks(title=title) as app:
        gr.Markdown(literal_markup(f"# {title}\n\n{header.get('description') or ''}"))
        fields = [
            gr.Code(text, language="json", lines=3, label=label)
            for text, label in zip(texts, field_labels(columns, others), strict=True)
        ]
        if example:  # never cached: on a Space gradio would otherwise compute and store it at start
            gr.Examples([texts], fields, label="The card's example (click to put it back)", cache_examples=False)
        button = gr.Button("Compute", variant="primary")
        result = gr.JSON(first, label=f"{module.name} result", elem_id="result")
        button.click(
            on_compute, inputs=fields, outputs=result, api_name=API_NAME, concurrency_limit=COMPUTE_CONCURRENCY
        )
        with gr.Accordion("Description", open=True):
            gr.Markdown(literal_markup(module.description), elem_id="description")
        if module.citation:
            with gr.Accordion("Citation", open=False):
                gr.Code(module.citation.strip(), interactive=False, label="BibTeX")
        if body:
            with gr.Accordion("Metric card", open=False):
                gr.Markdown(literal_markup(body))
    return app
