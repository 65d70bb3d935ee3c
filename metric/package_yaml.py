"""Settings and prompt files shipped inside a metric package, read into their typed models."""

from __future__ import annotations

from importlib import resources
from typing import TypeVar

import yaml
from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)


def read_package_yaml(package: str, name: str, model: type[M]) -> M:
    text = resources.files(package).joinpath(name).read_text(encoding="utf-8")
    return model.model_validate(yaml.safe_load(text))
