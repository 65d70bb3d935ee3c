"""No secret in any file or line (issue 28, F2): the values of the secrets in use (the API key, the user, password
and query values of a `base_url_env` URL) and every Authorization header are scrubbed from whatever a failure
leaves (failures.jsonl, console lines, error lines, reports), a server that echoes the whole request included."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from longform_eval.inference.backends.base import Request
from longform_eval.inference.backends.openai_backend import OpenAIBackend
from longform_eval.inference.config import GenerationConfig
from longform_eval.inference.secret_values import register_secret, register_url_secrets, scrub

from .conftest import chat_run
from .echo_server import EchoServer

KEY = "sk-test-echo-7f3a9c"
USER, PASSWORD, PASSWORD_DECODED = "echo-user-x1", "p%40ss%2Fw0rd-42", "p@ss/w0rd-42"
TOKEN, SIGNATURE, SIGNATURE_DECODED = "tok-secret-42", "a%2Bb%3Dsig-77", "a+b=sig-77"
BASIC = base64.b64encode(f"{USER}:{PASSWORD_DECODED}".encode()).decode()
URL_SECRETS = (USER, PASSWORD, PASSWORD_DECODED, "w0rd-42", BASIC, f"Basic {BASIC}", TOKEN, SIGNATURE)
URL_SECRETS += (SIGNATURE_DECODED, "sig-77", BASIC[:16])  # a cut base64 still gives away `user:pa`
KEY_SECRETS = (KEY, f"Bearer {KEY}", "echo-7f3a9c")
VERDICT6 = json.dumps([{"checklist_id": i, "reason": "solid", "evaluation_score": 0.75} for i in range(6)])
FAST = ("max_attempts=2", "backoff_base=0.01")


def secret_url(server: EchoServer) -> str:
    """The server's URL with a user name, a percent-encoded password, and two query values."""
    return server.url.replace("http://", f"http://{USER}:{PASSWORD}@") + f"?token={TOKEN}&sig={SIGNATURE}"


def leaks(texts: dict[str, str], secrets: tuple[str, ...]) -> list[tuple[str, str]]:
    """(where, secret) for each secret in a text, also across a line a console wrapped (whitespace ignored)."""
    found = []
    for where, text in texts.items():
        folded = "".join(text.split())
        found += [(where, s) for s in secrets if s in text or "".join(s.split()) in folded]
    return found


def folder_texts(folder: Path) -> dict[str, str]:
    return {str(p): p.read_bytes().decode("utf-8", "replace") for p in folder.rglob("*") if p.is_file()}


# ----- scrub ----------------------------------------------------------------------------------------------


def test_every_spelling_of_a_registered_secret_is_masked():
    register_url_secrets(f"http://{USER}:{PASSWORD}@h:1/v1?token={TOKEN}&sig={SIGNATURE}")
    register_secret(KEY)
    text = (
        f"user {USER} password {PASSWORD} ({PASSWORD_DECODED}) basic {BASIC} unpadded {BASIC.rstrip('=')} "
        f"token {TOKEN} sig {SIGNATURE} = {SIGNATURE_DECODED} key {KEY}"
    )
    scrubbed = scrub(text)
    assert leaks({"text": scrubbed}, URL_SECRETS + KEY_SECRETS) == []
    assert scrubbed.startswith("user *** password *** (***) basic *** unpadded *** token *** sig *** = ***")
    assert scrub(scrubbed) == scrubbed  # scrubbing twice changes nothing


@pytest.mark.parametrize(
    "text,scrubbed",
    [
        ("Authorization: Bearer s3cr3t.t0ken\nHost: h", "Authorization: ***\nHost: h"),
        ("proxy-authorization: Basic dXNlcjpwYXNz\r\n", "proxy-authorization: ***\r\n"),
        ('Authorization: Digest username="u", response="s3cr3t"', "Authorization: ***"),
        ("x-api-key: s3cr3t.t0ken (after 2 attempts)", "x-api-key: ***"),
        ("api_key=s3cr3t.t0ken", "api_key=***"),
        ('{"Authorization": "Token s3cr3t", "Host": "h"}', '{"Authorization": "***", "Host": "h"}'),
        ("{'authorization': 'ApiKey s3cr3t', 'host': 'h'}", "{'authorization': '***', 'host': 'h'}"),
        (
            "'POST / HTTP/1.1\\r\\nAuthorization: Bearer s3cr3t\\r\\nHost: h'",
            "'POST / HTTP/1.1\\r\\nAuthorization: ***\\r\\nHost: h'",
        ),
    ],
)
def test_an_authorization_header_of_any_scheme_is_masked_registered_or_not(text, scrubbed):
    assert scrub(text) == scrubbed
    assert scrub(scrubbed) == scrubbed


