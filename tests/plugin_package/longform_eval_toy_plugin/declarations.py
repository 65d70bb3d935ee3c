"""The plug-in's one declaration per benchmark and per backend (pyproject.toml's entry points name them)."""

from longform_eval.registry import BackendDeclaration, BenchmarkDeclaration, DatasetDeclaration

PACKAGE = "longform_eval_toy_plugin"

TOYPLUG = BenchmarkDeclaration(
    name="toyplug",
    plugin=f"{PACKAGE}.benchmark:ToyPlug",
    presentation=f"{PACKAGE}.presentation:ToyPlugSections",
    dataset=DatasetDeclaration(
        name="toyplug", builder=f"{PACKAGE}.builder:build", card=f"{PACKAGE}:cards/toyplug.md.j2", licence="cc0-1.0"
    ),
)
TOYECHO = BackendDeclaration(name="toyecho", backend=f"{PACKAGE}.backend:EchoBackend")
