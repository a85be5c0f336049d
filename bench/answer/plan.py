"""Which questions each bench workspace is asked: its own set's (answerable) and other sets' (unanswerable),
in the workspace's language and in another, so that a bot declining whatever is in another language does
not pass."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from bench.answer.sets import AnswerSet, Half, Question, half_of

# workspace corpus -> (its answerable sets, the sets whose questions it cannot answer)
PLANS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "piaf-dev": (("piaf-dev",), ("spf-fr", "xquad-dev/en")),
    "xquad-dev": (("xquad-dev/en", "xquad-dev/de", "xquad-dev/es"), ("covid-faq-en", "piaf-dev")),
    "spf-fr": (("spf-fr",), ("piaf-dev", "covid-faq-en")),
    "covid-faq-en": (("covid-faq-en",), ("xquad-dev/en", "spf-fr")),
}


def corpus_of(set_name: str) -> str:
    return set_name.split("/")[0]


@dataclass
class WorkspacePlan:
    corpus: str
    workspace_id: str
    bot_id: str
    settings: Any  # prompts.engine.BotSettings
    scope: Any  # rag.retrieval.RetrievalScope
    set_ids: dict[str, str]  # product document id -> the set's document id
    sets: dict[str, AnswerSet] = field(default_factory=dict)

    def questions(
        self, *, half: Half, limit: int | None, seed: int = 0
    ) -> Iterator[tuple[str, list[Question], bool]]:
        """(set name, its questions of `half`, answerable) for each set this workspace is asked; at most
        `limit` answerable questions per set and half as many unanswerable ones, drawn with `seed`."""
        answerable, unanswerable = PLANS[self.corpus]
        for names, can in ((answerable, True), (unanswerable, False)):
            for name in names:
                questions = half_of(self.sets[name], half)
                if limit is not None:
                    random.Random(f"{seed}-{name}").shuffle(questions)
                    questions = questions[: limit if can else max(1, limit // 2)]
                yield name, questions, can
