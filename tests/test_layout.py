"""The package's shape: no import cycle anywhere in it, no module over MAX_LINES lines.

Imports are read from the source (every `import` and `from ... import`, at module level, inside a function or under
`if TYPE_CHECKING:`), so that a cycle hidden behind a late or a typing-only import is found too. Importing
`a.b.c` runs `a/__init__` and `a/b/__init__` first: those count as imported, except the importer's own packages,
which Python has already started.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
NAMESPACE = "longform_eval"
# dotted name below the namespace -> folder ("" is the root package, `longform_eval/` itself)
PACKAGE_DIRS = {"": "longform_eval", "dataset_builder": "dataset_builder", "metric": "metric", "inference": "inference"}
PACKAGE_DIRS |= {"spaces": "spaces", "cards": "cards"}
MAX_LINES = 300


@functools.cache
def modules() -> dict[str, Path]:
    """Every module of the distribution by dotted name (a package by the name of its `__init__`); walked once."""
    found = {}
    for name, folder in PACKAGE_DIRS.items():
        for path in sorted((REPO / folder).rglob("*.py")):
            parts = [NAMESPACE, *([name] if name else []), *path.relative_to(REPO / folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def import_nodes(tree: ast.AST):
    return (node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom))


def imported_names(module: str, path: Path) -> set[str]:
    """Dotted names this module imports, relative imports resolved."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names = set()
    for node in import_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
            continue
        base = package.split(".")
        base = base[: len(base) - (node.level - 1)] if node.level else []
        target = ".".join([*base, *([node.module] if node.module else [])])
        names.add(target)
        names.update(f"{target}.{alias.name}" for alias in node.names)
    return names


@functools.cache
def import_graph() -> dict[str, frozenset[str]]:
    """Module -> the modules of the distribution it imports; parsed once per test session."""
    known = modules()
    graph = {}
    for module, path in known.items():
        own_packages = {module.rsplit(".", k)[0] for k in range(1, module.count(".") + 1)}
        edges = set()
        for name in imported_names(module, path):
            parts = name.split(".")
            for end in range(1, len(parts) + 1):
                prefix = ".".join(parts[:end])
                if prefix in known and prefix not in own_packages and prefix != module:
                    edges.add(prefix)
        graph[module] = frozenset(edges)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_anywhere_in_the_package():
    found = cycles(import_graph())
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_cycle_finder_finds_a_cycle_hidden_behind_a_late_import():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_no_module_is_over_the_line_limit(capsys):
    sizes = {module: len(path.read_text(encoding="utf-8").splitlines()) for module, path in modules().items()}
    largest = max(sizes, key=sizes.get)
    with capsys.disabled():
        print(f"\nlargest module: {largest} ({sizes[largest]} lines; limit {MAX_LINES})")
    over = {module: lines for module, lines in sizes.items() if lines > MAX_LINES}
    assert not over, f"modules over {MAX_LINES} lines: {over}"


def test_setup_finds_every_package_of_every_folder():
    """setup.py finds the packages (none is listed by hand): every folder with an `__init__.py`, named as imported."""
    spec = importlib.util.spec_from_file_location("setup_under_test", REPO / "setup.py")
    setup_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(setup_module)  # setup() itself runs only as __main__
    packages = {module for module, path in modules().items() if path.name == "__init__.py"}
    assert set(setup_module.mapped_packages()) == packages


