"""HelloBench's paper settings (generation and judge), read from `checklist_judge.yaml`: the one place they live."""

from __future__ import annotations

from .prompt import ChecklistJudgePrompt, load_prompt


def paper_settings() -> ChecklistJudgePrompt:
    """`.generation` and `.judge` of the shipped settings file."""
    return load_prompt()
