"""Pure scoring: judge prompts, verdict parsers and metrics. No model calls, no network."""

from .unscored import Unscored, is_unscored

__all__ = ["Unscored", "is_unscored"]
