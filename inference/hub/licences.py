"""Which datasets a release may publish: the licence of each, and why a restricted one is refused.

A dataset is published by default only under an open licence. The others (no licence upstream, research-only
terms) are refused unless asked for, and then only as private repos. The words of a refusal are the `## License`
section of the dataset's own card template, so the card and the refusal never disagree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

CARDS_PACKAGE = "longform_eval.cards"
OPEN_LICENCES = frozenset({"mit", "apache-2.0", "bsd-3-clause", "cc0-1.0", "cc-by-4.0", "cc-by-sa-4.0"})
# The `license:` each builder writes into its card (checked against the built card before upload).
DATASET_LICENCES = {
    "hellobench": "mit",
    "longbench_write": "apache-2.0",
    "longgenbench": "other",
    "tencentllmeval": "other",
}


@dataclass(frozen=True)
class Licence:
    """A dataset's licence id (the card's `license:`) and whether it lets anyone redistribute the data."""

    dataset: str
    licence_id: str | None

    @property
    def is_open(self) -> bool:
        return self.licence_id in OPEN_LICENCES

    def terms(self) -> str:
        """The card's licence section as one line, or why the licence is unknown."""
        if self.licence_id is None:
            return "its licence is not known to this release (not in DATASET_LICENCES)"
        section = card_licence_section(self.dataset)
        return f"licence {self.licence_id!r}" + (f": {section}" if section else "")


def licence_of(dataset: str) -> Licence:
    return Licence(dataset, DATASET_LICENCES.get(dataset))


def card_licence_section(dataset: str) -> str:
    """The `## License` section of `cards/<dataset>.md.j2` as one line of plain text ('' if there is none)."""
    try:
        template = resources.files(CARDS_PACKAGE).joinpath(f"{dataset}.md.j2").read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError):
        return ""
    match = re.search(r"^## License\s*\n(.*?)(?=^## |\Z)", template, flags=re.MULTILINE | re.DOTALL)
    if not match:
        return ""
    lines = [line for line in match.group(1).splitlines() if not line.lstrip().startswith("{%")]
    return " ".join(" ".join(lines).replace("**", "").split())


def check_built_licence(dataset: str, card_licence: str | None) -> None:
    """Raise ValueError if the built card's `license:` is not the one the release rules were written for."""
    expected = DATASET_LICENCES.get(dataset)
    if card_licence != expected:
        raise ValueError(
            f"{dataset}: the built card says license {card_licence!r}, the release rules say {expected!r}; "
            "update DATASET_LICENCES in longform_eval/inference/hub/licences.py"
        )
