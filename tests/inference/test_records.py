from __future__ import annotations

from longform_eval.inference.runner.records import RecordLog


def test_torn_last_line_is_ignored_then_dropped_before_appending(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"k": "a", "v": 1}\n{"k": "b", "v": 2}\n{"k": "c", "v"')
    log = RecordLog(path, ("k",))
    assert [r["k"] for r in log.records()] == ["a", "b"]
    assert log.done_keys() == {("a",), ("b",)}
    log.append({"k": "c", "v": 3})
    log.close()
    assert path.read_text().splitlines() == ['{"k": "a", "v": 1}', '{"k": "b", "v": 2}', '{"k": "c", "v": 3}']


def test_latest_record_per_key(tmp_path):
    log = RecordLog(tmp_path / "log.jsonl", ("k",))
    for value in (1, 2):
        log.append({"k": "x", "v": value})
    log.close()
    assert log.latest() == {("x",): {"k": "x", "v": 2}}
