"""Package discovery for the folder-per-package layout: every package below each folder that pyproject.toml's
`[tool.setuptools.package-dir]` maps into `longform_eval` (setuptools' own discovery does not follow such a mapping).
All other metadata is in pyproject.toml."""

from pathlib import Path

from setuptools import find_packages, setup

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent


def mapped_packages() -> list[str]:
    package_dir = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    found = []
    for name, folder in package_dir["package-dir"].items():
        found.append(name)
        found.extend(f"{name}.{sub}" for sub in find_packages(str(ROOT / folder)))
    return sorted(set(found))


if __name__ == "__main__":
    setup(packages=mapped_packages())
