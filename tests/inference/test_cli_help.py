"""Issue 39: every option of every command has help, and shows its default; the settings' flags are generated from
the Python API's typed settings (RunSettings), so that the command line and the API agree on every default.
Issue 49: an option whose default is None says in words what it is when not given, and help reads at 80 columns."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import longform_eval as le
from longform_eval.inference.api.settings import RunSettings
from longform_eval.inference.api.stages import DEFAULT_OUT
from longform_eval.inference.cli import main, parser
from longform_eval.inference.cli.args import run_settings, settings_of
from longform_eval.inference.cli.help_text import states_default
from longform_eval.inference.cli.setting_flags import BACKEND_OPTIONS, flag_of

RUN_COMMANDS = ("run", "generate")
# What `--help` and `--version` must not import: each costs a tenth of a second or more, and no option needs it.
HEAVY = ("scipy", "numpy", "matplotlib", "pandas", "datasets", "huggingface_hub", "httpx", "httpx2", "httpcore2")
HELP_IMPORTS = """
import contextlib, io, sys
from longform_eval.inference.cli import main, parser
parser()
for flag in ("--help", "--version"):
    with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):
        main([flag])
print(" ".join(sorted({name.partition(".")[0] for name in sys.modules})))
"""


def commands() -> dict[str, argparse.ArgumentParser]:
    root = parser()
    subparsers = next(action for action in root._actions if isinstance(action, argparse._SubParsersAction))
    return {"longform-eval": root, **subparsers.choices}


def arguments(command: argparse.ArgumentParser) -> Iterator[tuple[argparse.Action, str]]:
    """Each option and positional of a command (--help and --version aside) with its help as printed."""
    formatter = command._get_formatter()
    for action in command._actions:
        if not isinstance(action, (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)):
            yield action, formatter._expand_help(action) if action.help else ""


def action_of(command: str, flag: str) -> tuple[argparse.Action, str]:
    return next((action, text) for action, text in arguments(commands()[command]) if flag in action.option_strings)


def test_every_option_and_positional_of_every_command_has_help():
    missing = [
        f"{name} {action.option_strings or action.dest}"
        for name, command in commands().items()
        for action, text in arguments(command)
        if not text.strip()
    ]
    assert not missing


def test_every_option_with_a_default_shows_it():
    """A value's default is printed (argparse's, or the help's own `default:`); a flag's default is its absence."""
    hidden = [
        f"{name} {action.option_strings}: {text}"
        for name, command in commands().items()
        for action, text in arguments(command)
        if action.option_strings and action.nargs != 0 and action.default is not None and not states_default(text)
    ]
    assert not hidden
    assert (
        "(default: 127.0.0.1" in action_of("serve", "--host")[1]
        and "(default: 8000)" in action_of("serve", "--port")[1]
    )


def test_every_value_option_says_what_it_is_when_not_given():
    """The rule (`states_default`, inference/cli/help_text.py): an option that takes a value and may be left out
    (not a flag such as store_true or store_const, not --help or --version, not required) says in its help what it
    is when not given: `default: X` or `default X` opening a clause (after `(`, `;` or a sentence's end), what
    happens `without it`, `when not given` or `if omitted`, or `(required` for one the command cannot go without. A
    value default is appended by the formatter; a None default needs the words (`default: none, ...`)."""
    silent = [
        f"{name} {action.option_strings}: {text}"
        for name, command in commands().items()
        for action, text in arguments(command)
        if action.option_strings and action.nargs != 0 and not action.required and not states_default(text)
    ]
    assert not silent
    assert "default: $LONGFORM_EVAL_JUDGE, else none" in action_of("space", "--judge")[1]
    assert "(default: the repo's default branch, main)" in action_of("push", "--revision")[1]
    assert "default: none, no power plan" in action_of("generate", "--detect")[1]


def test_the_rule_tells_a_stated_default_from_the_word_default():
    """The helps these options had before issue 49 state nothing; `local:default` names a model, not a default."""
    for said in (
        "commit message (default: 'Upload NAME built by longform-eval')",
        "folder with source files (hellobench/, ...; default: where `build` looks)",
        "items per scenario (default 100, at most 10000)",
        "the difference to detect. Default: none",
        "set the secret HF_TOKEN; without it, set the secret in the Space's settings yourself",
        "BACKEND:MODEL to calibrate (required), e.g. local:default",
    ):
        assert states_default(said), said
    for silent in (
        "BACKEND:MODEL of the LLM judge (optional)",
        "BACKEND:MODEL to calibrate, e.g. local:default or openai:gpt-4o",
        "source folder for the default dataset build",
        "branch to push to (created if missing)",
        "also upload to this Hub dataset repo (created private if missing; a public one is refused)",
    ):
        assert not states_default(silent), silent


def test_every_help_reads_at_80_columns(monkeypatch):
    """At 80 columns no line of any command's help is wider, and none ends in a word cut at its hyphen (`--dry-`)."""
    monkeypatch.setenv("COLUMNS", "80")
    wide, cut = [], []
    for name, command in commands().items():
        for line in command.format_help().splitlines():
            wide += [f"{name}: {line}"] if len(line) > 80 else []
            cut += [f"{name}: {line}"] if re.search(r"\w-$", line) else []
    assert wide == [] and cut == []


@pytest.mark.parametrize("command", RUN_COMMANDS)
def test_every_setting_of_the_api_is_a_flag_with_its_description(command):
    """A field added to RunSettings gets its flag, with the field's description as its help."""
    for name, field in RunSettings.model_fields.items():
        action, text = action_of(command, flag_of(name))
        assert action.nargs == 0 or states_default(text), name
        if name not in ("strip_think", *BACKEND_OPTIONS):  # an on/off flag and `--ROLE-arg` say it their own way
            assert text.startswith(field.description), name


@pytest.mark.parametrize("command", RUN_COMMANDS)
def test_the_command_line_defaults_are_the_api_defaults(command):
    args = parser().parse_args([command])
    assert run_settings(args, model=None, judge=None) == RunSettings()
    judged = parser().parse_args(["judge", "runs/x"])
    assert settings_of(judged) == {"force": False}  # nothing else given: the folder keeps what it stores


def test_flags_become_the_api_settings_they_name():
    argv = ["run", "--chat-template", "off", "--no-strip-think", "--subcategory", "chat", "--subcategory", "qa"]
    argv += ["--benchmark-arg", "prompt_format=chat", "--temperature", "0", "--per-group", "2", "--shortest"]
    given = run_settings(parser().parse_args(argv), model=None, judge=None)
    assert given.chat_template is False and given.strip_think is False and given.shortest is True
    assert given.subcategory == ("chat", "qa") and given.benchmark_args == {"prompt_format": "chat"}
    assert given.per_group == 2 and given.temperature is not None and abs(given.temperature) < 1e-12


@pytest.mark.parametrize(
    ("argv", "refused"),
    [
        (["--max-new-tokens", "2000000"], "an integer in [1, 1048576]"),  # the field's ceiling (inference/limits.py)
        (["--temperature", "-0.5"], "expected a finite number >= 0"),  # the field's lower bound
        (["--constrained-judge", "maybe"], "invalid choice"),
    ],
)
def test_a_generated_flag_refuses_what_its_field_refuses(capsys, argv, refused):
    assert main(["generate", *argv]) == 2
    err = capsys.readouterr().err
    assert argv[0] in err and refused in err and len(err.strip().splitlines()) == 1


def test_the_generation_limit_says_how_its_default_is_chosen():
    """The paper's limit depends on the model's name (HelloBench run.py: 4,096 for GPT-4o, 16,384 for Qwen2)."""
    text = " ".join(action_of("run", "--max-new-tokens")[1].split())
    assert "matched on the model's name" in text and "4096 for GPT-4o" in text and "Qwen2" in text
    assert "the embedded demo): at most 160" in text and "--dry-run prints" in text
    assert "--dry-run" not in action_of("judge", "--judge-max-new-tokens")[1]  # `judge` has no dry run


def test_generate_without_out_writes_where_the_api_does(gpt4o_replays, tmp_path, monkeypatch):
    """`generate --out` is optional, as `le.generate(out=None)` is: both write runs/default/<benchmark>."""
    generations, _ = gpt4o_replays
    cli_cwd, api_cwd = tmp_path / "cli", tmp_path / "api"
    cli_cwd.mkdir(), api_cwd.mkdir()
    monkeypatch.chdir(cli_cwd)
    assert main(["generate", "--benchmark", "hellobench:chat", "--limit", "1", "--model", f"replay:{generations}"]) == 0
    monkeypatch.chdir(api_cwd)
    result = le.generate("hellobench:chat", model=f"replay:{generations}", limit=1)
    expected = DEFAULT_OUT / "hellobench-chat"
    assert Path(result.folder) == expected or Path(os.path.relpath(result.folder, api_cwd)) == expected
    assert (cli_cwd / expected / "generations.jsonl").is_file() and (api_cwd / expected / "generations.jsonl").is_file()


def test_help_and_version_import_no_heavy_library():
    """Building the parser, `--help` and `--version` import the options, not the commands' code (issue: --help took a
    second): no scipy, pandas, matplotlib, datasets or Hub client; a fresh interpreter, as the installed command."""
    done = subprocess.run([sys.executable, "-c", HELP_IMPORTS], capture_output=True, text=True, check=True)
    imported = set(done.stdout.split())
    assert "longform_eval" in imported  # the check ran
    assert not imported & set(HEAVY), f"--help imports {sorted(imported & set(HEAVY))}"
