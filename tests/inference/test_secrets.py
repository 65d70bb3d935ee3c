"""A URL's userinfo and query are secrets: refused as options, read from the environment (`base_url_env`), and
masked in every file and message, server errors included."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from longform_eval.inference.backends.base import Request
from longform_eval.inference.backends.openai_backend import OpenAIBackend
from longform_eval.inference.cli import main
from longform_eval.inference.config import GenerationConfig
from longform_eval.inference.url_secrets import mask_url_secrets, url_secret_parts

from .conftest import chat_run
from .fault_server import FaultServer

VERDICT6 = json.dumps([{"checklist_id": i, "reason": "solid", "evaluation_score": 0.75} for i in range(6)])
FAST_RETRIES = ("--judge-arg", "backoff_base=0.01", "--judge-arg", "max_attempts=2")
SECRETS = ("SECRET", "SECRET2")


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def leaks(out: Path, captured: pytest.CaptureResult) -> list[str]:
    """Where a secret shows: the files of the run folder, stdout, stderr."""
    texts = {str(p): p.read_bytes().decode("utf-8", "replace") for p in out.rglob("*") if p.is_file()}
    texts |= {"stdout": captured.out, "stderr": captured.err}
    return [where for where, text in texts.items() if any(secret in text for secret in SECRETS)]


class Recording:
    """Wraps a FaultServer's answers: records each request's path and Authorization header, and with `echo` set
    answers 500 with an error that repeats the full URL it was called at (as some servers and proxies do)."""

    def __init__(self, server: FaultServer):
        self.server, self.answer = server, server.respond
        self.calls: list[tuple[str, str]] = []
        self.echo = False
        server.respond = self.respond

    def respond(self, handler, body, prompt):
        self.calls.append((handler.path, handler.headers.get("Authorization", "")))
        if self.echo:
            url = f"http://{handler.headers['Host']}{handler.path}"
            return self.server.send(handler, 500, {"error": {"message": f"upstream failed for {url} ({handler.path})"}})
        return self.answer(handler, body, prompt)


def secret_url(server: FaultServer) -> str:
    """The server's URL with a user name and password and a token in its query."""
    return server.url.replace("http://", "http://user:SECRET@") + "?token=SECRET2"


# ----- the masking ----------------------------------------------------------------------------------------


def test_userinfo_is_masked_password_or_user_name_alone():
    assert mask_url_secrets("http://user:SECRET@127.0.0.1:8000/v1") == "http://***@127.0.0.1:8000/v1"
    assert mask_url_secrets("https://SECRET@host/v1") == "https://***@host/v1"


def test_every_query_and_fragment_value_is_masked():
    assert mask_url_secrets("http://h/v1?token=SECRET&api-version=2024") == "http://h/v1?token=***&api-version=***"
    assert mask_url_secrets("http://h/v1?SECRET") == "http://h/v1?***"
    assert mask_url_secrets("https://h/cb#access_token=SECRET") == "https://h/cb#access_token=***"


def test_several_urls_in_one_text_keep_the_sentence_around_them():
    text = (
        "cannot reach http://u:SECRET@a:1/v1?k=SECRET2: HTTP 500: {'message': 'no route /v1/chat?token=SECRET'} "
        "(see 'https://b/x?key=SECRET2', or http://c/d.)"
    )
    masked = mask_url_secrets(text)
    assert masked == (
        "cannot reach http://***@a:1/v1?k=***: HTTP 500: {'message': 'no route /v1/chat?token=***'} "
        "(see 'https://b/x?key=***', or http://c/d.)"
    )
    assert mask_url_secrets(masked) == masked  # masking twice changes nothing


@pytest.mark.parametrize(
    "text",
    [
        "HTTP 500: Error code: 500 - {'error': {'message': 'down'}} (after 2 attempts)",
        "http://127.0.0.1:8000/v1: malformed reply: the reply has no choices",
        "key=value?x=1, mail user@example.com, and/or?what=1, is it /here?",
        "",
    ],
)
def test_text_without_a_secret_in_a_url_is_unchanged(text):
    assert mask_url_secrets(text) == text


def test_the_parts_that_make_an_option_url_secret():
    assert url_secret_parts("http://user@h/v1") == ["a user name or password"]
    assert url_secret_parts("see http://h/v1?token=x and http://u:p@h") == [
        "a query string",
        "a user name or password",
    ]
    assert url_secret_parts("http://localhost:8000/v1") == []
    assert url_secret_parts("/models/what?.gguf") == []  # a file name is no URL


# ----- refused as options -------------------------------------------------------------------------------


def refused_options(server: FaultServer, tmp_path: Path) -> dict[str, tuple[str, ...]]:
    config = tmp_path / "judge.yaml"
    config.write_text(f"base_url: {server.url}?token=SECRET\nmax_attempts: 2\n")
    return {
        "query": ("--judge-arg", f"base_url={server.url}?token=SECRET"),
        "user name": ("--judge-arg", f"base_url={server.url.replace('http://', 'http://SECRET@')}"),
        "config file": ("--judge-config", str(config)),
        "model name": ("--judge", f"openai:{server.url}?token=SECRET"),
    }


