"""Issue 37: one scrub for everything written, pushed or printed. A server that echoes the request it got (in a
successful reply: "success"; in an error's body: "error"; in an error's X-Error-Message header: "header") is put
behind `run` (an openai model), `judge` (an openai judge), `serve`, `push-run` and `publish` (the Hub stand-in echoing
the token it got); every file written under the test's folder and every byte printed or served is searched for every
spelling of every secret (as given, percent-encoded, JSON-escaped, in base64, and the base64 of `user:password`)."""

from __future__ import annotations

import base64
import json
import shutil
import threading
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import quote, quote_plus

import huggingface_hub
import pytest
from hub_standin_faults import authorization_echo, token_in_created_url

from longform_eval.dataset_builder.folder import package_version
from longform_eval.inference.backends import serve
from longform_eval.inference.cli import main
from longform_eval.inference.config import ModelSpec
from longform_eval.inference.hub.release_plan import Release, arena_repo

from .conftest import chat_run, replayed_chat_run
from .echo_server import EchoServer

KEY = "sk-suite-key-4e8a1c"
USER, PASSWORD, PASSWORD_DECODED = "suite-user-7d", "s%40fe%2Fpass-93", "s@fe/pass-93"
QUERY_TOKEN = "qtok-suite-61"
HF_TOKEN = "hf_SuiteHubToken52ab9c"
SPACE_TOKEN = "hf_SuiteSpaceToken0f3d1"
SECRETS = (KEY, USER, PASSWORD_DECODED, f"{USER}:{PASSWORD_DECODED}", QUERY_TOKEN, HF_TOKEN, SPACE_TOKEN)
MODES = ("success", "error", "header")
ORG = "suite-org"
REPO = f"{ORG}/run"


def spellings(secret: str) -> set[str]:
    encoded = base64.b64encode(secret.encode()).decode()
    return {secret, quote(secret, safe=""), quote_plus(secret), json.dumps(secret)[1:-1], encoded, encoded.rstrip("=")}


SPELLINGS = sorted({spelling for secret in SECRETS for spelling in spellings(secret)})


def leaks(texts: dict[str, str]) -> list[tuple[str, str]]:
    """(where, spelling) for each spelling of a secret in a text, also across a line a console wrapped."""
    found = []
    for where, text in texts.items():
        folded = "".join(text.split())
        found += [(where, s) for s in SPELLINGS if s in text or s in folded]
    return found


def written(folder: Path) -> dict[str, str]:
    return {str(p): p.read_bytes().decode("utf-8", "replace") for p in folder.rglob("*") if p.is_file()}


def assert_nothing_leaked(folder: Path, captured, *served: str) -> None:
    printed = {"stdout": captured.out, "stderr": captured.err}
    assert leaks(written(folder) | printed | {f"served {i}": text for i, text in enumerate(served)}) == []


def echo_server(mode: str, ok_text: str = "OK") -> EchoServer:
    server = EchoServer(ok_text=ok_text, echo_in_reply=mode == "success", echo_in_header=mode == "header")
    server.healed = mode == "success"
    return server


def use_secrets(monkeypatch, server: EchoServer) -> None:
    """The server's URL with a user, a percent-encoded password and a query token in ECHO_URL; a key; a Hub token."""
    url = server.url.replace("http://", f"http://{USER}:{PASSWORD}@") + f"?token={QUERY_TOKEN}"
    monkeypatch.setenv("ECHO_URL", url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("HF_TOKEN", HF_TOKEN)


def backend_args(flag: str) -> list[str]:
    return [x for option in ("base_url_env=ECHO_URL", "max_attempts=1") for x in (flag, option)]


def assert_echoed(server: EchoServer) -> None:
    """The server did get the secrets: what it echoed would leak them."""
    assert server.requests and len(leaks({"echo": server.requests[0]})) >= 3


# ----- run and judge ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_run_with_a_model_server_that_echoes_leaves_no_secret(mode, gpt4o_replays, tmp_path, monkeypatch, capfd):
    _, verdicts = gpt4o_replays
    with echo_server(mode) as server:
        use_secrets(monkeypatch, server)
        args = chat_run(1, "openai:m", f"replay:{verdicts}", str(tmp_path / "run"), *backend_args("--model-arg"))
        assert main(args) == (0 if mode == "success" else 1)
    assert_echoed(server)
    assert_nothing_leaked(tmp_path, capfd.readouterr())


@pytest.mark.parametrize("mode", MODES)
def test_judge_with_a_judge_server_that_echoes_leaves_no_secret(mode, gpt4o_replays, tmp_path, monkeypatch, capfd):
    generations, _ = gpt4o_replays
    out = tmp_path / "run"
    with echo_server(mode) as server:
        use_secrets(monkeypatch, server)
        args = chat_run(1, f"replay:{generations}", "openai:judge", str(out), *backend_args("--judge-arg"))
        assert main(args) == (0 if mode == "success" else 1)
        assert main(["judge", str(out)]) == (0 if mode == "success" else 1)  # the `judge` command, on its own
    assert_echoed(server)
    assert_nothing_leaked(tmp_path, capfd.readouterr())


# ----- serve --------------------------------------------------------------------------------------------------------
def served(url: str) -> str:
    """Status, headers and body of a chat completion asked of `serve`, whatever the status."""
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}).encode()
    request = urllib.request.Request(f"{url}/chat/completions", body, {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return f"{answer.status}\n{answer.headers}\n{answer.read().decode()}"
    except urllib.error.HTTPError as answer:
        return f"{answer.code}\n{answer.headers}\n{answer.read().decode()}"


@pytest.mark.parametrize("mode", MODES)
def test_serve_in_front_of_a_server_that_echoes_serves_no_secret(mode, tmp_path, monkeypatch, capfd):
    with echo_server(mode) as backend:
        use_secrets(monkeypatch, backend)
        spec = ModelSpec(backend="openai", model="m", options={"base_url_env": "ECHO_URL", "max_attempts": 1})
        server = serve.ModelServer(spec, port=0)
        thread = threading.Thread(target=server.httpd.serve_forever, daemon=True)
        thread.start()
        try:
            answer = served(server.url)
        finally:
            server.httpd.shutdown()
            server.httpd.server_close()
            server.backend.close()
    assert_echoed(backend)
    if mode == "success":
        assert answer.startswith("200\n") and "***" in answer  # the echo, masked
    assert_nothing_leaked(tmp_path, capfd.readouterr(), answer)


# ----- push-run and publish against a Hub that echoes the token -------------------------------------------------------
@pytest.fixture(scope="module")
def finished_run(gpt4o_replays, tmp_path_factory) -> Path:
    return replayed_chat_run(gpt4o_replays, tmp_path_factory.mktemp("suite") / "run", 1)


@pytest.fixture
def online(hub, monkeypatch, tmp_path):
    """This process's huggingface_hub pointed at the stand-in, online, with the secrets of `use_secrets` set."""
    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    hub.patch_client(monkeypatch)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "cache"))
    for name, value in {"HF_TOKEN": HF_TOKEN, "OPENAI_API_KEY": KEY, "SPACE_TOKEN": SPACE_TOKEN}.items():
        monkeypatch.setenv(name, value)
    return hub


