from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import datasets

from longform_eval.inference.cli import main

from .conftest import copy_source

REPO = Path(__file__).resolve().parents[2]


def test_build_command_writes_a_loadable_folder(shared_data, tmp_path, capsys):
    assert (
        main(
            ["build", "tencentllmeval", "--source", str(shared_data / "tencentllmeval"), "--out", str(tmp_path / "tle")]
        )
        == 0
    )
    assert capsys.readouterr().out.strip() == str(tmp_path / "tle")
    assert datasets.load_dataset(str(tmp_path / "tle"), "en", split="test").num_rows == 2904


def test_build_command_reports_bad_input_with_exit_code_2(shared_data, tmp_path, capsys):
    source = copy_source(shared_data / "hellobench", tmp_path / "src")
    path = source / "data/main_data/text_completion.jsonl"
    lines = path.read_text().splitlines()
    record = json.loads(lines[1])
    record["category"] = "limericks"
    lines[1] = json.dumps(record)
    path.write_text("\n".join(lines))
    assert main(["build", "hellobench", "--source", str(source), "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err
    assert "text_completion.jsonl:2: field 'category': unknown subcategory 'limericks'" in error


def test_console_script_runs_as_a_module(shared_data, tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "longform_eval.inference",
            "build",
            "longgenbench",
            "--generate",
            "--seed",
            "3",
            "--per-scenario",
            "2",
            "--source",
            str(shared_data / "longgenbench"),
            "--out",
            str(tmp_path / "lgb"),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == str(tmp_path / "lgb")
    assert datasets.load_dataset(str(tmp_path / "lgb"), "generated_long", split="test").num_rows == 8


def test_wheel_holds_only_the_longform_eval_namespace(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp_path), str(REPO)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("longform_eval-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names}
    assert {top for top in tops if not top.endswith(".dist-info")} == {"longform_eval"}
    packages = {name.split("/")[1] for name in names if name.startswith("longform_eval/")}
    assert packages == {
        "__init__.py",
        "common",
        "registry",
        "dataset_builder",
        "metric",
        "inference",
        "spaces",
        "cards",
    }
    assert "longform_eval/__init__.py" in names  # the root package holds the lazy Python API
    assert "longform_eval/cards/hellobench.md.j2" in names
