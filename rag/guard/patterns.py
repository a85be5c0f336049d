"""The scored injection patterns: each language's lexicon built into the same pattern shapes, plus the
shapes no language owns (fake role tags and delimiters, a forced JSON status, "starting with 'You are'").

Weights say how sure a match alone is: strong shapes (an override naming which instructions, a fake
`<system>` tag) flag on their own, weak ones (an "act as", a "SYSTEM:" line) need another cue or the
classifier to agree. Hits combine by noisy-or, so two weak cues together count as one strong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.guard.lexicon import LEXICONS

STRONG = 0.9
MEDIUM = 0.7
HALF = 0.5
WEAK = 0.4
FAINT = 0.25
# Between a verb and its object: a few words, never across a sentence end.
_GAP = r"[^.?!\n]{0,40}?"


@dataclass(frozen=True)
class PatternHit:
    label: str
    language: str  # "" for the shapes no language owns
    weight: float
    start: int
    end: int


@dataclass(frozen=True)
class _Pattern:
    label: str
    language: str
    weight: float
    regex: re.Pattern[str]


def _language_patterns() -> list[_Pattern]:
    built: list[_Pattern] = []
    for language, words in LEXICONS.items():
        shapes = (
            (
                "override",
                STRONG,
                rf"\b({words['override_verbs']})\b{_GAP}\b({words['override_objects']})",
            ),
            (
                "override",
                WEAK,
                rf"\b({words['override_verbs']})\b{_GAP}\b({words['override_weak']})\b",
            ),
            # The object first: "die obigen Ausführungen ignorieren" (German's infinitive order).
            (
                "override",
                MEDIUM,
                rf"\b({words['override_objects']})\b{_GAP}\b({words['override_verbs']})\b",
            ),
            ("override", STRONG, rf"\b({words['disobey']})"),
            # "Ignore the documents": a user may mean a product's documents, so only half a cue.
            (
                "override",
                HALF,
                rf"\b({words['override_verbs']})\b{_GAP}\b({words['context_objects']})\b",
            ),
            ("context_override", 0.45, rf"\b({words['own_knowledge']})\b"),
            ("prompt_extraction", 0.8, rf"\b({words['ask_prompt']})\b"),
            (
                "prompt_extraction",
                STRONG,
                rf"\b({words['extract_verbs']})\b{_GAP}\b({words['extract_objects']})",
            ),
            ("role_play", 0.8, rf"\b({words['persona']})"),
            (
                "prompt_extraction",
                MEDIUM,
                rf"\b({words['extract_verbs']})\b{_GAP}\b({words['extract_more']})\b",
            ),
            ("role_play", FAINT, rf"\b({words['persona_weak']})"),
            ("role_play", MEDIUM, rf"\b({words['persona_more']})\b"),
            (
                "policy_disabled",
                MEDIUM,
                rf"\b({words['policy_nouns']})\b{_GAP}\b({words['policy_off']})",
            ),
            ("fake_system", MEDIUM, rf"\b({words['new_orders']})"),
            # "Your earlier directions no longer matter": the instructions declared void, not ignored.
            (
                "override",
                0.8,
                rf"\b({words['void_subject']})\b{_GAP}\b({words['void_state']})",
            ),
            # "Say you found it in the documents": the answer's status demanded in words.
            ("format_hijack", MEDIUM, rf"\b({words['status_words']})"),
            # "an AI that never refuses", "speak as my late grandma": a persona without "you are".
            ("role_play", 0.8, rf"\b({words['persona_unbound']})"),
        )
        built.extend(
            _Pattern(label, language, weight, re.compile(regex)) for label, weight, regex in shapes
        )
    return built


_SHARED: tuple[tuple[str, float, str], ...] = (
    (
        "fake_system",
        STRONG,
        r"</?\s*(system|assistant|user|question|context|instructions?|prompt|document|sys|admin|human|ai)\s*>",
    ),
    ("fake_system", STRONG, r"\[/?(inst|sys|system)\]|<<\s*/?sys\s*>>|<\|[a-z_]{2,20}\|>"),
    (
        "fake_system",
        0.8,
        r"(^|\n)\s*#+\s*(system|assistant|instructions?|new instructions?|admin|developer|systeme|sistema)\b",
    ),
    (
        "fake_system",
        0.8,
        r"\b(begin|end|start) (of )?(the )?(system|admin|developer) (prompt|message|instructions?)",
    ),
    (
        "fake_system",
        WEAK,
        r"(^|\n|[.!?] )\s*(system|assistant|admin(istrator)?|developer|root|sysadmin|systeme|sistema|systemnachricht)"
        r"\s*(:|>)",
    ),
    (
        "format_hijack",
        STRONG,
        r"[\"']?status[\"']?\s*[:=]\s*[\"']?(found_in_context|not_found_in_context|out_of_scope|small_talk"
        r"|human_escalation|injection_attempt|answered|ok)\b",
    ),
    (
        "format_hijack",
        0.8,
        r"[\"'](confidence(_score)?|context_usage|redirection_intent|display_answer)[\"']\s*:",
    ),
    (
        "format_hijack",
        MEDIUM,
        r"\b(set|mark|put|force|change|return|report)\s+(the\s+|your\s+)?(status|confidence)( field| score)?"
        r"\s+(to|as|at|=)\b",
    ),
    (
        "prompt_extraction",
        STRONG,
        r"\b(starting|beginning|that (starts|begins)|commencant|beginnend|empezando|comenzando|iniziando"
        r"|comecando)\s+(with|par|mit|con|por|da|com)\W{0,3}(you are|tu es|du bist|eres|sei|voce e|vous etes"
        r"|sie sind)",
    ),
    (
        "encoded_payload",
        0.8,
        r"\b(decode|decodifica|decodez?|dekodier\w*|descodifica|entschlussel\w*)\b[^.?!\n]{0,60}\b(follow|execute"
        r"|do|obey|run|apply|suis|suivez|executez?|befolge|ausfuhren|sigue|ejecuta|segui|esegui|siga)\b",
    ),
)


# Shapes of the public injection sets (deepset's family): a stop signal before a new order, a new task
# announced, a fake "Context: … Question: …" frame, few-shot "Input:/Output:" pairs steering the answer,
# a run of escaped line breaks pushing the real prompt out of view, and a persona handed a name.
_STOP = r"(attention|achtung|atencion|attenzione|atencao|stop|stopp|halt|alto)"
_ORDER = (
    r"(write|say|print|answer|tell|reply|schreib\w*|sag\w*|antworte\w*|gib|ecris|dis|reponds"
    r"|escribe|di|responde|scrivi|dimmi|rispondi|escreva|diga|responda)"
)
_TASK = (
    r"(task|test|challenge|assignment|aufgabe|herausforderung|tache|defi|mission|tarea|desafio"
    r"|reto|compito|sfida|tarefa)"
)
_FAMILIES: tuple[tuple[str, float, str], ...] = (
    ("override", MEDIUM, rf"\b{_STOP}\s*[-!:.]+\s*(\w+\s*[-!:.]+\s*)?{_ORDER}\b"),
    ("override", HALF, rf"\b{_STOP}\s*[-!]+\s*{_STOP}\b"),
    (
        "fake_system",
        HALF,
        r"\b(here (comes|is)|now (comes|for)|hier (kommt|ist)|voici|aqui (esta|vem)|ecco|aqui va)"
        rf" (the |die |la |el |a |il |your |deine )?(next|new|second|third|real|nachste|neue|zweite"
        rf"|prochaine|nouvelle|deuxieme|siguiente|nueva|segunda|prossim[oa]|nuov[oa]|second[oa]"
        rf"|proxima|nova) {_TASK}",
    ),
    (
        "fake_system",
        WEAK,
        rf"\b(neue|new|nouvelle|nueva|nuova|nova|additional|extra|zusatzliche) {_TASK}\w* (fur"
        r" dich|for you|pour toi|para ti|per te|para voce)",
    ),
    (
        "fake_system",
        MEDIUM,
        r"(^|\n|[.!?] )(additional|extra|further|important|zusatzliche|weitere|wichtige|nouvelle"
        r"|autre|nueva|otra|nuova|altra|nova|outra) (instructions?|anweisung(en)?|instruccion(es)?"
        r"|istruzion[ei]|instrucao|instrucoes|consignes?)\s*[-:]",
    ),
    (
        "fake_system",
        MEDIUM,
        r"\b(context|kontext|contexte|contexto|contesto)\s*:\s*[\[{(\"']?[^\n]{0,400}\b(question"
        r"|frage|pregunta|domanda|pergunta)\s*:",
    ),
    (
        "format_hijack",
        HALF,
        r"\b(input|eingabe|entree|entrada|ingresso)\s*:[^\n]{0,80}\b(output|ausgabe|sortie|salida"
        r"|uscita|saida)\s*:[^\n]{0,80}\b(input|eingabe|entree|entrada|ingresso)\s*:",
    ),
    ("fake_system", HALF, r"(\\ ?n\s*){4,}"),
    (
        "role_play",
        WEAK,
        r"^(you are|you'?re|du bist|tu es|vous etes|eres|sei|voce e|tu es) (the |a |an |der |die"
        r" |das |le |la |l'|el |un |una |il |lo |o |a )?[^.?!,\n]{1,40}[.,!] [^\n]{0,80}\b(what do you"
        r" think|your opinion|wie findest du|was (haltst|denkst) du|que penses-tu|qu'en penses-tu|que"
        r" piensas|que opinas|cosa ne pensi|che ne pensi|o que (voce )?acha|tell me what you"
        r"|wer ist|who is|who are)",
    ),
)

_PATTERNS: tuple[_Pattern, ...] = (
    *_language_patterns(),
    *(_Pattern(label, "", weight, re.compile(regex)) for label, weight, regex in _SHARED),
    *(_Pattern(label, "", weight, re.compile(regex)) for label, weight, regex in _FAMILIES),
)


def patterns_match(folded: str) -> list[PatternHit]:
    """Every pattern that matches the folded text (its first match), strongest first."""
    hits = []
    for pattern in _PATTERNS:
        if match := pattern.regex.search(folded):
            hits.append(PatternHit(pattern.label, pattern.language, pattern.weight, *match.span()))
    hits.sort(key=lambda hit: hit.weight, reverse=True)
    return hits


def patterns_score(hits: list[PatternHit]) -> float:
    """Noisy-or of the hits' weights, one per label (the same cue matched twice is still one cue)."""
    best: dict[str, float] = {}
    for hit in hits:
        best[hit.label] = max(best.get(hit.label, 0.0), hit.weight)
    miss = 1.0
    for weight in best.values():
        miss *= 1.0 - weight
    return 1.0 - miss
