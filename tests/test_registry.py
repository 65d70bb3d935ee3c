"""The registry: this package's own declarations are its entry points, found also when the metadata is stale;
another package's clashing or broken declaration is a warning, never a failure of every command."""

from __future__ import annotations

import warnings
from importlib.metadata import distribution

import pytest

from longform_eval.registry import BACKEND_GROUP, BENCHMARK_GROUP, builtin, discovery
from longform_eval.registry.declarations import BackendDeclaration


def own_entry_points(group: str) -> dict[str, str]:
    return {e.name: e.value for e in distribution("longform-eval").entry_points if e.group == group}


@pytest.mark.parametrize(
    ("group", "declared"),
    [(BENCHMARK_GROUP, builtin.BENCHMARKS_DECLARED), (BACKEND_GROUP, builtin.BACKENDS_DECLARED)],
)
def test_pyproject_declares_exactly_the_builtin_declarations(group, declared):
    found = own_entry_points(group)
    assert set(found) == {d.name for d in declared}
    by_name = {d.name: d for d in declared}
    for name, value in found.items():
        module, _, attribute = value.partition(":")
        assert module == builtin.__name__ and getattr(builtin, attribute) is by_name[name]


class FakeEntry:
    def __init__(self, name: str, value: object, reference: str = "fake.module:THING"):
        self.name, self.value, self.loaded = name, reference, value

    def load(self) -> object:
        if isinstance(self.loaded, Exception):
            raise self.loaded
        return self.loaded


def declared_with(monkeypatch, entries: list[FakeEntry]) -> dict[str, object]:
    monkeypatch.setattr(discovery, "entry_points", lambda group: entries)
    return discovery.declared(BACKEND_GROUP, BackendDeclaration, builtin.BACKENDS_DECLARED)


def test_a_stale_install_without_entry_points_still_finds_the_builtins(monkeypatch):
    assert list(declared_with(monkeypatch, [])) == sorted(d.name for d in builtin.BACKENDS_DECLARED)


def test_a_plugin_declaring_a_taken_name_is_a_warning_and_the_first_declaration_stays(monkeypatch):
    clash = BackendDeclaration(name="replay", backend="other.module:Backend")
    with pytest.warns(UserWarning, match="'replay' is declared twice"):
        found = declared_with(monkeypatch, [FakeEntry("replay", clash)])
    assert found["replay"] is builtin.REPLAY


def test_a_broken_or_mistyped_plugin_is_a_warning(monkeypatch):
    entries = [FakeEntry("broken", ImportError("no module named x")), FakeEntry("typo", "not a declaration")]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = declared_with(monkeypatch, entries)
    assert "broken" not in found and "typo" not in found
    assert [str(w.message).split(" = ")[0] for w in caught] == [
        f"{BACKEND_GROUP} entry point broken",
        f"{BACKEND_GROUP} entry point typo",
    ]


def test_a_new_backend_from_an_entry_point_is_found_beside_the_builtins(monkeypatch):
    echo = BackendDeclaration(name="echo", backend="echo.module:Echo", requires=(("echo-dist", "1.0"),))
    found = declared_with(monkeypatch, [FakeEntry("echo", echo)])
    assert found["echo"] is echo and found["hf"] is builtin.HF
