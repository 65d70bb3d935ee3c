from __future__ import annotations

import shutil

import pytest
from hub_standin import FAKE_TOKEN
from huggingface_hub import HfApi

from longform_eval.common.guarded import UnreadableFile
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


@pytest.fixture
def standin_api(hub, monkeypatch):
    """huggingface_hub in this process talking to the local Hub stand-in, online, with a token."""
    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    hub.patch_client(monkeypatch)
    return HfApi(endpoint=hub.url, token=FAKE_TOKEN)


def test_push_creates_the_repo_branch_and_uploads_card_and_data_in_one_commit(hellobench_folder, hub, standin_api):
    push_to_hub(hellobench_folder, "me/hellobench", revision="v1", commit_message="first", api=standin_api)
    pushed = hub.files("me/hellobench", revision="v1")
    assert {path: data for path, data in pushed.items() if path != ".gitattributes"} == {
        path: (hellobench_folder / path).read_bytes() for path in upload_plan(hellobench_folder)
    }
    assert set(hub.files("me/hellobench")) <= {".gitattributes"}  # the data went to the branch, not main


def test_push_follows_no_link_and_reads_each_file_once(hellobench_folder, hub, standin_api, tmp_path):
    """A data file replaced by a link to a private file is refused by name before any Hub call (issue 46)."""
    folder = shutil.copytree(hellobench_folder, tmp_path / "hb")
    private = tmp_path / "id_rsa"
    private.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    (folder / "chat/test.parquet").unlink()
    (folder / "chat/test.parquet").symlink_to(private)
    hub.requests.clear()
    with pytest.raises(UnreadableFile, match=r"chat/test.parquet: is a symlink, expected the file itself"):
        push_to_hub(folder, "me/hellobench", api=standin_api)
    assert hub.requests == []


def test_a_card_naming_a_file_outside_its_folder_is_refused(hellobench_folder, tmp_path):
    folder = shutil.copytree(hellobench_folder, tmp_path / "hb")
    card = (folder / "README.md").read_text()
    (folder / "README.md").write_text(card.replace("path: chat/test.parquet", "path: ../../etc/passwd", 1))
    with pytest.raises(ValueError, match=r"config 'chat' names '../../etc/passwd', not a path inside the folder"):
        upload_plan(folder)


def test_the_build_marker_stays_local(hellobench_folder):
    assert (hellobench_folder / MARKER).is_file()
    assert MARKER not in upload_plan(hellobench_folder)
