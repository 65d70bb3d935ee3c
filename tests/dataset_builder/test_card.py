"""Every dataset card: a default config `load_dataset` gives when none is named, the paper's arXiv link, and code
that names where the dataset and its metrics load from (the repo id given to the build, else the local folder)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import datasets
import pytest
from huggingface_hub import DatasetCard

from longform_eval.dataset_builder import build
from longform_eval.dataset_builder.card import CardRepo
from longform_eval.dataset_builder.folder import package_version
from longform_eval.inference.cli import main

DEFAULTS = {"hellobench": "all", "longbench_write": "all", "longgenbench": "short", "tencentllmeval": "en"}
DEFAULT_ROWS = {"hellobench": 647, "longbench_write": 120, "longgenbench": 400, "tencentllmeval": 2904}
PAPERS = {
    "hellobench": "2409.16191",
    "longbench_write": "2408.07055",
    "longgenbench": "2409.02076",
    "tencentllmeval": "2311.05374",
}
METRICS = {"hellobench": "helloeval", "longbench_write": "longbench_write", "longgenbench": "longgenbench"}
METRICS["tencentllmeval"] = "pairwise"
REPO = Path(__file__).resolve().parents[2]
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```$", re.M | re.S)
INSTALL = f"```bash\npip install longform-eval=={package_version()}\n```"  # the package that built the card


@pytest.fixture(scope="module")
def folders(hellobench_folder, longgenbench_folder, tencent_folder, shared_data, tmp_path_factory) -> dict[str, Path]:
    """Each dataset built without a repo id."""
    lbw = build("longbench_write", source=shared_data / "longbench_write", out=tmp_path_factory.mktemp("c") / "lbw")
    return {
        "hellobench": hellobench_folder,
        "longbench_write": lbw,
        "longgenbench": longgenbench_folder,
        "tencentllmeval": tencent_folder,
    }


def python_code(card: str) -> str:
    return "\n".join(PYTHON_BLOCK.findall(card))


@pytest.mark.parametrize("name", sorted(DEFAULTS))
def test_the_card_marks_one_default_config_and_load_dataset_gives_it(folders, name):
    configs = DatasetCard.load(folders[name] / "README.md").data.configs
    assert [c["config_name"] for c in configs if c.get("default")] == [DEFAULTS[name]]
    assert all(c.get("default") in (None, True) for c in configs)
    loaded = datasets.load_dataset(str(folders[name]), split="test")  # no config named
    named = datasets.load_dataset(str(folders[name]), DEFAULTS[name], split="test")
    assert loaded.num_rows == named.num_rows == DEFAULT_ROWS[name]
    assert loaded[0] == named[0]


@pytest.mark.parametrize("name", sorted(DEFAULTS))
def test_a_card_built_without_a_repo_id_names_the_local_folder_and_says_so(folders, name):
    card = (folders[name] / "README.md").read_text(encoding="utf-8")
    code = python_code(card)
    assert f'load_dataset("path/to/{name}", split="test")  # the default config, `{DEFAULTS[name]}`' in code
    assert f'evaluate.load("metric/{METRICS[name]}")' in code
    assert f"`path/to/{name}` stands for the path of this folder" in card
    assert f"build {name} --repo-id ORG/NAME" in " ".join(card.split())
    assert "<namespace>" not in card and INSTALL in card
    assert f"https://arxiv.org/abs/{PAPERS[name]}" in card


def test_a_repo_id_names_the_repo_and_its_metrics_in_every_code_block(shared_data, tmp_path):
    source = shared_data / "longbench_write"
    folder = build("longbench_write", source=source, out=tmp_path / "lbw", repo_id="acme/lbw-mine")
    card = (folder / "README.md").read_text(encoding="utf-8")
    code = python_code(card)
    assert code.count('load_dataset("acme/lbw-mine"') == 3 and 'evaluate.load("acme/longbench_write")' in code
    assert "path/to/" not in card and 'metric/longbench_write"' not in card
    assert 'evaluate.load("acme/longbench_write")' in card.split("## Supported Tasks")[1]  # the prose too
    assert INSTALL in card and "`metric/" not in card  # the judge prompt is named by its place in the package


def test_the_build_command_takes_a_repo_id_and_refuses_a_bad_one_in_one_line(shared_data, tmp_path, capsys):
    options = ["--source", str(shared_data / "longbench_write"), "--out", str(tmp_path / "a"), "--repo-id", "me/x"]
    assert main(["build", "longbench_write", *options]) == 0
    assert 'load_dataset("me/x", "en", split="test")' in (tmp_path / "a/README.md").read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["build", "longbench_write", "--out", str(tmp_path / "b"), "--repo-id", "lbw"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "longform-eval build: error: argument --repo-id: it must be a repo id ORG/NAME, not 'lbw' "
        "(no '/' between the owner and the name)"
    )
    assert not (tmp_path / "b").exists()


def test_a_bad_repo_id_is_refused_before_anything_is_read(tmp_path):
    with pytest.raises(ValueError, match="repo_id must be a repo id ORG/NAME, not 'a/b/c'"):
        build("longbench_write", source=tmp_path / "missing", out=tmp_path / "out", repo_id="a/b/c")
    assert CardRepo("hellobench", "acme/hb").metric("helloeval") == "acme/helloeval"
    assert CardRepo("hellobench").metric("helloeval") == "metric/helloeval"


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(DEFAULTS))
def test_the_code_of_a_local_card_runs_with_the_folder_path_from_a_checkout(folders, name):
    """As the card says: `path/to/NAME` stands for the folder, `metric/<metric>` is a checkout's metric folder."""
    code = python_code((folders[name] / "README.md").read_text(encoding="utf-8"))
    code = code.replace(f'"path/to/{name}"', repr(str(folders[name])))
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