@pytest.mark.parametrize("case", ["query", "user name", "config file", "model name"])
def test_a_url_with_a_secret_is_refused_before_anything_is_written(case, gpt4o_replays, tmp_path, capsys):
    generations, _ = gpt4o_replays
    out = tmp_path / "run"
    with FaultServer() as server:
        option = refused_options(server, tmp_path)[case]
        assert main([*chat_run(1, f"replay:{generations}", "openai:judge", str(out)), *option]) == 2
        assert not server.seen  # nothing was sent
    captured = capsys.readouterr()
    assert not out.exists() and leaks(out, captured) == []
    assert captured.out == "" and len(captured.err.splitlines()) == 1 and "Traceback" not in captured.err
    assert ("model" if case == "model name" else "option 'base_url'") in captured.err
    assert "***" in captured.err and "base_url_env=NAME" in captured.err


def test_an_option_without_its_key_is_refused_masked(gpt4o_replays, tmp_path, capsys):
    generations, _ = gpt4o_replays
    out = tmp_path / "run"
    option = ("--judge-arg", "http://user:SECRET@127.0.0.1:9/v1")  # KEY= forgotten
    assert main([*chat_run(1, f"replay:{generations}", "openai:judge", str(out)), *option]) == 2
    captured = capsys.readouterr()
    assert "--judge-arg 'http://***@127.0.0.1:9/v1': expected KEY=VALUE" in captured.err
    assert not out.exists() and leaks(out, captured) == []


def test_a_run_folder_edited_to_hold_a_secret_url_is_refused_without_echoing_it(gpt4o_replays, tmp_path, capsys):
    generations, verdicts = gpt4o_replays
    out = tmp_path / "run"
    assert main(chat_run(1, f"replay:{generations}", f"replay:{verdicts}", str(out))) == 0
    config = out / "config.yaml"
    config.write_text(config.read_text().replace("options: {}", "options: {base_url: 'http://h/v1?token=SECRET'}", 1))
    capsys.readouterr()
    assert main(["judge", str(out)]) == 2
    err = capsys.readouterr().err
    assert "token=***" in err and "SECRET" not in err and len(err.splitlines()) == 1


SECRET_URL = "https://user:SECRET@h/x?token=SECRET2"


@pytest.mark.parametrize(
    "option,what", [("--source", "a local folder of source files"), ("--dataset", "a dataset folder or a Hub repo id")]
)
def test_a_url_given_for_a_local_folder_is_refused_without_showing_it(option, what, gpt4o_replays, tmp_path, capsys):
    generations, verdicts = gpt4o_replays
    out = tmp_path / "run"
    assert main([*chat_run(1, f"replay:{generations}", f"replay:{verdicts}", str(out)), option, SECRET_URL]) == 2
    captured = capsys.readouterr()
    assert captured.err.strip() == f"longform-eval run: error: argument {option}: expected {what}, got a URL " + (
        "(not repeated: it may hold a secret)"
    )
    assert not out.exists() and leaks(out, captured) == []


@pytest.mark.parametrize(
    "command",
    [
        ["build", "hellobench", "--source", SECRET_URL],
        ["import-generations", "responses.jsonl", "--out", "imported", "--source", SECRET_URL],
        ["import-generations", "responses.jsonl", "--out", "imported", "--dataset", SECRET_URL],
        ["judge-agreement", "--judge", "local:default", "--source", SECRET_URL],
        ["space", "--source", SECRET_URL],
    ],
)
def test_every_command_refuses_a_url_for_a_local_folder(command, tmp_path, capsys):
    assert main(command) == 2
    captured = capsys.readouterr()
    assert "got a URL" in captured.err and len(captured.err.splitlines()) == 1
    assert "SECRET" not in captured.err + captured.out and "Traceback" not in captured.err


def test_a_url_refused_by_the_parser_itself_is_masked(capsys):
    assert main(["build", SECRET_URL]) == 2  # not one of the builders: argparse repeats the value
    err = capsys.readouterr().err
    assert "invalid choice: 'https://***@h/x?token=***'" in err and "SECRET" not in err


def test_a_missing_source_folder_is_named_as_given(capsys):
    from longform_eval.dataset_builder.sources import resolve_source

    with pytest.raises(FileNotFoundError, match=r"--source h//x\?token=1: no such folder"):
        resolve_source("hellobench", "h//x?token=1", None)


@pytest.mark.parametrize("field", ["dataset", "source"])
def test_a_run_folder_edited_to_hold_a_url_dataset_is_refused_masked(field, gpt4o_replays, tmp_path, capsys):
    generations, verdicts = gpt4o_replays
    out = tmp_path / "run"
    assert main(chat_run(1, f"replay:{generations}", f"replay:{verdicts}", str(out))) == 0
    config = out / "config.yaml"
    config.write_text(config.read_text().replace(f"{field}: null", f"{field}: '{SECRET_URL}'", 1))
    capsys.readouterr()
    assert main(["score", str(out)]) == 2
    err = capsys.readouterr().err
    assert "https://***@h/x?token=***" in err and "SECRET" not in err and len(err.splitlines()) == 1


