"""The English words of an injection (folded: lower case, no accents); slots as in guard.lexicon."""

from __future__ import annotations

from guard.lexicon.slots import Lexicon

LEXICON: Lexicon = {
    "override_verbs": r"pay no attention to|take no notice of|don'?t pay attention to|ignore"
    r"|disregard|forget|override|bypass|skip|discard|abandon|neglect|set aside"
    r"|throw away|stop following|do not follow|don'?t follow|no longer follow|drop|put aside"
    r"|leave aside|overlook|look past|pass over|move past",
    "override_objects": r"(your|the) (current )?(role|persona|job|character|identity|purpose)|(all"
    r"|any|your|previous|prior|above|earlier|preceding|initial|original|system"
    r"|these|those|the above|the previous|the preceding|the prior|the earlier|the initial"
    r"|the original"
    r"|the system|my previous|all the|all of the|all your|all previous"
    r"|all prior) (\w+ )?(instructions?"
    r"|rules|prompts?|guidelines|directives|polic(y|ies)|constraints|restrictions|programming"
    r"|guardrails|guidance|directions|briefing|setup|configuration|limits|commands|orders)"
    # Softer nouns ("the previous message" may be the user's own): strong only after "all", "above"
    # or "system"; after "previous" alone they are override_weak's.
    r"|(all|above|preceding|system|the above|the preceding|the system|all the|all of the|all your"
    r"|all previous|all prior|your) (\w+ )?(context|messages|text|conversation|tasks?|information)"
    r"|everything (above|before|else|so far|prior|previous|you (were|have been|'ve been) (told"
    r"|given))"
    r"|(all|everything) (that )?(came|comes|was said|was written|i said) (before|above|earlier)"
    r"|(the|all) above|what (was|you were|has been) (said|told|written|given)( to you)?( before"
    r"| above)?",
    "disobey": r"(do not|don'?t|stop|no longer|never) (follow|obey|respect)(ing)? (your|the|any"
    r"|those|these) (\w+ )?(rules|instructions|guidelines|directives|policy)"
    r"|(instructions|rules|guidelines|directives|prompt|restrictions|limits|constraints|boundaries"
    r"|guardrails) (you|that you) (were given|received|got|have been given|'ve been given|operate"
    r" under|must follow|have to follow)|(rules|restrictions|limits|constraints|guidelines|filters"
    r"|guardrails) (imposed|placed|put|set) (on|upon|for) you",
    "ask_prompt": r"(context window|you (were|are|have been) (configured|programmed|set up"
    r"|initiali[sz]ed) (with|to)|your (configuration|programming))|what (is|are|was|were) (your"
    r"|the) (system prompt|initial (prompt|instructions)"
    r"|original (prompt|instructions)"
    r"|hidden (prompt|instructions)|secret (prompt|instructions)|prompt)",
    "override_weak": r"instructions?|rules|guidelines|directives|polic(y|ies)|restrictions|prompt"
    r"|(previous|prior|earlier|initial|original|the previous|the prior|the earlier|my previous|these"
    r"|those|any) (\w+ )?(context|messages?|text|conversation|tasks?|information)",
    "extract_verbs": r"print|repeat|recite|output|echo|display|show|reveal|write( out| down)?|copy"
    r"|paste"
    r"|list|tell me|give me|translate|summari[sz]e|paraphrase|spell out|dump|leak|share|type out"
    r"|quote",
    "extract_objects": r"(text|words|lines|content|messages?|instructions?|everything|all|sentences"
    r"|prompt"
    r"|conversation|what(ever)? (is|was|comes|came|you (see|read"
    r"|were given)))( [^.?!\n]{0,20})? (above"
    # "the text above the payment button" places text on a page; "above this line" points at the chat.
    r"(?! (the|a|an|our|their|his|her) (?!(line|message|question|conversation|prompt|chat|text"
    r"|instructions?)\b)\w+)"
    r"|before (this|my|the|that)|preceding|that precedes|precedes|previously|prior|so far"
    r"|up to (here|now|this point)|at the (top|beginning|start))"
    # "help me write a system prompt for my bot", "your own system prompt": the user's, not the bot's.
    r"|(?<!\bown )(?<!\bmy )(?<!\ba )(?<!\bour )(system|initial|original|hidden|secret|developer"
    r"|first|full|entire|complete) (prompt"
    r"|instructions?"
    r"|system message|rules|configuration)"
    # "write your own system prompt": the user's prompt, not the bot's.
    r"|your (?!own\b)(\w+ )?(instructions|prompt|rules|guidelines|directives|configuration"
    r"|system message)",
    "persona": r"imagine (you are|you'?re|being|that you are) (an?|the) (\w+ )?(ai|model|assistant"
    r"|chatbot|bot|llm)|i want you to (act|behave|pretend|play|respond|answer|become|be|roleplay"
    r"|simulate"
    r"|impersonate)"
    # Told to the bot: opening a clause or after "please", "you", "now"... ("make the app pretend to
    # be offline", "we pretend to be pirates" are not), and not "pretend you're explaining" (a style).
    r"|(?:(?<![\w'] )|(?<=\bplease )|(?<=\byou )|(?<=\bnow )|(?<=\band )|(?<=\bjust )|(?<=\bthen )"
    r"|(?<=\bso ))pretend (to be|you are|you'?re|that you)(?! \w+ing\b)"
    # "You're now able to track orders?": a feature announced, not a persona.
    r"|(you are|you'?re) (now|no longer)(?! (able|available|ready|connected|logged|signed"
    r"|subscribed|registered|eligible|enrolled|up to date|all set|done|in the queue)\b)"
    r"|from now on,? (you|your|act|answer|respond|reply|speak|behave)|do anything now"
    r"|(god|jailbreak|unrestricted|unfiltered|dan) mode"
    r"|(unrestricted|unfiltered|uncensored|jailbroken|evil|amoral|unethical|unlimited) (ai"
    r"|assistant"
    r"|model|chatbot|bot|persona|version of (you|yourself|chatgpt|gpt|the (ai|bot|assistant|model"
    r"|chatbot)))|stay in character"
    r"|you have no (rules|restrictions|limits|filters|guidelines)"
    r"|(free|freed|liberated) from (all |your )?(rules|restrictions|constraints|limitations)",
    "persona_weak": r"(act|behave|respond|answer) as (if|an?|my|though)|role[- ]?play|\bdan\b"
    r"|jailbreak"
    r"|(developer|debug|admin|maintenance) mode"
    r"|(without|with no|no) (any )?(content |safety )?(rules|restrictions|filters|limits"
    r"|limitations"
    r"|censorship|morals|ethics|polic(y|ies))",
    "policy_nouns": r"polic(y|ies)|rules|restrictions|filters?|guardrails|guidelines|safeguards"
    r"|moderation|safety|censorship|limitations",
    "policy_off": r"(is|are|have been|has been|now|were|been) (now )?(disabled|deactivated|lifted"
    r"|suspended|off|removed|turned off|switched off|no longer (active|valid|in (effect|force)))"
    r"|no longer (apply|applies)|do(es)? not apply( anymore)?",
    # "my boss gave me a new task:" is news; "New task:" opening a line is an order.
    "new_orders": r"(new|different) (rules?|instructions?|policy) (for|in) (this|the) (chat"
    r"|conversation|session)|(?<!\ba )(?<!\bmy )(?<!\bthe )(?<!\bour )(?<!\bher )(?<!\bhis )(new"
    r"|updated|real|actual|true|revised|override) (instructions?"
    r"|rules|task|orders"
    r"|directives?|system (prompt|message)) ?:",
    "context_objects": r"(the|your|my|all (the|your)) (knowledge base|kb|documents?|docs|sources"
    r"|retrieved (passages|chunks|context|text)|context( you (were|are) given)?|faq"
    r"|search results)",
    "own_knowledge": r"(answer|respond|reply|speak)\w* (only |just )?(from|with|using"
    r"|out of) (your own|your general|your|general|pure) (knowledge|memory|training|opinion)"
    r"|(answer|respond|reply)\w* (only |just )?from memory|make (up|something up) (an|the) answer"
    r"|invent (an|the|a) (convincing |plausible )?answer",
    "persona_more": r"you('re| are) going to (pretend|act|play|be|behave|roleplay)"
    r"|you will (now )?(pretend|act as|play the (role|part)|be playing)|(drop|abandon|leave"
    r"|shed) (your|the) (current |usual |previous )?(persona|character|role)",
    "extract_more": r"(the )?(paragraph|text|lines?|words|message|content|sentences?)( that comes"
    r"| right| just)? (before|preceding|prior to|above) (the|my|your|this) (first|initial|opening"
    r"|very first)|(raw|unfiltered|exact|literal) (prompt|instructions|input you (got|received))",
    "void_subject": r"your (\w+ )?(instructions?|directions|directives|guidelines|setup|prompt|orders|briefing"
    r"|programming|configuration|guardrails|restrictions|constraints)|(the|all (the )?|any) (earlier"
    r"|previous|prior|original|initial|above|old|former|system|first) (\w+ )?(instructions?|directions"
    r"|directives|rules|guidelines|setup|prompt|orders|restrictions|briefing|configuration"
    r"|constraints)",
    "void_state": r"no longer (matter|count|apply|exist|hold|stand)|(don'?t|do not|doesn'?t|does not)"
    r" (matter|count|apply) (any ?more|now)|(are|is|were|was) (now |hereby )?(void|null|obsolete"
    r"|cancell?ed|revoked|invalid|overridden|superseded|expired|irrelevant|lifted|gone|deleted)"
    r"|(have|has) been (cancell?ed|revoked|overridden|superseded|replaced|lifted|deleted|removed)",
    "status_words": r"(say|reply|answer|respond|state|claim|report|confirm|pretend|write|tell (me|the"
    r" system|them|everyone))( that)?( you)? (found|have found|'ve found|got|located) (it|this|that"
    r"|the answer|an answer|the information|everything)( \w+)? in (the |your )?(context|documents?"
    r"|knowledge base|sources|kb|retrieved)|(mark|flag|label|classify|tag|record|log) (this|it|my"
    r" (question|message|request)|the (question|request)|this (question|message|request)) as"
    r" (answered|in[- ]scope|found in (the )?context|grounded|from (the )?(context|documents))"
    r"|(say|claim|pretend|state) (that )?(this|it|the answer) (is|was|comes|came) (from|in) (the"
    r" |your )?(context|documents|knowledge base|sources)",
    "persona_unbound": r"(an?|the|some) (ai|bot|assistant|chatbot|model|character|persona) (that|who|which)"
    r" (never refuses|can do anything|answers (anything|everything)|ignores (all |its )?(rules"
    r"|filters|restrictions)|has no (rules|filters|limits|restrictions|morals))|(speak|talk|answer"
    r"|reply|respond|act|write) (to me )?(as|like) (my )?(late|dead|deceased|departed) (grand(ma"
    r"|mother|pa|father)|mother|father|mom|dad)|\bas (dan|stan|dude|an unfiltered \w+|an uncensored"
    r" \w+)\b[^.?!\n]{0,10}(answer|reply|respond|tell|say|write|explain)",
}
