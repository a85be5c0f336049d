"""The words of an injection, per language, as regular-expression alternations over folded text
(lower case, no accents: see normalise.text_fold). patterns.py builds the scored patterns from them.

Each language gives the same slots, so a new language is a new entry:
- override_verbs + override_objects: "ignore" + "the previous instructions" (strong: the object says
  which instructions — yours, the ones above — as a user asking about a product never does);
- extract_verbs + extract_objects: "print / translate / repeat" + "what precedes / your prompt";
- persona: role-play and persona switches (strong), persona_weak: phrases a real question may use;
- disobey: "stop following your rules", "the instructions you were given"; ask_prompt: "what is your
  system prompt" (asking about the bot's own instructions, not a product's);
- policy_nouns + policy_off: "the policy" + "is disabled";
- new_orders: a heading announcing new instructions ("New instructions:").
"""

from __future__ import annotations

from typing import TypedDict


class Lexicon(TypedDict):
    override_verbs: str
    override_objects: str
    override_weak: str
    disobey: str
    ask_prompt: str
    extract_verbs: str
    extract_objects: str
    persona: str
    persona_weak: str
    policy_nouns: str
    policy_off: str
    new_orders: str


LEXICONS: dict[str, Lexicon] = {
    "en": {
        "override_verbs": r"pay no attention to|take no notice of|don'?t pay attention to|ignore"
        r"|disregard|forget|override|bypass|skip|discard|abandon|neglect|set aside"
        r"|throw away|stop following|do not follow|don'?t follow|no longer follow|drop",
        "override_objects": r"(your|the) (current )?(role|persona|job|character|identity|purpose)|(all"
        r"|any|your|previous|prior|above|earlier|preceding|initial|original|system"
        r"|these|those|the above|the previous|the preceding|the prior|the earlier|the initial|the original"
        r"|the system|my previous|all the|all of the|all your|all previous|all prior) (\w+ )?(instructions?"
        r"|rules|prompts?|guidelines|directives|polic(y|ies)|constraints|restrictions|programming"
        r"|guardrails"
        r"|context|messages?|commands|orders|text|conversation|tasks?|information)"
        r"|everything (above|before|else|so far|prior|previous|you (were|have been|'ve been) (told|given))"
        r"|(all|everything) (that )?(came|comes|was said|was written|i said) (before|above|earlier)"
        r"|(the|all) above|what (was|i|you were|has been) (said|told|written|given)( to you)?( before"
        r"| above)?",
        "disobey": r"(do not|don'?t|stop|no longer|never) (follow|obey|respect)(ing)? (your|the|any"
        r"|those|these) (\w+ )?(rules|instructions|guidelines|directives|policy)"
        r"|(instructions|rules|guidelines|directives|prompt) (you|that you) (were given|received|got"
        r"|have been given)",
        "ask_prompt": r"(context window|you (were|are|have been) (configured|programmed|set up"
        r"|initiali[sz]ed) (with|to)|your (configuration|programming))|what (is|are|was|were) (your"
        r"|the) (system prompt|initial (prompt|instructions)"
        r"|original (prompt|instructions)"
        r"|hidden (prompt|instructions)|secret (prompt|instructions)|prompt)",
        "override_weak": r"instructions?|rules|guidelines|directives|polic(y|ies)|restrictions|prompt",
        "extract_verbs": r"print|repeat|recite|output|echo|display|show|reveal|write( out| down)?|copy"
        r"|paste"
        r"|list|tell me|give me|translate|summari[sz]e|paraphrase|spell out|dump|leak|share|type out|quote",
        "extract_objects": r"(text|words|lines|content|messages?|instructions?|everything|all|sentences"
        r"|prompt"
        r"|conversation|what(ever)? (is|was|comes|came|you (see|read|were given)))( [^.?!\n]{0,20})? (above"
        r"|before (this|my|the|that)|preceding|that precedes|precedes|previously|prior|so far"
        r"|up to (here|now|this point)|at the (top|beginning|start))"
        r"|(system|initial|original|hidden|secret|developer|first|full|entire|complete) (prompt"
        r"|instructions?"
        r"|system message|rules|configuration)"
        r"|your (\w+ )?(instructions|prompt|rules|guidelines|directives|configuration|system message)",
        "persona": r"imagine (you are|you'?re|being|that you are) (an?|the) (\w+ )?(ai|model|assistant"
        r"|chatbot|bot|llm)|i want you to (act|behave|pretend|play|respond|answer|become|be|roleplay"
        r"|simulate"
        r"|impersonate)|pretend (to be|you are|you'?re|that you)|you are (now|no longer)|you'?re now"
        r"|from now on,? (you|your|act|answer|respond|reply|speak|behave)|do anything now"
        r"|(god|jailbreak|unrestricted|unfiltered|dan) mode"
        r"|(unrestricted|unfiltered|uncensored|jailbroken|evil|amoral|unethical|unlimited) (ai|assistant"
        r"|model|chatbot|bot|version|persona)|stay in character"
        r"|you have no (rules|restrictions|limits|filters|guidelines)"
        r"|(free|freed|liberated) from (all |your )?(rules|restrictions|constraints|limitations)",
        "persona_weak": r"(act|behave|respond|answer) as (if|an?|my|though)|role[- ]?play|\bdan\b|jailbreak"
        r"|(developer|debug|admin|maintenance) mode"
        r"|(without|with no|no) (any )?(content |safety )?(rules|restrictions|filters|limits|limitations"
        r"|censorship|morals|ethics|polic(y|ies))",
        "policy_nouns": r"polic(y|ies)|rules|restrictions|filters?|guardrails|guidelines|safeguards"
        r"|moderation|safety|censorship|limitations",
        "policy_off": r"(is|are|have been|has been|now|were|been) (now )?(disabled|deactivated|lifted"
        r"|suspended|off|removed|turned off|switched off|no longer (active|valid|in (effect|force)))"
        r"|no longer (apply|applies)|do(es)? not apply( anymore)?",
        "new_orders": r"(new|different) (rules?|instructions?|policy) (for|in) (this|the) (chat"
        r"|conversation|session)|(new|updated|real|actual|true|revised|override) (instructions?"
        r"|rules|task|orders"
        r"|directives?|system (prompt|message)) ?:",
    },
    "fr": {
        "override_verbs": r"ne (prete|pretez) (aucune|pas|plus) attention a|ignore[rsz]?|oublie[rsz]?"
        r"|ne (tiens|tenez|tient) (pas|plus) compte"
        r"|(fais|faites) abstraction|contourne[rsz]?|passe[rz]? outre|outrepasse[rsz]?|laisse[rsz]? tomber"
        r"|ne (suis|suivez) plus|abandonne[rsz]?|efface[rsz]?",
        "override_objects": r"(ton|votre|ta) (role|personnage|mission|identite)|(toutes? |tes |vos |les "
        r"|ces |mes )?(\w+ )?(instructions?|consignes?|regles"
        r"|directives|prompts?|restrictions|limites|contraintes|ordres) (precedentes?|anterieures?"
        r"|initiales?"
        r"|ci-dessus|d'origine|originales?|systeme|donnees|recues)"
        r"|(tes|vos|toutes? les|toutes? tes|toutes? vos) (\w+ )?(instructions?|consignes?|regles|directives"
        r"|restrictions|limites|contraintes)"
        r"|(tout )?ce qui (precede|a ete dit|est au-dessus|est ecrit au-dessus)"
        r"|(tout )?ce (que|qu'on) (je t'ai|t'a|on t'a|vous a|l'on t'a) (dit|ecrit|donne)"
        r"|(le texte |tout )?ci-dessus|tout le reste|tout ce qui est avant",
        "disobey": r"ne (suis|suivez|respecte|respectez|applique|appliquez) (plus|pas) (tes|vos|les"
        r"|ces) (\w+ )?(regles|consignes|instructions|directives)"
        r"|(regles|consignes|instructions|directives) (que|qu') ?(tu as|vous avez|on t'a"
        r"|on vous a) (recu|donne)e?s?",
        "ask_prompt": r"(fenetre de contexte|(on t'a|on vous a|t'a|vous a) (configure|programme"
        r"|parametre)e?s?|ta configuration)|quel(le)?s? (est|sont|etai(en)?t) (ton|ta|tes|votre"
        r"|vos) (prompt|instructions"
        r"|consignes)( (initiales?|systeme|cachees|secretes))?",
        "override_weak": r"instructions?|consignes?|regles|directives|restrictions",
        "extract_verbs": r"affiche[rsz]?|repete[rsz]?|tradui[rstz]e?|traduisez|resume[rsz]?|recopie[rsz]?"
        r"|revele[rsz]?|donne[rsz]?(-moi)?|montre[rsz]?(-moi)?|ecris|ecrivez|imprime[rsz]?|cite[rsz]?"
        r"|dis(-moi)?|dites(-moi)?|liste[rsz]?|reproduis(ez)?|partage[rsz]?",
        "extract_objects": r"(tout )?ce qui (precede|est (ecrit )?(au-dessus|plus haut|avant)"
        r"|se trouve avant)"
        r"|(le |du )?texte (ci-dessus|au-dessus|precedent|qui precede|plus haut)"
        r"|(les )?mots (ci-dessus|au-dessus|precedents|qui precedent)"
        r"|(tes|vos) (instructions|consignes|regles|directives)( (initiales|systeme|cachees))?"
        r"|(le |ton |votre )?prompt( systeme| initial)?"
        r"|(les )?(instructions|consignes) (initiales|systeme|cachees|secretes|d'origine)"
        r"|tout ce (qu'on t'a|que l'on t'a|qui t'a ete) (dit|donne|ecrit)",
        "persona": r"imagine[sz]? (que tu es|etre|que vous etes) (une?|le|la) (\w+ )?(ia|modele"
        r"|assistant|chatbot|bot)|je (veux|voudrais|souhaite) que (tu|vous) (agisses|agissiez|sois"
        r"|soyez|joues|jouiez"
        r"|fasses semblant|te comportes|incarnes|deviennes|repondes)|fai(s|tes) (comme si|semblant)"
        r"|(desormais|dorenavant|a partir de maintenant|a partir d'aujourd'hui),? (tu|vous|reponds|agis"
        r"|ton)"
        r"|tu es (desormais|maintenant|a present) |tu n'es plus|joue[sz]? le role|incarne[sz]? (un|une"
        r"|le|la) "
        r"|mode (dieu|sans (filtre|restriction|limite)s?)"
        r"|(ia|assistant|modele|chatbot|bot|version) (sans (regles|filtres?|restrictions|limites|censure)"
        r"|non (filtre|censure|bride)e?|debride)"
        r"|tu n'as (plus )?(aucune|pas de) (regle|restriction|limite|filtre)s?"
        r"|libere de (toutes? )?(tes )?(regles|restrictions|contraintes)",
        "persona_weak": r"agis comme|comporte-toi comme|mode (developpeur|debug)|sans (aucune )?(regle"
        r"|restriction|limite|filtre"
        r"|censure)s?|jeu de role",
        "policy_nouns": r"politique|regles|restrictions|filtres?|garde-fous|consignes|securite|moderation"
        r"|censure|limites|protections",
        "policy_off": r"(est|sont|a ete|ont ete) (maintenant |desormais )?(desactive|suspendu|leve|supprime"
        r"|annule|coupe)(e|es|s)?|ne s'applique(nt)? plus|n'(est|sont) plus (actif|active|en vigueur"
        r"|valable)s?",
        "new_orders": r"(nouvelles?|autres?) (regles?|consignes?|instructions?) pour (cette"
        r"|la) (conversation|discussion|session)|(nouvelles?|vraies?|veritables?"
        r"|nouveaux) (instructions?|consignes?|regles|directives"
        r"|taches?|ordres) ?:",
    },
    "de": {
        "override_verbs": r"ignorier\w*|vergiss|vergessen sie|vergesst"
        r"|missacht\w*|ubergeh\w*|verwirf"
        r"|verwerfen sie|umgeh\w*|beachte (nicht|keine)|befolge nicht mehr|nicht mehr befolgen|lass\w* weg",
        "override_objects": r"(deine|ihre) (rolle|aufgabe|identitat|persona)|(alle |deine |ihre |die "
        r"|samtliche )?(bisherigen|vorherigen|vorigen|obigen"
        r"|vorangegangenen|vorangehenden|ursprunglichen|ersten|fruheren|gegebenen) (anweisungen?"
        r"|instruktionen|regeln|vorgaben|befehle|richtlinien|auftrage|aufgaben|prompts?|informationen"
        r"|texte?)"
        r"|(deine|ihre|alle) (\w+ )?(anweisungen|instruktionen|regeln|vorgaben|richtlinien|befehle"
        r"|einschrankungen|aufgaben)"
        r"|alles,? (was )?(bisher|zuvor|vorher|davor|oben|obige|bisherige|gesagte|andere|vorherige)"
        r"|das (obige|vorherige|bisherige|gesagte)",
        "disobey": r"(vorher|zuvor|bisher|davor|oben)[^.?!\n]{0,40}keine beachtung"
        r"|keine beachtung[^.?!\n]{0,40}(vorher|zuvor|bisher|davor|oben)|(setz\w*|stell\w*) (deine"
        r"|ihre|die|alle) (\w+ )?(einschrankungen|regeln|anweisungen"
        r"|vorgaben|richtlinien) (\w+ )?ausser kraft|(befolge|beachte|folge)\w* (deine|ihre|die"
        r"|alle) (\w+ )?(regeln|anweisungen"
        r"|vorgaben|richtlinien)\w* (nicht mehr|nicht)"
        r"|(anweisungen|regeln|vorgaben|instruktionen),? die (du|sie) (erhalten|bekommen) (hast|haben)",
        "ask_prompt": r"(kontextfenster|(du|sie) (konfiguriert|programmiert|eingerichtet) (wurdest"
        r"|wurden)|deine konfiguration)|(was|wie) (sind|waren|lauten|lautet|ist) (deine|ihre|dein"
        r"|ihr) (systemprompt"
        r"|prompt|anweisungen|instruktionen|vorgaben|ursprunglichen anweisungen|versteckten anweisungen)",
        "override_weak": r"anweisungen|regeln|vorgaben|richtlinien|einschrankungen",
        "extract_verbs": r"gib\w*|wiederhol\w*|ubersetz\w*|zeig\w*|druck\w*|fasse|verrat\w*|schreib\w*"
        r"|nenn\w*|kopier\w*|sag\w* mir|gebt|ausgeben|liste\w*",
        "extract_objects": r"(den |die |das )?(obigen?|vorherigen?|vorangehenden?|vorstehenden?"
        r"|bisherigen?)"
        r" (text|worter|satze|anweisungen|nachricht|inhalt|zeilen)"
        r"|alles,? (was )?(oben|davor|vorher|zuvor|bisher|obige|bisherige) ?(steht|stand|kam|gesagt)?"
        r"|(den |die |das )?(text|worter|satze|inhalt|zeilen) (uber|oberhalb) (dieser|meiner|der)"
        r"|(deine|ihre) (\w+ )?(anweisungen|instruktionen|regeln|vorgaben|richtlinien|systemanweisungen"
        r"|konfiguration)"
        r"|(den )?(system-?prompt|systemnachricht|ursprunglichen prompt|ersten prompt|initialen prompt"
        r"|versteckten anweisungen|geheimen anweisungen)",
        "persona": r"(stell|stellen sie) (dir|sich) vor,? (du bist|du warst|sie sind|sie waren) (ein"
        r"|eine) (\w+ )?(ki|modell|assistent|chatbot|bot)|ich (mochte|will|wunsche mir),? dass (du"
        r"|sie) (dich|sich|als|die rolle|so tust|wie)"
        r"|tu so,? als (ob|warst)|(stell|stellen sie) (dir|sich) vor,? (du bist|du warst|sie sind)"
        r"|du bist (jetzt|nun|ab (sofort|jetzt)|ab heute|kein) |ab (sofort|jetzt|heute|nun),? (bist du"
        r"|du bist"
        r"|antwortest du|verhaltst du|sollst du|wirst du)|schlupf\w* in die rolle|(verhalte"
        r"|benimm) dich (wie|als)"
        r"|(ki|assistent|modell|chatbot|bot) ohne (regeln|filter|einschrankungen|grenzen"
        r"|zensur)|du hast keine (regeln|einschrankungen|grenzen|filter)"
        r"|(uneingeschrankte|ungefilterte|unzensierte|bose) (ki|assistent|version|modell)"
        r"|spiel\w* (die|eine) rolle",
        "persona_weak": r"handle als|agiere als|entwicklermodus|ohne (jegliche )?(regeln|einschrankungen"
        r"|filter|grenzen"
        r"|zensur)|rollenspiel|als ob du",
        "policy_nouns": r"richtlinien?|regeln|einschrankungen|filter|schutzmassnahmen|sicherheit\w*"
        r"|vorgaben"
        r"|zensur|moderation",
        "policy_off": r"(ist|sind|wurde|wurden) (jetzt |nun |ab sofort )?(deaktiviert|aufgehoben"
        r"|abgeschaltet"
        r"|ausgeschaltet|ausgesetzt|entfernt|ausser kraft)|gelten (ab sofort |jetzt |nun )?nicht mehr"
        r"|nicht mehr (aktiv|gultig|in kraft)",
        "new_orders": r"neue (regeln?|anweisungen?|vorgaben?) fur (diesen|den) (chat|gesprach|sitzung)"
        r"|(neue|echte|wahre|aktualisierte|eigentliche) (anweisungen?|aufgabe|regeln|befehle"
        r"|instruktionen) ?:",
    },
    "es": {
        "override_verbs": r"no (prestes|preste) atencion a|ignora[rd]?|ignore[ns]?|olvida[rd]?"
        r"|olvide[ns]?|omite|omita[ns]?|omitir"
        r"|haz caso omiso|hagan? caso omiso|no (hagas|haga) caso|descarta[rd]?|deja de (seguir|lado)"
        r"|pasa por alto|no sigas|desobedece",
        "override_objects": r"(tu|su) (papel|rol|personaje|mision|identidad)|(todas? |tus |sus |las "
        r"|los |estas |mis )?(\w+ )?(instrucciones|instruccion"
        r"|reglas|normas|directrices|indicaciones|ordenes|restricciones|limitaciones|prompts?) (anteriores"
        r"|previas|de arriba|iniciales|originales|del sistema|recibidas|que te (dieron|di))"
        r"|(tus|sus|todas las|todas tus) (\w+ )?(instrucciones|reglas|normas|directrices|indicaciones"
        r"|restricciones)"
        r"|(todo )?lo (anterior|de arriba|que (te )?(dije|dijeron|precede|esta arriba|se dijo))"
        r"|todo lo que (precede|esta (arriba|antes)|te (han|hayan) dicho)|todo lo demas",
        "disobey": r"no (sigas|sigan|siga|obedezcas|respetes|respete) (mas )?(tus|sus"
        r"|las) (\w+ )?(reglas|normas|instrucciones|directrices)"
        r"|(instrucciones|reglas|normas|directrices) que (recibiste|te dieron|has recibido|ha recibido)",
        "ask_prompt": r"(ventana de contexto|te (configuraron|programaron)|(fuiste"
        r"|has sido) (configurado|programado)|tu configuracion)|(cual|cuales|que) (es|son|eran"
        r"|era) (tu|tus|su|sus) (prompt|instrucciones"
        r"|indicaciones)( (iniciales|del sistema|ocultas|secretas))?",
        "override_weak": r"instrucciones|reglas|normas|directrices|restricciones",
        "extract_verbs": r"imprim[ea]|repit[ea]|traduc[ea]|traduzca|muestr[ea](me)?|resum[ea]|revel[ea]"
        r"|dime|digame|escrib[ea]|copi[ea]|lista|enumera|comparte|reproduce|cita",
        "extract_objects": r"(todo )?lo (anterior|de arriba|que (precede|esta (arriba|antes)))"
        r"|(el |los |las )?(texto|palabras|mensaje|contenido)( que (esta|aparece|hay))? (de arriba"
        r"|arriba|anterior(es)?"
        r"|que precede(n)?|previo|precedente)"
        r"|(tus|sus) (instrucciones|reglas|directrices|indicaciones|normas)( (iniciales|del sistema"
        r"|ocultas))?"
        r"|(el |tu |su )?(prompt|mensaje) (del sistema|de sistema|inicial|original|oculto)"
        r"|las instrucciones (iniciales|del sistema|ocultas|secretas|originales)",
        "persona": r"imagina (que eres|ser) (un|una|el|la) (\w+ )?(ia|modelo|asistente|chatbot|bot)"
        r"|quiero que (actues|seas|finjas|te comportes|hagas de|interpretes|respondas como"
        r"|juegues)|finge (ser|que (eres|no tienes|estas))|haz como si (fueras|eres)"
        r"|(a partir de ahora|desde ahora|de ahora en adelante),? (eres|seras|tu|actua|responde"
        r"|te comportaras|vas a)|ahora eres |ya no eres|(juega|interpreta|asume) el (papel|rol)"
        r"|modo (dios|sin (filtros?|restricciones|limites))"
        r"|(ia|asistente|modelo|chatbot|bot|version) sin (reglas|filtros?|restricciones|limites|censura)"
        r"|no tienes (reglas|restricciones|limites|filtros)|libre de (todas? )?(tus )?(reglas"
        r"|restricciones)",
        "persona_weak": r"actua como|comportate como|modo desarrollador|sin (ninguna )?(regla"
        r"|restriccion|limite|filtro"
        r"|censura)s?|juego de rol",
        "policy_nouns": r"politicas?|reglas|restricciones|filtros?|normas|seguridad|moderacion|censura"
        r"|limites|protecciones",
        "policy_off": r"(esta|estan|ha sido|han sido|queda|quedan) (ahora )?(desactivad|suspendid"
        r"|levantad|eliminad|anulad|deshabilitad)[oa]s?|ya no (aplica|aplican|esta activ|estan activ|rige"
        r"|rigen)",
        "new_orders": r"(nuevas?|otras?) (reglas?|normas?|instrucciones?) para (este|esta|la|el) (chat"
        r"|conversacion|sesion)|(nuevas?|verdaderas?|reales?) (instrucciones|instruccion|reglas"
        r"|tareas?|ordenes) ?:",
    },
    "it": {
        "override_verbs": r"non (prestare|presti) attenzione a|ignora(re)?|ignori|ignorate"
        r"|dimentica(re)?|dimentichi|dimenticate|trascura(re)?"
        r"|tralascia|non (tenere|tener) conto|non considerare|scarta|smetti di seguire|non seguire( piu)?"
        r"|bypassa|aggira|lascia perdere",
        "override_objects": r"(tutto )?(cio|quello) che ti (hanno|ho|abbiamo) (detto|scritto|dato)"
        r"|(il tuo|il suo|la tua) (ruolo|personaggio|missione|identita)|(tutte |le "
        r"|tue |sue |queste |mie )?(\w+ )?(istruzioni|regole|direttive"
        r"|indicazioni|consegne|restrizioni|limitazioni|prompt|ordini) (precedenti|iniziali|originali"
        r"|di sistema|ricevute|sopra|date)"
        r"|(le tue|tutte le|le sue|tutte le tue) (\w+ )?(istruzioni|regole|direttive|indicazioni"
        r"|restrizioni"
        r"|limitazioni)"
        r"|(tutto )?(cio|quello) che (precede|e stato detto|ti e stato detto|c'e sopra|sta sopra|hai letto)"
        r"|quanto (sopra|detto|precede)|tutto il resto|tutto quanto (prima|sopra)",
        "disobey": r"non (seguire|rispettare|applicare) (piu )?(le tue|le|queste) (\w+ )?(regole"
        r"|istruzioni|direttive)"
        r"|(istruzioni|regole|direttive) che (hai ricevuto|ti hanno dato|ti sono state date)",
        "ask_prompt": r"(finestra di contesto|ti hanno (configurato|programmato)"
        r"|(sei stato) (configurato|programmato)|la tua configurazione)|(qual|quale|quali|cosa) (e"
        r"|sono|era|erano) (il tuo|i tuoi|le tue|la tua) (prompt"
        r"|istruzioni|direttive)( (iniziali|di sistema|nascoste|segrete))?",
        "override_weak": r"istruzioni|regole|direttive|indicazioni|restrizioni",
        "extract_verbs": r"stampa|ripeti|ripeta|traduci|traduca|mostra(mi)?|mostri|riassumi|riassuma"
        r"|rivela(mi)?|riveli|dimmi|mi dica|scrivi|scriva|copia|elenca|condividi|riporta|cita",
        "extract_objects": r"(tutto )?(cio|quello) che (precede|sta sopra|c'e sopra|e scritto sopra)"
        r"|quanto (sopra|precede)|(il )?testo (sopra|precedente|qui sopra|che precede)"
        r"|(le )?parole (sopra|precedenti|che precedono)"
        r"|(le tue|tue|le sue) (istruzioni|regole|direttive|indicazioni)( (iniziali|di sistema|nascoste))?"
        r"|(il |tuo |il tuo )?prompt (di sistema|iniziale|originale|nascosto)"
        r"|le istruzioni (iniziali|di sistema|nascoste|segrete|originali)",
        "persona": r"immagina (di essere|che tu sia) (un|una|il|la|l') ?(\w+ )?(ia|modello|assistente"
        r"|chatbot|bot)|voglio che tu (agisca|sia|finga|faccia|interpreti|ti comporti|risponda come"
        r"|diventi)"
        r"|fingi (di essere|che tu sia)|fai finta di|(d'ora in poi|da ora in poi|da adesso"
        r"|a partire da ora|da questo momento),? (sei|sarai|tu|agisci|rispondi|ti comporterai)"
        r"|ora sei |adesso sei |non sei piu|(interpreta|gioca|assumi) (il ruolo|la parte)"
        r"|modalita (dio|senza (filtri|restrizioni|limiti))"
        r"|(ia|assistente|modello|chatbot|bot|versione) (senza (regole|filtri|restrizioni|limiti|censure)"
        r"|non censurat[ao])|non hai (regole|restrizioni|limiti|filtri)"
        r"|liber[oa] da (tutte )?(le )?(tue )?(regole|restrizioni)",
        "persona_weak": r"agisci come|comportati come|modalita sviluppatore|senza (alcuna )?(regol"
        r"|restrizion|limit|filtr"
        r"|censur)\w*|gioco di ruolo",
        "policy_nouns": r"politica|politiche|regole|restrizioni|filtri?|sicurezza|moderazione|censura"
        r"|limiti|protezioni",
        "policy_off": r"(e|sono|e stata|e stato|sono state|sono stati) (ora )?(disattivat|disabilitat"
        r"|sospes|revocat|rimoss|annullat)[aoie]|non (si applica|si applicano|e piu attiv|sono piu attiv"
        r"|valgono piu|vale piu)",
        "new_orders": r"(nuove?|altre?) (regole?|istruzioni?) per (questa|la|questo) (chat|conversazione"
        r"|sessione)|(nuove?|vere?) (istruzioni|regole|compit[oi]|ordini) ?:",
    },
    "pt": {
        "override_verbs": r"nao (preste|prestes) atencao a|ignore|ignora(r)?|ignorem|esqueca|esquece(r)?"
        r"|esquecam|desconsidere"
        r"|desconsidera(r)?|nao (leve|leves) em (conta|consideracao)|descarte|descarta(r)?|pule"
        r"|deixe de (seguir|lado)|nao siga|pare de seguir|contorne|burle",
        "override_objects": r"(o seu|o teu|seu|teu|a sua) (papel|personagem|missao|identidade)|(todas "
        r"|as |suas |tuas |estas |minhas )?(\w+ )?(instrucoes|instrucao|regras"
        r"|normas|diretrizes|orientacoes|ordens|restricoes|limitacoes|prompts?) (anteriores|previas|acima"
        r"|iniciais|originais|do sistema|recebidas|dadas)"
        r"|(suas|tuas|todas as|todas as suas) (\w+ )?(instrucoes|regras|normas|diretrizes|orientacoes"
        r"|restricoes|limitacoes)"
        r"|(tudo )?o que (foi dito|esta acima|precede|vem antes|te disseram|eu disse)"
        r"|tudo (acima|antes|o resto|isso)|o (texto )?acima",
        "disobey": r"nao (siga|sigas|obedeca|respeite|respeites) (mais )?(as suas|suas|as"
        r"|tuas) (\w+ )?(regras|instrucoes|diretrizes|normas)"
        r"|(instrucoes|regras|diretrizes|normas) que (voce )?(recebeu|te deram|lhe deram)",
        "ask_prompt": r"(janela de contexto|(voce )?foi (configurado|programado)|te (configuraram"
        r"|programaram)|sua configuracao)|(qual|quais|o que) (e|sao|era|eram) (o seu|os seus|as suas"
        r"|seu|suas|teu"
        r"|tuas) (prompt|instrucoes|orientacoes)( (iniciais|do sistema|ocultas|secretas))?",
        "override_weak": r"instrucoes|regras|normas|diretrizes|restricoes",
        "extract_verbs": r"imprim[ae]|repit[ae]|repete|traduza|traduz|mostr[ae]|resum[ae]|revel[ae]"
        r"|diga(-me)?|me diga|escreva|copie|liste|compartilhe|reproduza|cite",
        "extract_objects": r"(tudo )?o que (precede|esta acima|vem antes|esta escrito acima)"
        r"|(o )?texto (acima|anterior|que precede|precedente)|(as )?palavras (acima|anteriores"
        r"|que precedem)"
        r"|(suas|tuas) (instrucoes|regras|diretrizes|orientacoes)( (iniciais|do sistema|ocultas))?"
        r"|(o |seu )?prompt (do sistema|de sistema|inicial|original|oculto)"
        r"|as instrucoes (iniciais|do sistema|ocultas|secretas|originais)|tudo acima",
        "persona": r"imagine (que (voce|tu) (e|es)|ser) (um|uma|o|a) (\w+ )?(ia|modelo|assistente"
        r"|chatbot|bot)|quero que (voce|tu) (aja|atue|seja|finja|se comporte|interprete|responda como"
        r"|faca o papel)|finja (ser|que (voce )?(e|nao tem|esta))|faca de conta"
        r"|(a partir de agora|de agora em diante|daqui (em diante|pra frente)),? (voce|tu|aja|responda"
        r"|sera|es|e) |agora (voce e|tu es|es) |voce nao e mais|(interprete|assuma|faca) o papel"
        r"|modo (deus|sem (filtros?|restricoes|limites))"
        r"|(ia|assistente|modelo|chatbot|bot|versao) sem (regras|filtros?|restricoes|limites|censura)"
        r"|(voce|tu) nao tem (regras|restricoes|limites|filtros)"
        r"|livre de (todas )?(as )?(suas )?(regras|restricoes)",
        "persona_weak": r"aja como|comporte-se como|modo desenvolvedor|sem (nenhuma )?(regras?"
        r"|restric\w+|limites?|filtros?"
        r"|censura)|jogo de papeis",
        "policy_nouns": r"politicas?|regras|restricoes|filtros?|normas|seguranca|moderacao|censura|limites"
        r"|protecoes",
        "policy_off": r"(esta|estao|foi|foram|fica|ficam) (agora )?(desativad|suspens|removid|anulad"
        r"|desabilitad|revogad)[oa]s?|nao (se aplica|se aplicam|esta mais ativ|estao mais ativ|vale mais"
        r"|valem mais)",
        "new_orders": r"(novas?|outras?) (regras?|instrucoes?) para (este|esta|a|o) (chat|conversa"
        r"|sessao)|(novas?|verdadeiras?|reais) (instrucoes|instrucao|regras|tarefas?|ordens) ?:",
    },
}