def test_debug_says_its_traceback_is_not_masked():
    from longform_eval.inference.cli import parser

    assert "unmasked" in " ".join(parser().format_help().split())


# ----- base_url_env: the URL from the environment, used, never shown ---------------------------------------


def judged_with_env(generations: Path, out: Path) -> list[str]:
    return chat_run(3, f"replay:{generations}", "openai:judge", str(out), "--judge-arg", "base_url_env=JUDGE_URL")


@pytest.mark.parametrize("failure", ["500", "echo", "html", "bad_json"])
def test_a_failing_server_behind_a_secret_url_never_shows_it(failure, gpt4o_replays, tmp_path, capsys, monkeypatch):
    generations, _ = gpt4o_replays
    out = tmp_path / "run"
    with FaultServer() as server:
        recording = Recording(server)
        recording.echo = failure == "echo"
        server.fail_with = None if recording.echo else failure
        monkeypatch.setenv("JUDGE_URL", secret_url(server))
        assert main([*judged_with_env(generations, out), *FAST_RETRIES]) == 1
    failures = lines(out / "failures.jsonl")
    assert len(failures) == 3 and len(recording.calls) == 6  # 3 calls, 2 attempts each
    masked = f"{server.url.replace('http://', 'http://***@')}?token=***"
    assert all(f["error"].startswith(f"{masked}: ") for f in failures)
    if failure == "echo":
        assert "upstream failed for http://127.0.0.1" in failures[0]["error"] and "token=***" in failures[0]["error"]
    captured = capsys.readouterr()
    assert "3 calls failed" in captured.err and "Traceback" not in captured.err
    assert leaks(out, captured) == []


def test_a_secret_url_from_the_environment_is_really_used(gpt4o_replays, tmp_path, capsys, monkeypatch):
    generations, _ = gpt4o_replays
    out = tmp_path / "run"
    with FaultServer(ok_text=lambda prompt: VERDICT6) as server:
        recording = Recording(server)
        monkeypatch.setenv("JUDGE_URL", secret_url(server))
        assert main(judged_with_env(generations, out)) == 0
    assert len(lines(out / "judgements.jsonl")) == 3
    # the query goes with every request; the userinfo is sent as HTTP basic auth (httpx's way)
    basic = "Basic " + base64.b64encode(b"user:SECRET").decode()
    assert set(recording.calls) == {("/v1/chat/completions?token=SECRET2", basic)}
    assert "base_url_env: JUDGE_URL" in (out / "config.yaml").read_text()
    assert leaks(out, capsys.readouterr()) == []


def test_an_unreachable_secret_url_is_named_masked(gpt4o_replays, tmp_path, capsys, monkeypatch):
    generations, _ = gpt4o_replays
    out = tmp_path / "run"
    monkeypatch.setenv("JUDGE_URL", "http://user:SECRET@127.0.0.1:9/v1?token=SECRET2")
    assert main([*judged_with_env(generations, out), *FAST_RETRIES]) == 2
    captured = capsys.readouterr()
    assert "cannot reach http://***@127.0.0.1:9/v1?token=***" in captured.err and "Traceback" not in captured.err
    assert leaks(out, captured) == []


def test_a_capped_retry_after_names_the_server_masked(capsys, monkeypatch):
    with FaultServer() as server:
        recording = Recording(server)
        monkeypatch.setenv("JUDGE_URL", secret_url(server))
        backend = OpenAIBackend("m", base_url_env="JUDGE_URL", max_retry_after=0.2)
        (result,) = backend.generate([Request(key="k", prompt="MARK-dayrate")], GenerationConfig(max_new_tokens=4))
    assert result.error is None and recording.calls[-1][0] == "/v1/completions?token=SECRET2"
    err = capsys.readouterr().err
    assert "?token=***: Retry-After 86400 s capped" in err and "SECRET" not in err


def test_base_url_env_must_name_a_set_variable_and_excludes_base_url(monkeypatch):
    monkeypatch.delenv("JUDGE_URL", raising=False)
    with pytest.raises(ValueError, match="set JUDGE_URL in the environment"):
        OpenAIBackend("m", base_url_env="JUDGE_URL")
    with pytest.raises(ValueError, match="base_url or base_url_env, not both"):
        OpenAIBackend("m", base_url="http://h/v1", base_url_env="JUDGE_URL")


@pytest.mark.parametrize("value", ["http://user:SECRET@127.0.0.1:port/v1?token=SECRET2", "SECRET", "ftp://SECRET@h/"])
def test_a_variable_that_holds_no_usable_url_is_named_not_shown(value, gpt4o_replays, tmp_path, capsys, monkeypatch):
    generations, _ = gpt4o_replays
    out = tmp_path / "run"
    monkeypatch.setenv("JUDGE_URL", value)
    assert main(judged_with_env(generations, out)) == 2
    captured = capsys.readouterr()
    assert "the variable JUDGE_URL (base_url_env): not an http(s) URL" in captured.err
    assert "Traceback" not in captured.err and leaks(out, captured) == []