@pytest.mark.parametrize("script", sorted(p.name for p in (REPO / "bench").glob("*.py")))
def test_every_name_a_bench_script_imports_from_the_package_exists(script):
    """A module moved inside the package must take the benchmarks with it (they are not run by the tests)."""
    missing = []
    for node in ast.walk(ast.parse((REPO / "bench" / script).read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(NAMESPACE):
            module = importlib.import_module(node.module)
            missing += [
                f"{node.module}.{alias.name}"
                for alias in node.names
                if not hasattr(module, alias.name) and not is_module(f"{node.module}.{alias.name}")
            ]
    assert not missing, f"bench/{script} imports names that do not exist: {missing}"


def is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # the parent is a module, not a package
        return False


# ----- packages ---------------------------------------------------------------------------------------------------
def package_of(module: str) -> str:
    """A module's package is its dotted parent; a package's `__init__` belongs to the package itself."""
    return module if modules()[module].name == "__init__.py" else module.rpartition(".")[0]


def package_imports() -> dict[tuple[str, str], set[str]]:
    """(importing package, imported package) -> the imports behind that edge, as `module -> module`.

    `__main__` modules are entry scripts (`python -m ...`): nothing imports them, so they close no loop; they are left
    out, as they may import any layer to start it.
    """
    edges: dict[tuple[str, str], set[str]] = {}
    for module, targets in import_graph().items():
        if module.endswith(".__main__"):
            continue
        for target in targets:
            source, sink = package_of(module), package_of(target)
            if source != sink:
                edges.setdefault((source, sink), set()).add(f"{module} -> {target}")
    return edges


def test_no_cycle_between_packages():
    """A package importing its own subpackage while that subpackage imports the package's modules is a cycle too."""
    edges = package_imports()
    graph = {package: set() for pair in edges for package in pair}
    for source, sink in edges:
        graph[source].add(sink)
    found = cycles(graph)
    shown = [
        " <-> ".join(c)
        + ": "
        + "; ".join(sorted(i for (s, t), imports in edges.items() if s in c and t in c for i in imports))
        for c in found
    ]
    assert not found, "package cycles:\n" + "\n".join(shown)


def imports_from(package: str, forbidden: tuple[str, ...]) -> list[str]:
    """The imports of `package` (and its subpackages) of anything in `forbidden` (packages, with their subpackages)."""
    inside = (package, f"{package}.")
    return sorted(
        f"{module} -> {target}"
        for module, targets in import_graph().items()
        if module.startswith(inside) or module == package
        for target in targets
        if any(target == name or target.startswith(f"{name}.") for name in forbidden)
    )


def ns(*names: str) -> tuple[str, ...]:
    return tuple(f"{NAMESPACE}.{name}" for name in names)


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [
        ("metric", ns("dataset_builder", "inference", "spaces")),
        ("common", ns("dataset_builder", "metric", "inference", "spaces", "cards", "registry")),
        ("registry", ns("dataset_builder", "metric", "inference", "spaces", "cards")),  # common: its error base
        ("inference.benchmarks", ns("inference.report", "inference.runner", "inference.cli", "inference.hub")),
        ("inference.benchmarks", ns("inference.api")),
        ("dataset_builder", ns("metric", "inference", "spaces")),
        ("inference", ns("spaces")),
        ("inference.runner", ns("inference.report", "inference.cli", "inference.api", "inference.hub")),
    ],
)
def test_lower_layers_import_nothing_of_the_layers_above(package, forbidden):
    """`metric` is pure scoring; `common` and `registry` are below every layer (the registry names its parts by
    "module:attr" strings, which no import reads; of `common` it takes the errors' base class alone); the benchmark
    core knows nothing of report, runner, CLI or Hub."""
    found = imports_from(f"{NAMESPACE}.{package}", forbidden)
    assert not found, f"{package} imports {', '.join(forbidden)}:\n" + "\n".join(found)


def test_the_package_graph_holds_the_edges_the_layers_rest_on():
    """The checks above would pass on an empty graph: the edges every layer has must be there."""
    edges = package_imports()
    for source, sink in [
        ("inference.runner", "inference.benchmarks"),
        ("inference.report", "inference.benchmarks"),
        ("inference.api", "inference.runner"),
        ("inference.cli", "inference.api"),
        ("dataset_builder", "common"),
        ("inference.benchmarks", "metric.uncertainty"),
    ]:
        assert (f"{NAMESPACE}.{source}", f"{NAMESPACE}.{sink}") in edges, f"{source} -> {sink} not seen"
    assert imports_from(f"{NAMESPACE}.metric", ns("inference")) == []
    assert imports_from(f"{NAMESPACE}.spaces", ns("inference")), "spaces imports the runner: the finder must see it"


def test_the_package_graph_sees_a_subpackage_loop():
    """`package_of` puts `__init__` in its own package and a module in its parent's: a parent <-> child loop shows."""
    pairwise = f"{NAMESPACE}.inference.benchmarks.pairwise"
    assert package_of(pairwise) == pairwise and package_of(f"{pairwise}.calls") == pairwise
    assert package_of(f"{NAMESPACE}.inference.benchmarks.base") == f"{NAMESPACE}.inference.benchmarks"
    assert cycles({"p": {"p.sub"}, "p.sub": {"p"}}) == [["p", "p.sub"]]
