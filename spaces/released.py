"""Where the arena's released HelloBench responses come from (`--released`, LONGFORM_EVAL_RELEASED): either

- a local folder of model folders, `<model>/<task>_results.jsonl[.gz]` (HelloBench's own layout), or
- a HelloBench dataset with the config `released_responses`: a Hub dataset repo id such as `ORG/hellobench` (what
  `longform-eval publish` releases) or a local dataset folder built by `longform-eval build hellobench` (it has a
  README.md). Its prompts then come from the same dataset's `all` config unless another dataset is named.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from longform_eval.dataset_builder.hellobench_released import RELEASED_CONFIG
from longform_eval.dataset_builder.released import released_responses
from longform_eval.inference.benchmarks.rows import load_config_rows
from longform_eval.inference.hub.sources import checked_repo_id
from longform_eval.inference.url_secrets import mask_url_secrets

FORMS = "a folder of model folders, a HelloBench dataset folder, or a Hub dataset repo id ORG/NAME"


def released_dataset(value: str | Path) -> str | None:
    """The dataset `value` names (a dataset folder or a Hub repo id); None for a local folder of model folders.

    Raises:
        ValueError: `value` is neither a local folder nor a repo id.
    """
    path = Path(value)
    if path.is_dir():
        return str(value) if (path / "README.md").is_file() else None
    if "://" in str(value) or path.exists():
        raise ValueError(f"released responses {value}: expected {FORMS}")
    return checked_repo_id(str(value), f"released responses {value}: not a local folder, so it")


def released_models(value: str | Path) -> Iterator[tuple[str, str, list[tuple[str, str]]]]:
    """(model, where its responses come from, its (sample id, response) pairs), model by model.

    Raises:
        ValueError: in one line, when `value` is not of a known form or its dataset cannot be read.
    """
    dataset = released_dataset(value)
    if dataset is None:
        for model_dir in sorted(p for p in Path(value).iterdir() if p.is_dir()):
            yield model_dir.name, str(model_dir), list(released_responses(model_dir))
        return
    try:
        rows = load_config_rows(dataset, RELEASED_CONFIG)
    except Exception as error:  # noqa: BLE001 (datasets and the Hub raise many kinds; each is one line here)
        reason = mask_url_secrets(" ".join(str(error).split()))
        raise ValueError(f"released responses {value}: cannot read its config {RELEASED_CONFIG} ({reason})") from error
    by_model: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for row in rows:
        by_model[row["model"]].append((row["id"], row["response"]))
    for model, answers in sorted(by_model.items()):
        yield model, f"{dataset}/{model}", answers
