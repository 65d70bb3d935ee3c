"""The README and docs/ say only what is so: every shell command in them parses with `longform-eval`'s own parser
(parsed here; tests/test_docs_commands.py runs them), every script they name exists, every relative link resolves,
every command of the CLI is shown, no page a reader reaches from the README cites an issue number, and the README
stays a page a newcomer reads in five minutes."""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from contextlib import redirect_stdout
from importlib.metadata import metadata
from io import StringIO
from pathlib import Path

import pytest

from longform_eval.inference.cli import parser

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
PAGES = [README, *sorted((REPO / "docs").glob("*.md"))]
README_MAX_LINES = 150
SHELL_LANGUAGES = {"bash", "sh", "shell", "console"}
FENCE = re.compile(r"^(`{3,})([^\n`]*)\n(.*?)^\1[ \t]*$", re.M | re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")
ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
SEPARATORS = {"&&", "||", ";", "|", "&"}
PYTHON = {"python", "python3"}
PYTHON_MODULES = {"venv", "pytest", "pip"}  # `python -m X` besides the package itself
MAIN_MODULE = "longform_eval.inference"  # `python -m` / `accelerate launch -m` entry of the same CLI
SETUP = (
    "python3 -m venv .venv && . .venv/bin/activate && pip install torch==2.13.0 && pip install -e '.[local]' "
    "&& LONGFORM_EVAL_SOURCE=../shared/data longform-eval run"
)
TESTS = "bash .ci/run"
# A `--power-reference` must name a scored run folder (its type checks for scores.json), so the parse gets one at
# the path the page names, in a scratch folder; every other path is taken as argparse takes it.
NEEDS_SCORED_RUN = ("--power-reference",)


def shell_blocks(text: str) -> Iterator[tuple[int, str]]:
    """(line number of the first line, body) of each fenced block marked as shell."""
    for match in FENCE.finditer(text):
        if match[2].strip().lower() in SHELL_LANGUAGES:
            yield text.count("\n", 0, match.start(3)) + 1, match[3]


def logical_lines(block: str, first: int) -> Iterator[tuple[int, str]]:
    """The block's lines with `\\` continuations joined, each with its first line number."""
    pending, start = "", first
    for number, line in enumerate(block.splitlines(), first):
        if not pending:
            start = number
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        yield start, pending + line
        pending = ""
    if pending:
        yield start, pending


def simple_commands(line: str) -> list[list[str]]:
    """The commands of one shell line, split at `&&`, `||`, `;`, `|` and `&`, comments dropped."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    commands: list[list[str]] = [[]]
    for token in lexer:
        if token in SEPARATORS:
            commands.append([])
        else:
            commands[-1].append(token)
    return [command for command in commands if command]


def cli_problem(args: list[str], scratch: Path) -> str | None:
    """Why `longform-eval ARGS` does not parse, or None. Parsed in `scratch` (the current folder), never run."""
    for option in NEEDS_SCORED_RUN:
        for index, token in enumerate(args[:-1]):
            if token == option and not Path(args[index + 1]).is_absolute():
                (scratch / args[index + 1]).mkdir(parents=True, exist_ok=True)
                (scratch / args[index + 1] / "scores.json").write_text("{}\n", encoding="utf-8")
    root = parser()
    try:
        with redirect_stdout(StringIO()):
            parsed = root.parse_args(args)
    except SystemExit as stop:  # --version and --help print and exit; anything else is a refusal
        if stop.code == 0 and {"--version", "-h", "--help"} & set(args):
            return None
        return f"exited with {stop.code}"
    except Exception as error:  # OneLineParser raises CommandLineError; a type= check may raise anything
        return f"{type(error).__name__}: {error}"
    return abbreviation_problem(args, root, parsed.command)


def abbreviation_problem(args: list[str], root: argparse.ArgumentParser, command: str) -> str | None:
    """argparse takes `--judge-te` for `--judge-temperature`; a page spells every option out."""
    known = set(root._option_string_actions) | set(subparsers(root).choices[command]._option_string_actions)
    for token in args:
        option = token.partition("=")[0]
        if option.startswith("--") and option != "--" and option not in known:
            return f"{option}: an abbreviation; spell the option out"
    return None


def module_args(args: list[str]) -> list[str] | None:
    """The CLI arguments after `-m longform_eval.inference`, or None when the command runs no such module."""
    if "-m" not in args or args.index("-m") + 1 >= len(args) or args[args.index("-m") + 1] != MAIN_MODULE:
        return None
    return args[args.index("-m") + 2 :]


def extras() -> set[str]:
    """The installed distribution's extras (pyproject.toml's optional-dependencies)."""
    return set(metadata("longform-eval").get_all("Provides-Extra") or [])


def pip_problem(args: list[str]) -> str | None:
    """`pip install -e '.[EXTRA,...]'` names extras the project has; `pip install 'longform-eval[...]'` is refused in a
    command block while the package is not on the index (prose may name it for after the release)."""
    for token in args:
        if match := re.fullmatch(r"(?:\.|longform-eval)\[([^\]]+)\](?:==[\w.]+)?", token):
            missing = set(match[1].split(",")) - extras()
            if missing:
                return f"no extra {', '.join(sorted(missing))} in longform-eval"
            if token.startswith("longform-eval"):
                return f"{token} is not on the index yet: from a clone, pip install -e '.[{match[1]}]'"
    return None


def command_problem(tokens: list[str], scratch: Path) -> str | None:
    """Why one simple command of a page is wrong, or None."""
    while tokens and ENV_ASSIGNMENT.match(tokens[0]):
        tokens = tokens[1:]
    if not tokens:
        return None
    program, args = tokens[0], tokens[1:]
    if program == "longform-eval":
        return cli_problem(args, scratch)
    if program == "accelerate":
        rest = module_args(args) if args[:1] == ["launch"] else None
        return "accelerate launch without -m longform_eval.inference" if rest is None else cli_problem(rest, scratch)
    if program in PYTHON:
        return python_problem(args, scratch)
    if program == "bash" or program.startswith((".ci/", "bench/", "./")):
        script = args[0] if program == "bash" and args else program
        return None if (REPO / script).is_file() else f"{script}: no such file in the repository"
    if program == "pip":
        return pip_problem(args)
    if program == "export":
        return None if args and all(ENV_ASSIGNMENT.match(arg) for arg in args) else f"export {args}: not VAR=VALUE"
    if program in {".", "source"}:
        return None if args and args[0] == ".venv/bin/activate" else f"sources {args}"
    return f"unknown program {program!r}"


def python_problem(args: list[str], scratch: Path) -> str | None:
    if not args:
        return "python without arguments"
    if args[0] == "-c":
        try:
            compile(args[1], "<python -c>", "exec")
        except (IndexError, SyntaxError) as error:
            return f"python -c: {error}"
        return None
    if args[0] == "-m":
        rest = module_args(args)
        if rest is not None:
            return cli_problem(rest, scratch)
        return None if args[1:2] and args[1] in PYTHON_MODULES else f"python -m {args[1:2]}: not a known module"
    return None if (REPO / args[0]).is_file() else f"{args[0]}: no such file in the repository"


def page_command_problems(path: Path, scratch: Path) -> list[str]:
    """`FILE:LINE: command: problem` for every shell command of a page that is wrong."""
    problems = []
    for first, block in shell_blocks(path.read_text(encoding="utf-8")):
        for number, line in logical_lines(block, first):
            try:
                commands = simple_commands(line)
            except ValueError as error:  # an unclosed quote
                problems.append(f"{path.name}:{number}: {line.strip()}: {error}")
                continue
            for tokens in commands:
                problem = command_problem(tokens, scratch)
                if problem:
                    problems.append(f"{path.name}:{number}: {shlex.join(tokens)}: {problem}")
    return problems


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = heading.strip().lower().replace("`", "")
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    return {slug(match[1]) for match in re.finditer(r"^#{1,6} (.+)$", text, re.M)}


def link_problems(path: Path, root: Path = REPO) -> list[str]:
    """Every relative link of a page names a file or folder under `root` (and, after `#`, a heading of a page)."""
    text = INLINE_CODE.sub("", FENCE.sub("", path.read_text(encoding="utf-8")))
    problems = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        resolved = (path.parent / file).resolve() if file else path
        if not resolved.exists() or root.resolve() not in (resolved, *resolved.parents):
            problems.append(f"{path.name}: link {target}: no such file in the repository")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            problems.append(f"{path.name}: link {target}: no heading #{anchor} in {resolved.name}")
    return problems


def subparsers(root: argparse.ArgumentParser) -> argparse._SubParsersAction:
    return next(action for action in root._actions if isinstance(action, argparse._SubParsersAction))


def subcommands() -> set[str]:
    return set(subparsers(parser()).choices)


def shown_subcommands() -> set[str]:
    """The CLI commands that some checked shell block of the pages runs."""
    shown = set()
    for path in PAGES:
        for first, block in shell_blocks(path.read_text(encoding="utf-8")):
            for _, line in logical_lines(block, first):
                for tokens in simple_commands(line):
                    while tokens and ENV_ASSIGNMENT.match(tokens[0]):
                        tokens = tokens[1:]
                    args = tokens[1:] if tokens[:1] == ["longform-eval"] else module_args(tokens) or []
                    shown.update(token for token in args[:1] if not token.startswith("-"))
    return shown


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Path]:
    """The current folder while commands are parsed, so that a page's relative paths meet nothing on disk."""
    before = Path.cwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(before)