@pytest.mark.parametrize("text", ["an Authorization header is missing", "api_key_env: MY_KEY", "no secret here"])
def test_text_that_names_a_header_without_a_value_is_unchanged(text):
    assert scrub(text) == text


def test_a_short_secret_masks_no_ordinary_text_but_is_masked_where_it_shows_as_a_secret():
    register_url_secrets("http://ab:pw@h/v1?k=xyz")
    register_secret("abc")
    text = "ab, abc and xyz: a pwd"
    assert scrub(text) == text  # shorter than MIN_LENGTH (4): not registered
    basic = base64.b64encode(b"ab:pw").decode()
    assert scrub(f"http://ab:pw@h/v1?k=xyz {basic}") == "http://***@h/v1?k=*** ***"  # the base64 is long enough
    assert scrub(f"Authorization: Basic {basic}") == "Authorization: ***"


# ----- the backend against a server that echoes the request ------------------------------------------------


@pytest.mark.parametrize("configuration", ["base_url_env", "api key"])
def test_an_echoed_request_leaves_no_secret_in_the_error(configuration, capsys, monkeypatch):
    with EchoServer() as server:
        if configuration == "base_url_env":
            monkeypatch.setenv("ECHO_URL", secret_url(server))
            backend, secrets = OpenAIBackend("m", base_url_env="ECHO_URL", max_attempts=1), URL_SECRETS
        else:
            monkeypatch.setenv("OPENAI_API_KEY", KEY)
            backend, secrets = OpenAIBackend("m", base_url=server.url, max_attempts=1), KEY_SECRETS
        (result,) = backend.generate([Request(key="k", prompt="hi")], GenerationConfig(max_new_tokens=4))
    echoed = {"request": server.requests[0]}
    assert len(leaks(echoed, secrets)) >= 3  # the server did repeat them
    assert "HTTP 500" in result.error and "POST /v1/completions" in result.error
    assert "authorization: ***" in result.error.lower()
    assert leaks({"error": result.error, **capsys.readouterr()._asdict()}, secrets) == []


# ----- the commands: every file of the run folder, and every line printed ----------------------------------


def command(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "longform_eval.inference", *args],
        env={**os.environ, **env},
        cwd=cwd,  # not the checkout, whose inference/ folder would shadow the package
        capture_output=True,
        text=True,
        timeout=300,
    )


def outputs(done: subprocess.CompletedProcess, name: str) -> dict[str, str]:
    return {f"{name} stdout": done.stdout, f"{name} stderr": done.stderr}


@pytest.mark.slow
def test_a_model_behind_a_secret_url_echoing_requests_leaves_no_secret(gpt4o_replays, tmp_path):
    _, verdicts = gpt4o_replays
    out = tmp_path / "run"
    with EchoServer() as server:
        env = {"ECHO_URL": secret_url(server)}
        args = chat_run(1, "openai:m", f"replay:{verdicts}", str(out), "--model-arg", "base_url_env=ECHO_URL")
        args += [x for option in FAST for x in ("--model-arg", option)]
        failed = command(args, tmp_path, **env)
        assert failed.returncode == 1, failed.stderr[-2000:]
        report = command(["report", str(out)], tmp_path)  # reads failures.jsonl, in a process with no secret read
        assert leaks(folder_texts(out) | outputs(failed, "run") | outputs(report, "report"), URL_SECRETS) == []
        (failure,) = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
        assert failure["stage"] == "generate" and "authorization: ***" in failure["error"].lower()
        assert "1 call failed and stays pending" in report.stderr and report.returncode == 1
        assert len(server.requests) == 2 and len(leaks({"echo": server.requests[0]}, URL_SECRETS)) >= 5
        server.healed = True
        healed = command(args, tmp_path, **env)  # the pending call is made again
    assert healed.returncode == 0, healed.stderr[-2000:]
    assert len(server.requests) == 3 and (out / "generations.jsonl").read_text().count("\n") == 1
    assert leaks(folder_texts(out) | outputs(healed, "rerun"), URL_SECRETS) == []


