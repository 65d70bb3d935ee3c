"""Issue 37: the one scrub sits where text leaves the process, so a new writer or printer gets it without asking: every
text file written whole (`common.atomic`), every line printed or logged while a command runs (`scrubbed_output`),
every Hub request's token (registered as it is sent); text UTF-8 cannot encode is written escaped, never raising."""

from __future__ import annotations

import base64
import io
import json
import logging
import sys

import httpx2

from longform_eval.common.atomic import write_text_atomic
from longform_eval.inference import secret_values
from longform_eval.inference.hub.client import registers_token
from longform_eval.inference.scrubbed_output import ScrubbedStream, scrubbed_output
from longform_eval.inference.secret_values import register_secret, scrub

KEY = 'sk-out-91c2"e/7'  # a quote and a slash: its JSON and percent spellings differ from it
SPELLINGS = (KEY, json.dumps(KEY)[1:-1], "sk-out-91c2%22e%2F7", base64.b64encode(KEY.encode()).decode())


def test_every_spelling_of_a_key_is_masked_json_escaped_and_base64_included():
    register_secret(KEY)
    text = " ".join(SPELLINGS)
    assert scrub(text) == " ".join(["***"] * len(SPELLINGS))


def test_a_text_file_written_whole_is_scrubbed_and_a_lone_surrogate_written_escaped(tmp_path):
    register_secret(KEY)
    path = write_text_atomic(
        tmp_path / "report.md", f"key {json.dumps(KEY)}\nAuthorization: Bearer abc.def\nbad \ud800\n"
    )
    assert path.read_text(encoding="utf-8") == 'key "***"\nAuthorization: ***\nbad \\ud800\n'


def test_what_a_command_prints_or_logs_is_scrubbed(capsys):
    register_secret(KEY)
    logger = logging.getLogger("longform_eval.test.scrubbed_output")
    handler = logging.StreamHandler(sys.stderr)  # made before, as huggingface_hub's: it holds the unwrapped stream
    logger.addHandler(handler)
    try:
        with scrubbed_output():
            print(f"printed {KEY} and \ud800")
            logger.warning("logged %s", SPELLINGS[3])
            print(f"warning: {SPELLINGS[1]}", file=sys.stderr)  # as `warnings` shows a warning
    finally:
        logger.removeHandler(handler)
    out, err = capsys.readouterr()
    assert out == "printed *** and \\ud800\n"
    assert "logged ***" in err and "warning: ***" in err and not any(s in out + err for s in SPELLINGS)
    assert not isinstance(sys.stdout, ScrubbedStream) and not isinstance(sys.stderr, ScrubbedStream)  # put back
    assert logging.getLogRecordFactory() is logging.LogRecord


def test_the_token_a_hub_request_carries_is_registered_before_it_is_sent():
    token = "hf_RegisteredByTheHook77"
    assert scrub(f"rejected {token}") == f"rejected {token}"
    registers_token(httpx2.Request("GET", "http://hub/api/whoami-v2", headers={"Authorization": f"Bearer {token}"}))
    assert scrub(f"rejected {token}") == "rejected ***"


def test_a_console_that_is_not_utf8_shows_what_it_cannot_encode_escaped():
    console = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    ScrubbedStream(console).write("caf\u00e9 \ud800\n")
    console.flush()
    assert console.buffer.getvalue() == b"caf\\xe9 \\ud800\n"


def test_a_file_keeps_a_link_s_query_a_message_masks_it():
    """A model's answer may rightly hold a link with a query: records keep it; a printed message masks it."""
    answer = "See https://example.com/search?q=otters&page=2 for more."
    assert secret_values.scrubbed({"response": answer}) == {"response": answer}
    assert "q=otters" not in secret_values.scrub(answer)
    secret_values.register_secret("sk-a-registered-key-123")
    leaked = "https://example.com/?key=sk-a-registered-key-123 and Authorization: Bearer anything-at-all"
    assert "sk-a-registered-key-123" not in secret_values.scrubbed(leaked)
    assert "anything-at-all" not in secret_values.scrubbed(leaked)