def test_the_pages_are_there_and_hold_commands():
    assert {p.name for p in PAGES} >= {"README.md", "running-and-backends.md", "benchmarks-and-scoring.md", "hub.md"}
    topics = [p for p in PAGES if p.parent.name == "docs" and p.name != "README.md"]
    assert all(any(shell_blocks(p.read_text(encoding="utf-8"))) for p in topics)


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_shell_command_parses_or_exists(path: Path, scratch: Path):
    assert page_command_problems(path, scratch) == []


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(path: Path):
    assert link_problems(path) == []


def test_every_cli_command_is_shown_in_a_checked_block():
    assert subcommands() - shown_subcommands() == set()


def linked_pages(start: Path = README, root: Path = REPO) -> list[Path]:
    """`start` and every page under `root` it links to, followed page by page (a folder's link: its README.md)."""
    found, waiting = [], [start]
    while waiting:
        page = waiting.pop(0)
        if page in found:
            continue
        found.append(page)
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            file = target.partition("#")[0]
            if not file or re.match(r"[a-z]+:", file):
                continue
            resolved = (page.parent / file).resolve()
            resolved = resolved / "README.md" if resolved.is_dir() else resolved
            if resolved.suffix == ".md" and resolved.is_file() and root.resolve() in resolved.parents:
                waiting.append(resolved)
    return found


