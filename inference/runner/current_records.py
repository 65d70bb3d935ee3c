"""The records of a run's configuration, read from its logs: the current generations and judgements (those its model,
judge and settings made, on the generations as they are now), read again only when a log changed."""

from __future__ import annotations

from collections.abc import Callable

from ..benchmarks import strip_think
from .config import RunConfig
from .records import RecordLog
from .schema import GenerationRecord, JudgementRecord


class CurrentRecords:
    """What `Run` reads of its logs (`config`, `generations`, `judgements` and `memo` are set by `Run.__init__`)."""

    config: RunConfig
    generations: RecordLog
    judgements: RecordLog
    memo: dict[tuple, dict]

    def current_generations(self) -> dict[str, GenerationRecord]:
        """This model's responses with this generation config, by sample id (read again only when the log changed)."""
        model, hash_ = self.config.model_id, self.config.generation_hash
        return self.remembered(("generations", self.generations.signature(), model, hash_), self.read_generations)

    def remembered(self, key: tuple, read: Callable[[], dict]) -> dict:
        """`read()`, or what it gave last time for the same `key` (the log's signature and the settings it filters
        by): a reader asks for the current records several times (pending calls, responses, scores)."""
        if key not in self.memo:
            self.remember(key, read())
        return dict(self.memo[key])

    def remember(self, key: tuple, records: dict) -> None:
        """Keep `records` for `key`, in place of what was kept for the same log under another key."""
        self.memo = {key: records, **{k: v for k, v in self.memo.items() if k[0] != key[0]}}

    def read_generations(self, check_all: bool = False) -> dict[str, GenerationRecord]:
        """The current generations; `check_all`: every record typed on the way (a RecordError names the first that
        is not one, whoever made it)."""
        model, hash_ = self.config.model_id, self.config.generation_hash
        found = {}
        for number, record in self.generations.numbered():
            typed = self.generations.typed(GenerationRecord, number, record) if check_all else None  # fields first
            if record.get("model") == model and record.get("config_hash") == hash_:
                found[record["sample_id"]] = typed or self.generations.typed(GenerationRecord, number, record)
        return found

    def check_records(self) -> None:
        """Every record of the run's two logs is one of its type (a RecordError names the file, the line and the
        field of the first that is not), read once: the current ones are remembered for the readers that follow."""
        model, hash_ = self.config.model_id, self.config.generation_hash
        key = ("generations", self.generations.signature(), model, hash_)
        self.remember(key, self.read_generations(check_all=True))
        self.remember(self.judgements_key(), self.read_judgements(check_all=True))

    def responses(self) -> dict[str, tuple[str, bool]]:
        """The text judged and scored for each current generation, and whether <think> was stripped from it."""
        found = {}
        for sample_id, record in self.current_generations().items():
            found[sample_id] = strip_think(record.response) if self.config.strip_think else (record.response, False)
        return found

    def current_judgements(self) -> dict[str, JudgementRecord]:
        """This judge's verdicts with this judge config, on the generations as they are now, by judgement key."""
        return self.remembered(self.judgements_key(), self.read_judgements)

    def judgements_key(self) -> tuple:
        judge = self.config.judge.name if self.config.judge else None
        return ("judgements", self.judgements.signature(), self.generations.signature(), judge, self.config.judge_hash)

    def read_judgements(self, check_all: bool = False) -> dict[str, JudgementRecord]:
        """The current judgements; `check_all` as for `read_generations`."""
        made_by = (self.config.judge.name if self.config.judge else None, self.config.judge_hash)
        hashes = {sample_id: g.generation_hash for sample_id, g in self.current_generations().items()}
        found = {}
        for number, record in self.judgements.numbered():
            typed = self.judgements.typed(JudgementRecord, number, record) if check_all else None  # fields first
            if (record.get("judge"), record.get("config_hash")) != made_by:
                continue
            if hashes.get(str(record.get("sample_id"))) == record.get("generation_hash"):
                found[record["key"]] = typed or self.judgements.typed(JudgementRecord, number, record)
        return found