@pytest.mark.slow
def test_a_judge_with_an_api_key_echoing_requests_leaves_no_secret(gpt4o_replays, tmp_path):
    generations, _ = gpt4o_replays
    out = tmp_path / "run"
    with EchoServer(ok_text=VERDICT6) as server:
        args = chat_run(1, f"replay:{generations}", "openai:judge", str(out), "--judge-arg", f"base_url={server.url}")
        args += [x for option in FAST for x in ("--judge-arg", option)]
        failed = command(args, tmp_path, OPENAI_API_KEY=KEY)
        assert failed.returncode == 1, failed.stderr[-2000:]
        assert leaks(folder_texts(out) | outputs(failed, "run"), KEY_SECRETS) == []
        (failure,) = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
        assert failure["stage"] == "judge" and "authorization: ***" in failure["error"].lower()
        assert "1 call failed and stays pending" in failed.stderr
        assert len(server.requests) == 2 and len(leaks({"echo": server.requests[0]}, KEY_SECRETS)) == 3
        server.healed = True
        healed = command(["judge", str(out)], tmp_path, OPENAI_API_KEY=KEY)  # the pending call is made again
    assert healed.returncode == 0, healed.stderr[-2000:]
    assert len(server.requests) == 3 and (out / "judgements.jsonl").read_text().count("\n") == 1
    assert leaks(folder_texts(out) | outputs(healed, "judge"), KEY_SECRETS) == []


@pytest.mark.slow
def test_a_server_echoing_the_request_in_a_successful_reply_leaves_no_secret(gpt4o_replays, tmp_path):
    """Issue 37: the key, the Basic credentials and the URL's query values came back inside a 200 reply and were
    written into generations.jsonl (and pushed). Every record is scrubbed as it is written."""
    _, verdicts = gpt4o_replays
    out = tmp_path / "run"
    with EchoServer(echo_in_reply=True) as server:
        server.healed = True  # every request answered 200, its text the request itself
        env = {"ECHO_URL": secret_url(server), "OPENAI_API_KEY": KEY}
        args = chat_run(2, "openai:m", f"replay:{verdicts}", str(out), "--model-arg", "base_url_env=ECHO_URL")
        done = command(args, tmp_path, **env)
        assert done.returncode == 0, done.stderr[-2000:]
        assert len(server.requests) == 2 and len(leaks({"echo": server.requests[0]}, URL_SECRETS + KEY_SECRETS)) >= 5
    generations = [json.loads(line) for line in (out / "generations.jsonl").read_text().splitlines()]
    assert len(generations) == 2 and all("authorization: ***" in g["response"].lower() for g in generations)
    assert leaks(folder_texts(out) | outputs(done, "run"), URL_SECRETS + KEY_SECRETS) == []


def test_a_reply_holding_a_lone_surrogate_is_written_escaped_and_the_run_goes_on(gpt4o_replays, tmp_path):
    """Issue 37: `"bad \\ud800 half"` is valid JSON but no UTF-8: the run stopped with a codec error and an empty
    generations.jsonl. The record is written with the surrogate escaped and marked (`escaped` names the field); the
    run finishes (scores.json and report.md written), and a rerun makes no call."""
    from longform_eval.inference.cli import main

    _, verdicts = gpt4o_replays
    out = tmp_path / "run"
    with EchoServer(ok_text="bad \ud800 half") as server:
        server.healed = True
        args = chat_run(2, "openai:m", f"replay:{verdicts}", str(out), "--model-arg", f"base_url={server.url}")
        assert main(args) == 0
        assert main(args) == 0 and len(server.requests) == 2  # nothing pending: no call made again
    generations = [json.loads(line) for line in (out / "generations.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [g["response"] for g in generations] == ["bad \\ud800 half"] * 2
    assert [g["escaped"] for g in generations] == [["response"]] * 2
    assert (out / "report.md").is_file() and (out / "scores.json").is_file()


def test_run_exits_1_while_a_call_is_pending(gpt4o_replays, tmp_path, monkeypatch, capsys):
    """Issue 37: a backend that returns fewer results than it was asked for left a call pending, and `run` exited 0
    (twice in a row) while `score` exited 1. The call stays pending and `run` says so, exit 1, until it is made."""
    from longform_eval.inference.backends import create_backend, shared
    from longform_eval.inference.cli import main

    class DropsTheLast:
        def __init__(self, inner):
            self.inner, self.name = inner, inner.name

        def generate(self, requests, config, on_result=None):
            return self.inner.generate(list(requests)[:-1], config, on_result=on_result)

        def close(self):
            self.inner.close()

    generations, verdicts = gpt4o_replays
    monkeypatch.setattr(shared, "create_backend", lambda spec: DropsTheLast(create_backend(spec)))
    args = chat_run(3, f"replay:{generations}", f"replay:{verdicts}", str(tmp_path / "run"))
    assert main(args) == 1
    assert "2 calls not made yet (1 generation and 1 judge call pending in all)" in capsys.readouterr().err
    assert main(args) == 1  # still one short: the dropped request is the last one again
    monkeypatch.setattr(shared, "create_backend", create_backend)  # a backend that answers every request
    assert main(args) == 0
