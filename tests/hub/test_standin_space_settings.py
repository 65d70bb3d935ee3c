"""The Hub stand-in's Space variables and secrets, driven by huggingface_hub's own client."""

from __future__ import annotations

import pytest
from huggingface_hub import HfApi
from huggingface_hub.errors import HfHubHTTPError


@pytest.fixture
def api(hub, monkeypatch) -> HfApi:
    hub.patch_client(monkeypatch)
    api = HfApi(endpoint=hub.url, token="x")
    api.create_repo("org/app", repo_type="space", space_sdk="gradio")
    return api


def test_variables_are_added_updated_listed_and_deleted(hub, api):
    api.add_space_variable("org/app", "A", "1", description="mine")
    shown = api.add_space_variable("org/app", "B", "two")
    assert {key: (v.value, v.description) for key, v in shown.items()} == {"A": ("1", "mine"), "B": ("two", None)}
    api.add_space_variable("org/app", "A", "3", description="mine")
    assert {key: v.value for key, v in api.get_space_variables("org/app").items()} == {"A": "3", "B": "two"}
    assert api.get_space_variables("org/app")["A"].updated_at is not None
    assert {key: v.value for key, v in api.delete_space_variable("org/app", "B").items()} == {"A": "3"}
    assert hub.variables("org/app") == {"A": "3"}


def test_a_secret_is_kept_but_its_value_never_comes_back(hub, api):
    api.add_space_secret("org/app", "HF_TOKEN", "hf_secret_value", description="writes the votes")
    listed = api.get_space_secrets("org/app")
    assert list(listed) == ["HF_TOKEN"] and listed["HF_TOKEN"].description == "writes the votes"
    assert "hf_secret_value" not in repr(listed) and hub.secrets("org/app") == {"HF_TOKEN": "hf_secret_value"}
    api.delete_space_secret("org/app", "HF_TOKEN")
    assert hub.secrets("org/app") == {}


def test_settings_need_a_token_and_a_space(hub, api):
    with pytest.raises(HfHubHTTPError) as refused:
        HfApi(endpoint=hub.url, token=False).get_space_variables("org/app")
    assert refused.value.response.status_code == 401
    api.create_repo("org/data", repo_type="dataset")
    with pytest.raises(HfHubHTTPError) as refused:
        api.add_space_variable("org/data", "A", "1")  # /api/spaces/org/data: no such Space
    assert refused.value.response.status_code == 404 and hub.variables("org/app") == {}
