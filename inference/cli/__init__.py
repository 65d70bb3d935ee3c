"""The `longform-eval` command line: argument parsing and the commands, a thin layer over the runner, the report
and the Hub tools."""

from .main import main, parser

__all__ = ["main", "parser"]
