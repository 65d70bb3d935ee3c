"""Import released generations into a run folder, so `judge`, `score` and `report` work on them."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from longform_eval.dataset_builder.hellobench import TASKS

from .runner.run import Run, RunConfig


def import_hellobench_generations(model_dir: str | Path, out: str | Path, run_config: RunConfig) -> tuple[Run, int]:
    """Released `<task>_results.jsonl.gz` files (id, instruction, response) -> generations.jsonl.

    Ids not in the selected rows and repeated ids are skipped (the first one wins).
    """
    model_dir = Path(model_dir)
    run = Run(out, run_config)
    present = {key[0] for key in run.generations.done_keys()}
    imported = 0
    for task in TASKS:
        path = model_dir / f"{task}_results.jsonl.gz"
        if not path.is_file():
            path = path.with_suffix("")  # an uncompressed copy
        if not path.is_file():
            continue
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                record = json.loads(line)
                if record["id"] in run.benchmark.by_id and record["id"] not in present:
                    run.generations.append(
                        {
                            "sample_id": record["id"],
                            "model": f"imported:{model_dir.name}",
                            "prompt_hash": None,
                            "response": record["response"],
                            "finish_reason": None,
                            "truncated": False,
                            "prompt_tokens": None,
                            "completion_tokens": None,
                            "seconds": None,
                            "attempts": 0,
                        }
                    )
                    present.add(record["id"])
                    imported += 1
    run.generations.close()
    return run, imported
