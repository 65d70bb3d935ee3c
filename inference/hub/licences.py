"""Which datasets a release may publish: the licence of each, and why a restricted one is refused.

A dataset is published by default only under an open licence. The others (no licence upstream, research-only
terms) are refused unless asked for, and then only as private repos. The words of a refusal are the `## License`
section of the dataset's own card template, so the card and the refusal never disagree. Each licence is the one
its dataset's declaration names (`longform_eval.registry`), which the built card must repeat.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from longform_eval.registry import dataset_declarations

OPEN_LICENCES = frozenset({"mit", "apache-2.0", "bsd-3-clause", "cc0-1.0", "cc-by-4.0", "cc-by-sa-4.0"})


def dataset_licences() -> dict[str, str]:
    """The `license:` each declared dataset's card must say (checked against the built card before upload)."""
    return {name: declaration.licence for name, declaration in dataset_declarations().items()}


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
            return "its licence is not known to this release (no benchmark declares this dataset)"
        section = card_licence_section(self.dataset)
        return f"licence {self.licence_id!r}" + (f": {section}" if section else "")


def licence_of(dataset: str) -> Licence:
    return Licence(dataset, dataset_licences().get(dataset))


def card_licence_section(dataset: str) -> str:
    """The `## License` section of the dataset's declared card template as one line of plain text ('' if there is
    none, or no such dataset)."""
    declaration = dataset_declarations().get(dataset)
    try:
        template = declaration.card_template() if declaration is not None else ""
    except (FileNotFoundError, ModuleNotFoundError):
        return ""
    match = re.search(r"^## License\s*\n(.*?)(?=^## |\Z)", template, flags=re.MULTILINE | re.DOTALL)
    if not match:
        return ""
    lines = [line for line in match.group(1).splitlines() if not line.lstrip().startswith("{%")]
    return " ".join(" ".join(lines).replace("**", "").split())


def check_built_licence(dataset: str, card_licence: str | None) -> None:
    """Raise ValueError if the built card's `license:` is not the one its dataset declares."""
    expected = dataset_licences().get(dataset)
    if card_licence != expected:
        raise ValueError(
            f"{dataset}: the built card says license {card_licence!r}, its declaration says {expected!r}; "
            "make the builder's card and the dataset's declaration (`licence`) agree"
        )