# The pages a reader meets: the README and what it links, then every card template (each becomes a page on the Hub).
READ_PAGES = [*linked_pages(), *sorted((REPO / "cards").glob("*.j2"))]
# `issue 31`, `issues 22-23`, `#31`; not another project's `owner/name#1` (linked) nor an HTML entity `&#39;`.
ISSUE_REFERENCE = re.compile(r"(?i)\bissues? #?\d+|(?<![\w/&-])#\d+\b")


@pytest.mark.parametrize("path", READ_PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_no_page_cites_an_issue_number(path: Path):
    """A reader has no access to the tracker: `issue 31` says nothing; the page says what changed instead."""
    cited = ISSUE_REFERENCE.findall(path.read_text(encoding="utf-8"))
    assert not cited, f"{path.name}: {cited}"


def test_the_pages_read_include_what_the_readme_links():
    assert {"bench/RESULTS.md", "docs/hub.md", "spaces/README.md"} <= {str(p.relative_to(REPO)) for p in READ_PAGES}


def test_an_issue_reference_in_a_linked_page_is_caught(tmp_path: Path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text("[docs](docs/a.md) [web](https://example.org/b.md)\n", encoding="utf-8")
    (tmp_path / "docs" / "a.md").write_text("[back](../README.md) [c](c.md#x)\n", encoding="utf-8")
    (tmp_path / "docs" / "c.md").write_text("fixed in issue 21; see #31, not huggingface_hub#4086 or #top\n")
    pages = linked_pages(tmp_path / "README.md", tmp_path)
    assert [p.relative_to(tmp_path) for p in pages] == [Path("README.md"), Path("docs/a.md"), Path("docs/c.md")]
    assert ISSUE_REFERENCE.findall(pages[-1].read_text()) == ["issue 21", "#31"]


def test_every_docs_page_is_in_the_index():
    index = (REPO / "docs" / "README.md").read_text(encoding="utf-8")
    linked = {Path(target.partition("#")[0]).name for target in LINK.findall(index)}
    assert {p.name for p in PAGES if p.parent.name == "docs" and p.name != "README.md"} <= linked


def test_the_readme_install_line_from_a_clone_installs(tmp_path: Path):
    """pip reads the README's `pip install -e '.[EXTRAS]'` from the repository root (the package's own build and
    extras; `--no-deps --dry-run`: nothing is downloaded or installed)."""
    lines = [line for _, body in shell_blocks(README.read_text(encoding="utf-8")) for line in body.splitlines()]
    target = next(
        re.search(r"pip install -e '(\.\[[^\]]+\])'", line)[1] for line in lines if "pip install -e '." in line
    )
    pip = [sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--no-build-isolation", "-e", target]
    done = subprocess.run(pip, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Would install longform-eval" in done.stdout


def test_readme_is_short_and_keeps_the_two_commands():
    text = README.read_text(encoding="utf-8")
    lines = text.count("\n")
    print(f"README.md: {lines} lines (at most {README_MAX_LINES})")
    assert lines <= README_MAX_LINES
    blocks = [body for _, body in shell_blocks(text)]
    assert any(SETUP in body.splitlines() for body in blocks)
    assert any(TESTS in body.splitlines() for body in blocks)
    assert "docs/README.md" in text


# ----- the checker catches what it should --------------------------------------------------------------------
def page(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "page.md"
    path.write_text(body, encoding="utf-8")
    return path


def test_a_misspelled_flag_a_bad_value_and_a_missing_script_are_caught(scratch: Path):
    path = page(
        scratch,
        "```bash\n"
        "longform-eval run --benchmark hellobench \\\n    --judje openai:gpt-4o  # a typo\n"
        "FOO=1 longform-eval serve local:default --port eighty\n"
        "longform-eval build hellobench && longform-eval bild longgenbench\n"
        "accelerate launch --num_processes 2 -m longform_eval.inference generate --out\n"
        "python bench/no_such_bench.py && bash .ci/no-such-script\n"
        "pip install -e '.[nonexistent]'\n"
        "longform-evl run\n"
        "python -c 'print(('\n"
        "longform-eval run --dry-run --power-reference runs/A --detect -1\n"
        "longform-eval judge runs/A --judge-temp 0.5\n"
        "pip install 'longform-eval[vllm,nonexistent]' && export OPENAI_API_KEY\n"
        "pip install 'longform-eval[vllm]'\n"
        "```\n"
        "```python\nlongform-eval run --not-checked-here\n```\n",
    )
    problems = page_command_problems(path, scratch)
    lines = sorted(int(problem.split(":")[1]) for problem in problems)
    assert lines == [2, 4, 5, 6, 7, 7, 8, 9, 10, 11, 12, 13, 13, 14], problems
    assert "--judje" in problems[0] and "argument --detect" in problems[-5] and "an abbreviation" in problems[-4]
    assert "no extra nonexistent" in problems[-3] and "not VAR=VALUE" in problems[-2]
    assert "not on the index yet: from a clone, pip install -e '.[vllm]'" in problems[-1]


def test_good_commands_pass(scratch: Path):
    path = page(
        scratch,
        "```bash\n"
        "# comment\n"
        "LONGFORM_EVAL_RUNS=hf://datasets/ORG/NAME/run-a longform-eval space --runs runs/ --db votes.sqlite\n"
        "longform-eval run --benchmark hellobench --dry-run --power-reference runs/A --detect 5 && bash .ci/run\n"
        "python -m longform_eval.inference report runs/A  # the same CLI\n"
        "longform-eval --version\n"
        "pip install -e '.[vllm,openai]' && export OPENAI_API_KEY=sk-...\n"
        "```\n",
    )
    assert page_command_problems(path, scratch) == []


def test_a_broken_link_and_a_missing_heading_are_caught(tmp_path: Path):
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    (repo / "docs" / "hub.md").write_text("# The Hub\n\n## Releasing the package\n", encoding="utf-8")
    (repo / "bench.py").write_text("", encoding="utf-8")
    (tmp_path / "outside.md").write_text("", encoding="utf-8")
    path = page(
        repo / "docs",
        "[a](hub.md#no-such-heading) [b](no-such-page.md) [c](hub.md#releasing-the-package) [d](../bench.py)\n"
        "`[e](nope.md)` [f](https://example.org/nope) [g](#here) [h](../../outside.md)\n\n## Here\n",
    )
    problems = link_problems(path, root=repo)
    assert len(problems) == 3, problems
    assert "#no-such-heading" in problems[0] and "no-such-page.md" in problems[1] and "outside.md" in problems[2]
