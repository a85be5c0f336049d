"""Plain data the prompt engine works on: bot settings, chunks, history turns and the rendered result.

Nothing here touches the database; the answer pipeline gets a BotSettings from
prompts.selectors.bot_settings_get and passes it back to prompt_build.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol

from bots.texts import BUILT_IN_TEXTS


class ChunkLike(Protocol):
    """What the prompt shows of a chunk. The answer pipeline passes retrieval's chunks as they are
    (this app sits beside `rag` and does not import it); `Chunk` is the engine's own, for samples
    and the admin's preview."""

    @property
    def id(self) -> str: ...

    @property
    def text(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def source(self) -> str: ...

    @property
    def page(self) -> int | None: ...


@dataclass(frozen=True)
class Chunk:
    id: str
    text: str
    title: str = ""
    source: str = ""
    page: int | None = None

    @classmethod
    def coerce(cls, value: ChunkLike | Mapping[str, Any]) -> ChunkLike:
        """A mapping (the admin's preview form) as a Chunk; any ChunkLike as it is."""
        if not isinstance(value, Mapping):
            return value
        page = value.get("page")
        return cls(
            id=str(value["id"]),
            text=str(value.get("text", "")),
            title=str(value.get("title") or ""),
            source=str(value.get("source") or ""),
            page=int(page) if page is not None else None,
        )


@dataclass(frozen=True)
class HistoryTurn:
    role: Literal["user", "assistant"]
    content: str

    @classmethod
    def coerce(cls, value: HistoryTurn | Mapping[str, Any]) -> HistoryTurn:
        if isinstance(value, HistoryTurn):
            return value
        role = value.get("role")
        if role not in ("user", "assistant"):
            raise ValueError(f"a history turn's role is 'user' or 'assistant', not {role!r}")
        return cls(role=role, content=str(value.get("content", "")))


@dataclass(frozen=True)
class LexiconEntry:
    terms: tuple[str, ...]
    definition: str = ""


@dataclass(frozen=True)
class BusinessRules:
    """Section 2 of the prompt, as the admin filled it in."""

    name: str
    role: str = ""
    domain: str = ""
    target_audience: str = ""
    locale: str = "en"
    response_expectations: str = ""
    formality: str = "neutral"
    formatting_rules: str = ""
    vocabulary_constraints: str = ""
    regulatory_constraints: str = ""
    forbidden_statements: str = ""
    mandatory_mentions: str = ""
    specific_instructions: str = ""


@dataclass(frozen=True)
class BotTexts:
    """User-facing texts, already resolved for one locale."""

    refusal: str
    no_answer: str
    injection_refusal: str
    escalation: str
    escalation_unavailable: str


@dataclass(frozen=True)
class EscalationSettings:
    allowed: bool = False
    triggers: tuple[str, ...] = ()
    confidence_threshold: float = 0.0


@dataclass(frozen=True)
class LLMSettings:
    provider: str = "offline"
    model: str = ""
    temperature: float = 0.0
    max_output_tokens: int = 1024
    timeout_seconds: int = 30


@dataclass(frozen=True)
class RetrievalSettings:
    top_k: int = 6
    score_threshold: float = 0.0
    hybrid: bool = True


@dataclass(frozen=True)
class TemplateSource:
    """An active per-bot override (source and version number), or the default file when source is None."""

    source: str | None = None
    version: int | None = None

    @property
    def label(self) -> str:
        return f"v{self.version}" if self.version is not None else "default"


@dataclass(frozen=True)
class BotSettings:
    """Everything the answer pipeline needs to know about a bot, as plain data."""

    bot_id: str
    workspace_id: str
    rules: BusinessRules
    rag_strictness: Literal["strict", "relaxed"] = "strict"
    relaxation_statement: str = ""
    explainability: bool = False
    covered_topics: tuple[str, ...] = ()
    excluded_topics: tuple[str, ...] = ()
    lexicon: tuple[LexiconEntry, ...] = ()
    escalation: EscalationSettings = field(default_factory=EscalationSettings)
    llm: LLMSettings = field(default_factory=LLMSettings)
    retrieval: RetrievalSettings = field(default_factory=RetrievalSettings)
    texts_by_locale: Mapping[str, BotTexts] = field(default_factory=dict)
    answer_template: TemplateSource = field(default_factory=TemplateSource)
    condense_template: TemplateSource = field(default_factory=TemplateSource)
    # Injection-detector scores at or above this refuse the message (bots.Bot.injection_threshold).
    injection_threshold: float = 0.6
    # From this score up to the threshold a message is answered and recorded (bots.Bot.injection_watch).
    injection_watch: float = 0.3
    # Locales a turn may answer in (lower case; empty: the default locale and those with texts).
    answer_locales: tuple[str, ...] = ()
    # The offline provider's answer length, in sentences or table rows.
    answer_max_sentences: int = 3

    @property
    def redirection_intents(self) -> tuple[str, ...]:
        """Intents the bot declares; the pipeline keeps redirection_intent only when it is one of these."""
        return ("human_escalation",) if self.escalation.allowed else ()

    def texts(self, locale: str | None = None) -> BotTexts:
        """Texts for a locale: exact match, then its language (pt-BR → pt), then Parley's own texts in
        that language (bots.texts: a visitor reads "not found" in their language even when the bot has no
        text of its own in it), then the bot's default locale."""
        wanted = (locale or self.rules.locale).lower()
        for key in (wanted, wanted.split("-")[0]):
            if key in self.texts_by_locale:
                return self.texts_by_locale[key]
        built_in = BUILT_IN_TEXTS.get(wanted.split("-")[0])
        if built_in is not None and wanted.split("-")[0] != self.rules.locale.lower().split("-")[0]:
            return BotTexts(**built_in)
        for key in (self.rules.locale.lower(),):
            if key in self.texts_by_locale:
                return self.texts_by_locale[key]
        if not self.texts_by_locale:
            raise ValueError("these bot settings carry no user-facing texts")
        return next(iter(self.texts_by_locale.values()))

    def answer_locales_allowed(self) -> tuple[str, ...]:
        """The locales a turn may answer in, the default locale first: the bot's list, or when it sets
        none, every locale it has texts for and every language Parley has texts in (bots.texts)."""
        listed = self.answer_locales or tuple(
            dict.fromkeys((*self.texts_by_locale, *BUILT_IN_TEXTS))
        )
        default = self.rules.locale.lower()
        return (default, *(code for code in listed if code != default))

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class RenderedPrompt:
    """A rendered prompt: the chat messages to send, the full text, and which template produced it."""

    messages: list[dict[str, str]]
    text: str
    template: str
    sha256: str
