"""HelloEval as an `evaluate` metric: checklist verdicts + human-fitted weights -> HelloBench task scores."""

from __future__ import annotations

import datasets
import evaluate

from longform_eval.common.plurals import counted
from longform_eval.metric.columns import check_columns, is_list, shown
from longform_eval.metric.helloeval.parser import SCORE_LEVELS, parse_verdict
from longform_eval.metric.helloeval.scoring import (
    JudgedRow,
    checklist_value_problem,
    describe,
    score_rows,
    word_count_problem,
)
from longform_eval.metric.helloeval.weights import flat_weights, task_of_subcategory
from longform_eval.metric.unscored import Unscored

_CITATION = """\
@article{que2024hellobench,
  title   = {HelloBench: Evaluating Long Text Generation Capabilities of Large Language Models},
  author  = {Que, Haoran and Duan, Feiyu and He, Liqun and others},
  journal = {arXiv preprint arXiv:2409.16191},
  year    = {2024}
}
"""

_DESCRIPTION = """\
HelloEval scores long-form responses to HelloBench prompts. An LLM judge answers every checklist of a row
at once on five levels (0, 0.25, 0.5, 0.75, 1); the row score is the sum of the checklist scores times the
subcategory's human-fitted weights (0..100); a task score is (mean row score - 75) * 4, so -300..100; the
overall score is the mean of the task scores present. Rows whose verdict cannot be used are unscored:
left out of every mean and counted, never scored 0.

Deviation from upstream: raw judge completions are always read with the lenient parser (upstream's rule first, then
Python literals, a code fence or prose around the list, a score pattern), which scores some replies that
HelloBench's own rule (`longform-eval run`'s default, `--parser upstream`) leaves unscored. For upstream's reading,
use `parse_verdict(completion, n, rule="upstream")` and `score_rows` from `longform_eval.metric.helloeval`.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: one entry per row, either the checklist scores (a list aligned with the subcategory's
        checklists, each one of the five levels 0, 0.25, 0.5, 0.75, 1; a list of the wrong length or any other
        value raises a ValueError naming the row and position) or the judge's raw completion (a string, read by
        the lenient parser, a deviation from upstream: HelloBench's rule, else a Python literal, a fenced or
        prose-wrapped list or a score pattern; scores in [0, 1], JSON true read as 1.0 as upstream's float() does;
        anything that does not give exactly one valid score per checklist is unscored and counted, not an error).
    references: the row's subcategory, i.e. the HelloBench source field "category" (e.g. "Science",
        "report_write"); it selects the weights and the task.
    word_counts: optional, the response word counts (nltk.word_tokenize tokens, integers >= 0), averaged per
        task.
Returns:
    score: mean of the task scores present (-300..100), or None when no row is scored.
    open_ended_qa, summarization, chat, text_completion, heuristic_text_generation: task scores (-300..100),
        one key per task present.
    n_scored: rows with a usable verdict. n_unscored: rows without one.
    word_count: mean over tasks of the mean word count per task (only when word_counts is given).
Examples:
    >>> import evaluate
    >>> helloeval = evaluate.load("metric/helloeval")
    >>> result = helloeval.compute(
    ...     predictions=[[1, 1, 1, 1, 1, 1], [0.75, 0.75, 0.75, 0.75, 0.75, 0.75, 0.75]],
    ...     references=["report_write", "Science"],
    ... )
    >>> result["chat"], result["open_ended_qa"], result["score"], result["n_unscored"]
    (100.0, 0.0, 50.0, 0)

    Raw judge completions are parsed; an unusable one is counted, not scored 0:
    >>> import json
    >>> completion = "```json\\n" + json.dumps(
    ...     [{"checklist_id": i, "reason": "fine", "evaluation_score": 0.5} for i in range(5)]) + "\\n```"
    >>> result = helloeval.compute(predictions=[completion, "I cannot judge this."],
    ...                            references=["story_writing", "story_writing"])
    >>> round(result["heuristic_text_generation"], 2), result["n_scored"], result["n_unscored"]
    (-100.0, 1, 1)

    Checklist scores given as numbers are the caller's data: a value off the five levels is an error, not a score:
    >>> helloeval.compute(predictions=[[1, 1, 5, 1, 1, 1]], references=["report_write"])
    Traceback (most recent call last):
    ...
    ValueError: predictions[0][2]: 5 is outside [0, 1]
    >>> helloeval.compute(predictions=[[1, 1, 0.3, 1, 1, 1]], references=["report_write"])
    Traceback (most recent call last):
    ...
    ValueError: predictions[0][2]: 0.3 is not one of the five levels 0, 0.25, 0.5, 0.75, 1
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class HelloEval(evaluate.Metric):
    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=[
                datasets.Features(
                    {
                        "predictions": datasets.Sequence(datasets.Value("float64")),
                        "references": datasets.Value("string"),
                    }
                ),
                datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
            ],
            reference_urls=["https://github.com/Quehry/HelloBench", "https://arxiv.org/abs/2409.16191"],
        )

    def compute(self, *, predictions=None, references=None, **kwargs):
        """`evaluate.Metric.compute`, the columns checked first: a value that does not fit is a ValueError naming it."""
        check_columns(self.info.features, predictions=predictions, references=references)
        return super().compute(predictions=predictions, references=references, **kwargs)

    def _compute(self, predictions, references, word_counts=None):
        weights = flat_weights()
        unknown = sorted({sub for sub in references if sub not in weights})
        if unknown:
            raise ValueError(f"unknown HelloBench subcategories in references: {unknown}")
        if word_counts is not None and not is_list(word_counts):
            raise ValueError(f"word_counts: expected a list, one word count per prediction, got {shown(word_counts)}")
        if word_counts is not None and len(word_counts) != len(predictions):
            raise ValueError(
                f"word_counts has {counted(len(word_counts), 'entry')} for {counted(len(predictions), 'prediction')}"
            )
        rows = [
            JudgedRow(
                row_id=str(index),
                subcategory=subcategory,
                verdict=verdict_of(index, prediction, subcategory, len(weights[subcategory])),
                word_count=None if word_counts is None else checked_word_count(index, word_counts[index]),
            )
            for index, (prediction, subcategory) in enumerate(zip(predictions, references, strict=True))
        ]
        scores = score_rows(rows, weights, task_of_subcategory())
        result = {"score": scores.overall}
        result.update({task: summary.score for task, summary in scores.tasks.items()})
        result.update(n_scored=scores.n_scored, n_unscored=scores.n_unscored)
        if word_counts is not None:
            result["word_count"] = scores.mean_word_count
        return result


def verdict_of(index: int, prediction, subcategory: str, size: int) -> list[float] | Unscored:
    """A raw judge completion is parsed by the lenient rule (unusable text is unscored); checklist scores given as
    numbers must be valid."""
    if isinstance(prediction, str):
        return parse_verdict(prediction, size, rule="lenient").verdict
    if prediction is None:
        raise ValueError(f"predictions[{index}]: expected checklist scores or a judge completion, got None")
    scores = list(prediction)
    if len(scores) != size:
        raise ValueError(
            f"predictions[{index}]: {counted(len(scores), 'checklist score')}, but {subcategory!r} has "
            f"{counted(size, 'checklist')}"
        )
    for position, value in enumerate(scores):
        problem = checklist_value_problem(value) or level_problem(value)
        if problem is not None:
            raise ValueError(f"predictions[{index}][{position}]: {problem}")
    return scores


def level_problem(value: float) -> str | None:
    """Scores given as numbers must be on the judge's scale (the paper's five levels)."""
    if value in SCORE_LEVELS:
        return None
    return f"{describe(value)} is not one of the five levels {', '.join(f'{level:g}' for level in SCORE_LEVELS)}"


def checked_word_count(index: int, value) -> int:
    problem = word_count_problem(value)
    if problem is not None or value is None:
        raise ValueError(f"word_counts[{index}]: {problem or 'missing'}")
    return value
