"""The Hub token in huggingface_hub's token file is scrubbed from the first byte a command prints, `--help` included,
without importing huggingface_hub there (test_cli_help keeps it out of `--help`)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from longform_eval.inference import environment_secrets, secret_values
from longform_eval.inference.cli import main

TOKEN = "hf_TokenFileOnly0123456789abcdefXYZ"
SETTINGS = {  # each on a clean environment
    "the default": {},
    "HF_HOME": {"HF_HOME": "{tmp}/hf-home"},
    "XDG_CACHE_HOME": {"XDG_CACHE_HOME": "{tmp}/xdg"},
    "HF_TOKEN_PATH": {"HF_TOKEN_PATH": "{tmp}/elsewhere/my-token", "HF_HOME": "{tmp}/hf-home"},
    "a variable inside": {"HF_HOME": "$LONGFORM_TEST_ROOT/hf", "LONGFORM_TEST_ROOT": "{tmp}/root"},
}


def clean_environment(tmp_path, settings: dict[str, str]) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if k not in ("HF_HOME", "HF_TOKEN_PATH", "XDG_CACHE_HOME")}
    return environment | {"HOME": str(tmp_path / "home")} | {k: v.format(tmp=tmp_path) for k, v in settings.items()}


@pytest.mark.parametrize("setting", list(SETTINGS))
def test_the_token_file_is_where_huggingface_hub_reads_it(setting, tmp_path, monkeypatch):
    environment = clean_environment(tmp_path, SETTINGS[setting])
    code = "import huggingface_hub.constants as c; print(c.HF_TOKEN_PATH)"
    theirs = subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True, check=True)
    for name in ("HF_HOME", "HF_TOKEN_PATH", "XDG_CACHE_HOME", "HOME", "LONGFORM_TEST_ROOT"):
        if name in environment:
            monkeypatch.setenv(name, environment[name])
        else:
            monkeypatch.delenv(name, raising=False)
    assert str(environment_secrets.hub_token_file()) == theirs.stdout.strip()


def test_a_token_only_in_the_token_file_is_masked_in_help_before_any_command_is_parsed(tmp_path, monkeypatch, capsys):
    token_file = tmp_path / "token"
    token_file.write_text(f"  {TOKEN}\r\n", encoding="utf-8")
    for name in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_TOKEN_PATH", str(token_file))
    monkeypatch.setattr(secret_values, "REGISTERED", secret_values.SecretValues())
    cli_main = sys.modules[main.__module__]  # the module (the package exports its `main` under the same name)
    original = cli_main.parser
    monkeypatch.setattr(cli_main, "parser", lambda: echoing_parser(original))
    with pytest.raises(SystemExit):
        main(["--help"])
    printed = capsys.readouterr().out
    assert "read from a file holding" in printed and secret_values.MASK in printed and TOKEN not in printed


def echoing_parser(build):
    """The command line's parser with a description that quotes the token file (as a plug-in's help might)."""
    found = build()
    found.description = f"{found.description or ''} (read from a file holding {TOKEN})"
    return found


def test_an_unreadable_or_empty_token_file_registers_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(secret_values, "REGISTERED", secret_values.SecretValues())
    monkeypatch.setenv("HF_TOKEN_PATH", str(tmp_path))  # a folder: reading it fails
    assert environment_secrets.hub_token_in_file() is None
    (tmp_path / "empty").write_text("\n", encoding="utf-8")
    monkeypatch.setenv("HF_TOKEN_PATH", str(tmp_path / "empty"))
    assert environment_secrets.hub_token_in_file() is None
