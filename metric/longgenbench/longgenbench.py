"""LongGenBench (Wu et al., ICLR 2025) as an `evaluate` metric: CR, STIC-1, STIC-2, wAvg and Len."""

from __future__ import annotations

import datasets
import evaluate

from longform_eval.metric.columns import check_columns
from longform_eval.metric.longgenbench.inputs import check_judge_completions, check_references, item_completions
from longform_eval.metric.longgenbench.judge import VERDICT_RULES, parse_yes_no
from longform_eval.metric.longgenbench.scoring import check_item, item_result, score_items
from longform_eval.metric.longgenbench.splitting import match_checks, split_subtasks

_CITATION = """\
@inproceedings{wu2025longgenbench,
  title     = {LongGenBench: Benchmarking Long-Form Generation in Long Context LLMs},
  author    = {Wu, Yuhao and Hee, Ming Shan and Hu, Zhiqing and Lee, Roy Ka-Wei},
  booktitle = {International Conference on Learning Representations (ICLR)},
  year      = {2025}
}
"""

_DESCRIPTION = """\
LongGenBench asks for one long structured output (a year of diary entries or menus, the floors of a
skyscraper, the blocks of a city) with instructions at given positions. The output is split at "#*#" into
sub-tasks, identified by the first "<type> N" in each block; each check whose sub-task is present is judged
yes/no. CR is the share of expected sub-tasks present; STIC-1 = yes / judged checks; STIC-2 = yes / all checks;
wAvg = CR * STIC-2 / 100; Len = mean word count of outputs with more than 40 blocks and 2000 words.
This is the benchmark of Wu et al., not the unrelated LongGenBench of Liu et al.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: the full outputs, one per item: the item's `prefix` followed by the model's completion.
    references: the dataset items (`longform-eval build longgenbench`), each with `id`, `scenario`,
        `subtask_type`, `num_subtasks` (a positive integer) and `checks` (list of {kind, subtask, description},
        kind one of "single", "range", "periodic"); anything else raises a ValueError naming the item and field.
    judge_completions: optional, per item a list of one judge completion per check, aligned with `checks` (a
        list of another length, a string in its place or a completion that is not a string is a ValueError), with
        None where the check's sub-task is missing (see
        `longform_eval.metric.longgenbench.match_checks`). Without it, only cr and len are computed.
    verdict_rule: "paper" (yes iff "yes" occurs in the lower-cased completion) or "strict" (must start with
        yes/no; anything else is unscored).
Returns:
    cr, stic1, stic2, wavg (percent, 0..100), len (words, or None), n_items, n_checks, n_judged, n_yes,
    n_unscored, and per instruction type (SI, RI, PI) and per scenario: stic1_<x>, stic2_<x>, cr_<scenario>.
Examples:
    >>> import evaluate
    >>> longgenbench = evaluate.load("metric/longgenbench")
    >>> item = {"id": "demo", "scenario": "skyscraper", "subtask_type": "Floor", "num_subtasks": 4,
    ...         "checks": [{"kind": "single", "subtask": 2, "description": "gym"},
    ...                    {"kind": "range", "subtask": 3, "description": "hotel"},
    ...                    {"kind": "range", "subtask": 4, "description": "hotel"}]}
    >>> output = "#*# Floor 1: lobby #*# Floor 2: a gym #*# Floor 3: hotel rooms"
    >>> result = longgenbench.compute(predictions=[output], references=[item],
    ...                               judge_completions=[["Yes.", "no", None]])
    >>> result["cr"], round(result["stic1"], 2), round(result["stic2"], 2), round(result["wavg"], 2)
    (75.0, 50.0, 33.33, 25.0)

    The strict rule leaves an off-format answer unscored instead of reading it as "no":
    >>> result = longgenbench.compute(predictions=[output], references=[item],
    ...                               judge_completions=[["Yes.", "The context mentions it.", None]],
    ...                               verdict_rule="strict")
    >>> result["n_unscored"], result["stic1"], result["stic2"]
    (1, 100.0, 50.0)

    An item that cannot be scored is an error, named by its position and field:
    >>> longgenbench.compute(predictions=[output], references=[{**item, "num_subtasks": 0}])
    Traceback (most recent call last):
    ...
    ValueError: references[0]['num_subtasks']: expected a positive integer, got 0
"""

CHECK = {"kind": datasets.Value("string"), "subtask": datasets.Value("int32"), "description": datasets.Value("string")}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class LongGenBench(evaluate.Metric):
    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": datasets.Value("string"),
                    "references": {
                        "id": datasets.Value("string"),
                        "scenario": datasets.Value("string"),
                        "subtask_type": datasets.Value("string"),
                        "num_subtasks": datasets.Value("int32"),
                        "checks": datasets.List(CHECK),
                    },
                }
            ),
            reference_urls=["https://github.com/mozhu621/LongGenBench", "https://arxiv.org/abs/2409.02076"],
        )

    def compute(self, *, predictions=None, references=None, **kwargs):
        """`evaluate.Metric.compute`, each item and column checked first: a missing field, or a value that does not
        fit, is a ValueError naming it."""
        check_references(references)
        check_columns(self.info.features, predictions=predictions, references=references)
        return super().compute(predictions=predictions, references=references, **kwargs)

    def _compute(self, predictions, references, judge_completions=None, verdict_rule="paper"):
        if verdict_rule not in VERDICT_RULES:
            raise ValueError(f"unknown verdict_rule {verdict_rule!r}; use one of {', '.join(VERDICT_RULES)}")
        if not predictions:
            raise ValueError("predictions is empty: no items to score")
        check_judge_completions(judge_completions, len(predictions))
        results = []
        for index, (output, item) in enumerate(zip(predictions, references, strict=True)):
            check_item(item, f"references[{index}]")
            if output is None:
                raise ValueError(f"predictions[{index}]: expected the output text, got None")
            matched = match_checks(item["checks"], split_subtasks(output, item["subtask_type"]))
            completions = item_completions(judge_completions, index, len(matched))
            verdicts = [
                None if check.block is None or completion is None else parse_yes_no(completion, verdict_rule)
                for check, completion in zip(matched, completions, strict=True)
            ]
            results.append(item_result(item, output, verdicts))
        scores = score_items(results)
        judged = judge_completions is not None
        flat = {
            "cr": scores.cr,
            "stic1": scores.stic1 if judged else None,
            "stic2": scores.stic2 if judged else None,
            "wavg": scores.wavg if judged else None,
            "len": scores.length,
            "n_items": scores.n_items,
            "n_checks": scores.n_checks,
            "n_judged": scores.n_judged,
            "n_yes": scores.n_yes,
            "n_unscored": scores.n_unscored,
        }
        for name, part in {**scores.by_type, **scores.by_scenario}.items():
            flat[f"stic1_{name}"] = part.stic1 if judged else None
            flat[f"stic2_{name}"] = part.stic2 if judged else None
        flat.update({f"cr_{name}": part.cr for name, part in scores.by_scenario.items()})
        return flat