def hub_fault(mode: str, hub, path_part: str):
    if mode == "success":
        return token_in_created_url(hub.store)
    return authorization_echo("POST", path_part, in_header=mode == "header", in_body=mode == "error")


def assert_one_line_error(err: str, command: str) -> None:
    lines = [line for line in err.splitlines() if line.startswith("longform-eval")]
    assert lines == err.strip().splitlines()[-1:] and len(lines) == 1, err
    assert lines[0].startswith(f"longform-eval {command}: error: ") and "the Hub answered HTTP 500" in lines[0]


@pytest.mark.parametrize("mode", MODES)
def test_push_run_to_a_hub_that_echoes_the_token_prints_no_secret(mode, online, finished_run, tmp_path, capfd):
    run = Path(shutil.copytree(finished_run, tmp_path / "run"))
    online.fault = hub_fault(mode, online, "commit")
    code = main(["push-run", str(run), "--repo", REPO])
    captured = capfd.readouterr()
    if mode == "success":
        assert code == 0 and f"pushed {run} to {online.url}/datasets/{REPO}-***" in captured.out, captured.err
    else:
        assert code == 2 and online.files(REPO) == {}
        assert_one_line_error(captured.err, "push-run")
    assert_nothing_leaked(tmp_path, captured)


def tiny_release(org: str, **options) -> Release:
    """The arena Space alone: what `publish` uploads and sets, without building the datasets."""
    return Release(org, package_version(), [arena_repo(org, package_version(), settings=options["arena"])], [])


@pytest.mark.parametrize("mode", MODES)
def test_publish_to_a_hub_that_echoes_the_token_prints_no_secret(mode, online, tmp_path, monkeypatch, capfd):
    from longform_eval.inference.hub import release as hub_release

    monkeypatch.setattr(hub_release, "assemble_release", tiny_release)  # `publish` imports it when it runs
    online.fault = hub_fault(mode, online, "secrets")  # the request that carries the Space's token in its body
    code = main(["publish", "--org", ORG, "--space-token-from-env", "SPACE_TOKEN"])
    captured = capfd.readouterr()
    if mode == "success":
        assert code == 0 and online.secrets(f"{ORG}/longform-eval-arena") == {"HF_TOKEN": SPACE_TOKEN}
    else:
        assert code == 2
        assert_one_line_error(captured.err, "publish")
    assert_nothing_leaked(tmp_path, captured)


# ----- what still holds a secret is not uploaded --------------------------------------------------------------------
@pytest.mark.parametrize("spelling", [KEY, base64.b64encode(KEY.encode()).decode(), HF_TOKEN])
def test_push_run_refuses_a_file_that_holds_a_secret_of_the_environment(
    spelling, online, finished_run, tmp_path, capfd
):
    """A log edited by hand holds the key (or the Hub token) this environment holds: one line, exit 2, no Hub call."""
    run = Path(shutil.copytree(finished_run, tmp_path / "run"))
    log = run / "judgements.jsonl"
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    records[-1]["completion"] += f" (asked with the key {spelling})"
    log.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    assert main(["push-run", str(run), "--repo", REPO]) == 2
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and f"{log}:{len(records)}: holds a secret in use" in err
    assert online.requests == [] and spelling not in err


def test_publish_refuses_a_file_that_holds_the_space_token(online, monkeypatch, capfd):
    from longform_eval.inference.hub import release as hub_release

    def leaky_release(org: str, **options) -> Release:
        release = tiny_release(org, **options)
        release.repos[0].files["notes.md"] = f"token: {SPACE_TOKEN}\n".encode()
        return release

    monkeypatch.setattr(hub_release, "assemble_release", leaky_release)
    assert main(["publish", "--org", ORG, "--space-token-from-env", "SPACE_TOKEN"]) == 2
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and f"space {ORG}/longform-eval-arena: notes.md:1: holds a secret in use" in err
    assert online.requests == []
