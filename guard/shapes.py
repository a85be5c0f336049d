"""The injection shapes no single language owns, as (label, weight, regex over folded text): fake role
tags and delimiters, a forced JSON status, the public sets' families (deepset's), and the spoken
requests that read the same in six languages (a status set in words, a persona for good, the
restrictions "imposed on you", a hypothetical without rules, words asked for verbatim).

Weights say how sure a match alone is (patterns.py combines them by noisy-or).
"""

from __future__ import annotations

STRONG = 0.9
MEDIUM = 0.7
HALF = 0.5
WEAK = 0.4
FAINT = 0.25

SHARED_SHAPES: tuple[tuple[str, float, str], ...] = (
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
PUBLIC_SET_SHAPES: tuple[tuple[str, float, str], ...] = (
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


# Spoken requests in six languages. Values of the answer contract's status set in words ("put the
# status to answered"): the value names are Parley's, so a user asking what a status means is spared
# by the verb the shape needs.
_SETTERS = (
    r"(set|put|mark|force|change|make|return|mettre|mets|mettez|passe[rz]?|poner|pon|ponga|cambia"
    r"|imposta(re)?|metti|coloca(r)?|coloque|mude|setze?n?|stelle?n?|markiere\w*)"
)
_STATUS_VALUES = (
    r"(found_in_context|answered|in_scope|not_found_in_context|out_of_scope|small_talk)"
)
_NEVER_AGAIN = (
    r"(never again|no longer|plus jamais|nie wieder|nie mehr|nunca mas|mai piu|nunca mais)"
)
_ASSISTANT = r"(support[- ])?(assistant|assistent|asistente|assistente|bot|chatbot)"
_VERBATIM = (
    r"(word for word|verbatim|mot pour mot|mot a mot|wort fur wort|wortwortlich|palabra por palabra"
    r"|al pie de la letra|parola per parola|testualmente|palavra por palavra)"
)
_OPERATOR = (
    r"(the operator|the developer|your (creator|developer|operator)|l'operateur|le developpeur"
    r"|der betreiber|der entwickler|el operador|el desarrollador|l'operatore|lo sviluppatore"
    r"|o operador|o desenvolvedor)"
)
SPOKEN_SHAPES: tuple[tuple[str, float, str], ...] = (
    (
        "format_hijack",
        MEDIUM,
        rf"\b{_SETTERS}\b[^.?!\n]{{0,40}}\b(status|statut|estado|stato|state)\b[^.?!\n]{{0,20}}"
        rf"\b{_STATUS_VALUES}\b",
    ),
    (
        "role_play",
        MEDIUM,
        rf"\b{_NEVER_AGAIN} (en tant qu'|comme |as |als |como |come )?(l'|the |a |an"
        rf" |der |die |el |il |o |un )?{_ASSISTANT}\b",
    ),
    (
        "role_play",
        MEDIUM,
        r"\b(answer|reply|respond|speak|talk)\w* (only |just )?(as|in the role of) (the|a) character"
        r"|dans la peau (de|du|d')|in der rolle (von|des|der)|en el papel de|nei panni di|no papel de",
    ),
    (
        "role_play",
        MEDIUM,
        r"\bif you (had|did not have|didn'?t have) (no|any) (\w+ )?(rules|restrictions|filters|limits"
        r"|guidelines)|\bsi tu n'avais (aucune|pas de) (\w+ )?(regle|restriction|limite|filtre)"
        r"|\bwenn du keine (\w+ )?(regeln|einschrankungen|filter|grenzen|vorgaben) (hattest|hast)"
        r"|\bsi no tuvieras (ninguna |ningun )?(\w+ )?(norma|regla|restriccion|filtro|limite)"
        r"|\bse non avessi (alcuna |nessuna )?(\w+ )?(regol|restrizion|filtr|limit)"
        r"|\bse (voce )?nao tivesse (nenhuma |nenhum )?(\w+ )?(regra|restric|filtro|limite)",
    ),
    (
        "override",
        STRONG,
        r"\b(restrictions|rules|limits|constraints|guidelines) (that )?(were |have been )?(imposed"
        r"|placed|put) on you|\b(restrictions|regles|consignes|limites|contraintes) qui (t'|vous) ont"
        r" ete (imposees|donnees|fixees)|(vorgaben|beschrankungen|einschrankungen|regeln|anweisungen),?"
        r" die man (dir|ihnen) (gegeben|auferlegt|gesetzt) hat|\b(dir|ihnen) auferlegten"
        r" (beschrankungen|einschrankungen|regeln|vorgaben)|\b(restricciones|reglas|normas|limites"
        r"|instrucciones) que (te|le) (han|hayan) (impuesto|dado|puesto)|\b(restrizioni|regole|limiti"
        r"|istruzioni) che ti (sono state|hanno) (imposte|date|imposto|dato)|\b(restricoes|regras"
        r"|normas|limites|instrucoes) que (lhe|te) (foram|tinham sido) (impostas|dadas)",
    ),
    ("prompt_extraction", WEAK, rf"\b{_VERBATIM}\b"),
    (
        "prompt_extraction",
        HALF,
        rf"\b{_OPERATOR} (\w+ ){{0,2}}(wrote|told|gave|said to|t'a|vous a|hat dir|hat ihnen|te|ti"
        r" ha|lhe)\b|\byou were (started|launched|initiali[sz]ed|booted|configured|set up) with\b",
    ),
)
