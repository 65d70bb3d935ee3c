"""The Python API (docs/python-api.md): `run`, the stages `generate`, `judge` and `score`, `import_generations`,
`open_run`, `runs`, `samples`, `compare` and `leaderboard`.

Every setting is checked before any folder is touched; a refused one is a `ConfigError` whose `field` names it."""

from longform_eval.common.errors import ConfigError

from . import many
from .config_build import build_config
from .imports import import_generations
from .leaderboard import Leaderboard, leaderboard
from .result import RunResult
from .runs import Comparison, Comparisons, compare, open_run
from .settings import RunSettings
from .stages import generate, judge, run, score

# after `.runs` is imported: the package's `runs` is the function, not the submodule of that name
runs, samples = many.runs, many.samples

__all__ = [
    "Comparison",
    "Comparisons",
    "ConfigError",
    "Leaderboard",
    "RunResult",
    "RunSettings",
    "build_config",
    "compare",
    "generate",
    "import_generations",
    "judge",
    "leaderboard",
    "open_run",
    "run",
    "runs",
    "samples",
    "score",
]
