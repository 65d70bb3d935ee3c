from __future__ import annotations

import shutil

import pytest

from longform_eval.dataset_builder.folder import MARKER
from longform_eval.dataset_builder.hub import HubUnavailableError, push_to_hub, upload_plan


def test_upload_plan_is_the_card_and_every_config_file(hellobench_folder):
    plan = upload_plan(hellobench_folder)
    assert plan[0] == "README.md"
    assert len(plan) == 12 and {"length_constrained_16k/test.parquet", "released_responses/test.parquet"} <= set(plan)


def test_a_folder_missing_a_data_file_is_not_pushed(hellobench_folder, tmp_path):
    broken = shutil.copytree(hellobench_folder, tmp_path / "broken")
    (broken / "chat/test.parquet").unlink()
    with pytest.raises(FileNotFoundError, match="config 'chat' names chat/test.parquet"):
        upload_plan(broken)


def test_offline_push_fails_clearly(hellobench_folder, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(HubUnavailableError, match="offline mode is on"):
        push_to_hub(hellobench_folder, "someone/hellobench")


class RecordingApi:
    """Stands in for HfApi to record what a push would send."""

    def __init__(self):
        self.calls = []

    def create_repo(self, repo_id, **options):
        self.calls.append(("create_repo", repo_id, options))

    def create_branch(self, repo_id, **options):
        self.calls.append(("create_branch", repo_id, options))

    def upload_folder(self, **options):
        self.calls.append(("upload_folder", options["repo_id"], options))
        return "commit-info"


def test_push_creates_the_repo_branch_and_uploads_card_and_data_in_one_commit(hellobench_folder, monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)
    api = RecordingApi()
    result = push_to_hub(hellobench_folder, "me/hellobench", revision="v1", commit_message="first", api=api)
    assert result == "commit-info"
    assert [c[0] for c in api.calls] == ["create_repo", "create_branch", "upload_folder"]
    assert api.calls[0][2]["repo_type"] == "dataset"
    assert api.calls[1][2]["branch"] == "v1"
    upload = api.calls[2][2]
    assert upload["revision"] == "v1" and upload["commit_message"] == "first"
    assert upload["allow_patterns"] == upload_plan(hellobench_folder)


def test_the_build_marker_stays_local(hellobench_folder):
    assert (hellobench_folder / MARKER).is_file()
    assert MARKER not in upload_plan(hellobench_folder)
