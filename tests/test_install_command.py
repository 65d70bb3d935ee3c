"""The `pip install` line a missing extra names works for how the package was installed."""

from __future__ import annotations

import json

from longform_eval.common import install


class Distribution:
    def __init__(self, direct_url: dict | None) -> None:
        self.direct_url = direct_url

    def read_text(self, name: str) -> str | None:
        return json.dumps(self.direct_url) if self.direct_url is not None and name == "direct_url.json" else None


def test_an_editable_install_names_its_checkout(monkeypatch, tmp_path):
    url = {"url": (tmp_path / "my checkout").as_uri(), "dir_info": {"editable": True}}
    monkeypatch.setattr(install, "distribution", lambda name: Distribution(url))
    assert install.install_command("vllm,openai") == f"pip install -e '{tmp_path / 'my checkout'}[vllm,openai]'"


def test_a_wheel_from_the_index_names_the_index(monkeypatch, tmp_path):
    monkeypatch.setattr(
        install, "distribution", lambda name: Distribution({"url": "https://x/y.whl", "archive_info": {}})
    )
    assert install.install_command("local") == "pip install 'longform-eval[local]'"


def test_an_install_without_a_record_of_its_origin_outside_a_checkout_names_the_index(monkeypatch, tmp_path):
    monkeypatch.setattr(install, "distribution", lambda name: Distribution(None))
    monkeypatch.setattr(install, "CHECKOUT", tmp_path)
    assert install.install_command("hf") == "pip install 'longform-eval[hf]'"


def test_this_checkout_names_itself():
    assert install.install_command("local") == f"pip install -e '{install.CHECKOUT}[local]'"
