"""Released HelloBench responses for the arena: from a HelloBench dataset's config `released_responses` (what
`publish` releases as ORG/hellobench) or from a folder of model folders, the same pairs either way; and a Space with
nothing to compare says in one line what to set."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from longform_eval.inference.cli import main
from longform_eval.spaces.app import NOTHING_TO_COMPARE
from longform_eval.spaces.pool import ResponsePool

MODELS = ["claude35", "gemma2_27b", "gpt4o_0806", "llama31_8b", "longwriter_9b", "mistral_large_api", "qwen2_7b"]


def test_a_dataset_and_the_folders_it_was_built_from_give_the_same_pairs(hellobench_dataset, shared_data):
    from_dataset = ResponsePool.load(released=str(hellobench_dataset))
    folders = shared_data / "hellobench/generations/main_exp"
    from_folders = ResponsePool.load(released=folders, dataset=str(hellobench_dataset))
    assert from_dataset.models() == MODELS and len(from_dataset.items()) == 647
    assert from_dataset.responses == from_folders.responses
    assert from_dataset.by_key == from_folders.by_key  # the prompts: the dataset's own `all` config
    key = "hellobench:all/chat_002"
    assert len(from_dataset.responses[key]) == 7 and from_dataset.item(key).group == "chat"


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("not a repo", "not a local folder, so it must be a repo id ORG/NAME, not 'not a repo'"),
        ("pyproject.toml", "expected a folder of model folders, a HelloBench dataset folder, or a Hub dataset repo id"),
        ("arena-org/no-such-dataset", "cannot read its config released_responses (Couldn't reach"),
    ],
)
def test_released_responses_that_cannot_be_read_are_named_in_one_line(value, problem):
    with pytest.raises(ValueError) as refused:
        ResponsePool.load(released=value)
    assert str(refused.value).startswith(f"released responses {value}: ") and problem in str(refused.value)
    assert "\n" not in str(refused.value)


def test_with_nothing_to_compare_the_space_says_what_to_set(tmp_path, capsys):
    environ = {k: v for k, v in os.environ.items() if k not in ("LONGFORM_EVAL_RUNS", "LONGFORM_EVAL_RELEASED")}
    space = subprocess.run(
        [sys.executable, "-m", "longform_eval.spaces.app"], env=environ, cwd=tmp_path, capture_output=True, text=True
    )
    assert space.returncode == 1 and space.stderr == f"longform-eval space: error: {NOTHING_TO_COMPARE}\n"
    assert list(tmp_path.iterdir()) == []  # no database made
    assert main(["space", "--db", str(tmp_path / "votes.sqlite")]) == 2
    assert capsys.readouterr().err == f"longform-eval space: error: {NOTHING_TO_COMPARE}\n"
    assert "LONGFORM_EVAL_RELEASED" in NOTHING_TO_COMPARE and "LONGFORM_EVAL_RUNS" in NOTHING_TO_COMPARE
