"""HelloEval: checklist judge prompt, verdict parser, weighted scoring and weight fitting."""

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
