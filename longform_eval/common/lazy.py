"""Re-exports imported on first use (PEP 562), so that importing a package does not import its heavy modules."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, module_of: Mapping[str, str], names: list[str]) -> tuple[Callable, Callable]:
    """`(__getattr__, __dir__)` for `package`: a name is looked up in `package.<module_of[name]>` when first used."""

    def __getattr__(name: str) -> Any:
        if name in module_of:
            return getattr(importlib.import_module(f"{package}.{module_of[name]}"), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted({*names, *module_of})

    return __getattr__, __dir__
