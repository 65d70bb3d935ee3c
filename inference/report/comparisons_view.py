"""The printed section of `longform-eval report` over several runs: each config's runs with their figure, interval,
rank and rank range, then the differences of the headline figure, ties marked as such (never as a ranking), and a
line on the other figures. The figures are `comparisons`' (comparisons.json, written only into `report --out DIR`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from longform_eval.common.plurals import counted

from ..progress import terminal_width
from ..runner.folder import run_labels
from .comparison_groups import comparisons_document
from .comparisons import FILE, compared_runs
from .comparisons_file import write_comparisons
from .sections.tables import NO_INTERVALS, fmt, fmt_interval, fmt_p, markdown_table
from .summary import wrapped

TIE = "tie (not distinguishable)"
SHOWN_PAIRS = 15  # the headline's differences printed as a table (6 runs); more are counted


def with_interval(value: float | None, low: float | None, high: float | None) -> str:
    """`48.55 [45.71, 51.40]`, or the figure alone when it has no interval."""
    bounds = NO_INTERVALS if low is None or high is None else {"low": low, "high": high}
    return fmt_interval(value, bounds)


def verdict(entry: dict[str, Any]) -> str:
    if entry["distinguishable"] is None and entry.get("reason"):
        return f"no interval ({entry['reason']}): not ranked"
    if entry["distinguishable"] is None:
        return "- (undefined on the shared units)"
    if not entry["distinguishable"]:
        return TIE
    return f"{entry['a'] if entry['difference'] > 0 else entry['b']} higher"


def rank_lines(ranks: dict[str, Any], names: dict[str, str]) -> list[str]:
    name, unit = ranks["figure"], ranks["unit"]
    rows = [
        (names.get(row["run"], row["run"]), fmt(row.get("shared_value")))
        + (("-", "-") if row["rank"] is None else (row["rank"], f"{row['best']}..{row['worst']}"))
        + (with_interval(row["value"], row["low"], row["high"]),)
        for row in ranks["runs"]
    ]
    shared = f"{name} on the shared {unit}s"
    return [
        *markdown_table(("run", shared, "rank", "rank range", f"own {name} [95% CI]"), rows),
        "",
        f"Ranks and rank ranges on {name} over the {counted(ranks['n_shared'], unit)} all "
        f"{counted(len(rows), 'run')} scored, the figure beside them; the last column is each run's own figure and "
        f"interval, over all its {unit}s.",
    ]


def difference_lines(entries: list[dict[str, Any]], names: dict[str, str]) -> list[str]:
    """The table of the headline's differences, up to `SHOWN_PAIRS` pairs; beyond, their counts (all are in
    comparisons.json and the leaderboard's files)."""
    if len(entries) > SHOWN_PAIRS:
        return [counts_line(entries, f"The {counted(len(entries), 'difference')} of the headline")]
    named = [e | {"a": names.get(e["a"], e["a"]), "b": names.get(e["b"], e["b"])} for e in entries]
    rows = [
        (e["a"], e["b"], with_interval(e["difference"], e["low"], e["high"]), fmt_p(e["p_value"]))
        + (e["n_paired"] if e["n_paired"] is not None else "unpaired", fmt(e["minimum_detectable"]), verdict(e))
        for e in named
    ]
    header = ("a", "b", "a - b [95% CI]", "p", "paired units", "detectable at 80% power", "verdict")
    return markdown_table(header, rows)


def others_line(entries: list[dict[str, Any]]) -> list[str]:
    if not entries:
        return []
    names = ", ".join(dict.fromkeys(e["figure"] for e in entries))
    return ["", counts_line(entries, f"Other figures ({names})")]


def counts_line(entries: list[dict[str, Any]], what: str) -> str:
    """`what`: how many differences are distinguishable, ties, without an interval or undefined."""
    ties = sum(1 for e in entries if e["distinguishable"] is False)
    apart = sum(1 for e in entries if e["distinguishable"])
    bare = sum(1 for e in entries if e["distinguishable"] is None and e.get("reason"))
    undefined = len(entries) - ties - apart - bare
    none = (f", {bare} without an interval" if bare else "") + (f", {undefined} undefined" if undefined else "")
    return f"{what}: {apart} differences distinguishable, {ties} ties{none}; each in {FILE}."


def section_lines(document: dict[str, Any], names: dict[str, str] | None = None) -> list[str]:
    """The section's lines; runs shown by `names` (their display labels) where given, else as the document has them."""
    names = names or {}
    lines = [
        "# Paired comparisons",
        "",
        "a - b on the units every run of its group scored (the rank ranges rest on the same units), with its "
        "paired 95% interval: a difference whose interval "
        f"holds 0 is a {TIE}, whatever the order of the two figures; one without an interval (one unit per "
        "stratum) is not ranked. Rank ranges (as Chatbot Arena shows): from 1 + the runs distinguishably above "
        "to the number of runs less those distinguishably below.",
    ]
    for config in document["configs"]:
        headline = config["rank_ranges"]["figure"]
        mine = [e for e in document["comparisons"] if e.get("group") == config.get("group")]
        mixed = [f"The runs were judged by {counted(len(config['judges']), 'judge')} ({', '.join(config['judges'])})."]
        lines += ["", f"## {config['benchmark']}: {headline}", "", *(mixed + [""] if len(config["judges"]) > 1 else [])]
        lines += [f"{config['prompts'][0].upper()}{config['prompts'][1:]}.", ""] if config.get("prompts") else []
        lines += [f"Separate from the first group: {config['separate']}.", ""] if config.get("separate") else []
        lines += [*rank_lines(config["rank_ranges"], names), ""]
        lines += difference_lines([e for e in mine if e["figure"] == headline], names)
        lines += others_line([e for e in mine if e["figure"] != headline])
    return lines


def print_comparison_view(folders: Sequence[Path], out: Path | None = None) -> None:
    """Print the section, for `longform-eval report`, and write comparisons.json into `out` (`--out DIR`); without
    `out` nothing is written, and one line says so. Nothing when no two given runs can be compared (`comparability`)."""
    names = {str(folder): run_labels(Path(folder))[0] for folder in folders}
    if out is not None:
        written = write_comparisons(folders, out)
        if written is not None:
            path, document = written
            print_wrapped(["", *section_lines(document, names), str(path)])
        return
    document = comparisons_document(compared_runs(folders))
    if document is not None:
        missing = f"{FILE} not written: give --out DIR to write it there (or `longform-eval leaderboard ... --out DIR`)"
        print_wrapped(["", *section_lines(document, names), missing])


def print_wrapped(lines: list[str]) -> None:
    """Prose wrapped to the terminal; a table row as it is (its cells are short: labels and figures)."""
    width = terminal_width()
    print("\n".join(part for line in lines for part in ([line] if line.startswith("|") else wrapped(line, width))))
