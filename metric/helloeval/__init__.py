"""HelloEval: checklist judge prompt, verdict parser, weighted scoring and weight fitting."""

from __future__ import annotations

from typing import TYPE_CHECKING

from longform_eval.common.lazy import lazy_exports

# Each name is imported from its module on first use: the judge prompt's tokenizer (NLTK) loads only with it.
MODULE_OF = {
    "parse_checklist_verdict": "parser",
    "parse_verdict": "parser",
    "JudgeRequest": "prompt",
    "build_judge_request": "prompt",
    "load_prompt": "prompt",
    "HelloEvalScores": "scoring",
    "JudgedRow": "scoring",
    "score_rows": "scoring",
    "task_score": "scoring",
    "TASKS": "weights",
    "flat_weights": "weights",
    "task_of_subcategory": "weights",
    "weights_by_task": "weights",
}

if TYPE_CHECKING:
    from .parser import parse_checklist_verdict, parse_verdict
    from .prompt import JudgeRequest, build_judge_request, load_prompt
    from .scoring import HelloEvalScores, JudgedRow, score_rows, task_score
    from .weights import TASKS, flat_weights, task_of_subcategory, weights_by_task

__all__ = [
    "TASKS",
    "HelloEvalScores",
    "JudgeRequest",
    "JudgedRow",
    "build_judge_request",
    "flat_weights",
    "load_prompt",
    "parse_checklist_verdict",
    "parse_verdict",
    "score_rows",
    "task_of_subcategory",
    "task_score",
    "weights_by_task",
]


__getattr__, __dir__ = lazy_exports(__name__, MODULE_OF, __all__)
