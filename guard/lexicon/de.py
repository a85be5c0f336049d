"""The German words of an injection (folded: lower case, no accents); slots as in guard.lexicon."""

from __future__ import annotations

from guard.lexicon.slots import Lexicon

LEXICON: Lexicon = {
    "override_verbs": r"ignorier\w*|vergiss|vergessen sie|vergesst"
    r"|missacht\w*|ubergeh\w*|verwirf"
    r"|verwerfen sie|umgeh\w*|beachte (nicht|keine)|befolge nicht mehr|nicht mehr befolgen"
    r"|lass\w* weg|lass\w* (\w+ )?beiseite|beiseite\w*lass\w*|setz\w* dich (\w+ )?uber"
    r"|hinweg\w*setz\w*",
    "override_objects": r"(deine|ihre) (rolle|aufgabe|identitat|persona)|(alle |deine |ihre |die "
    r"|samtliche )?(bisherigen|vorherigen|vorigen|obigen"
    r"|vorangegangenen|vorangehenden|ursprunglichen|ersten|fruheren|gegebenen) (anweisungen?"
    r"|instruktionen|regeln|vorgaben|befehle|richtlinien|hinweise|leitlinien|einstellungen"
    r"|konfiguration|beschrankungen|auftrage|aufgaben|prompts?|informationen"
    r"|texte?|ausfuhrungen)"
    r"|(deine|ihre|alle) (\w+ )?(anweisungen|instruktionen|regeln|vorgaben|richtlinien|hinweise"
    r"|leitlinien|einstellungen|konfiguration|beschrankungen|befehle"
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
    r"|prompt|anweisungen|instruktionen|vorgaben|ursprunglichen anweisungen"
    r"|versteckten anweisungen)",
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
    "persona_weak": r"handle als|agiere als|entwicklermodus|ohne (jegliche )?(regeln"
    r"|einschrankungen"
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
    "context_objects": r"(die|deine|ihre|den|das) (wissensdatenbank|wissensbasis|dokumente?"
    r"|quellen|abgerufenen (passagen|texte)|kontext|faq|suchergebnisse)",
    "own_knowledge": r"(antworte|antworten sie|antwortest du)\w* (nur "
    r"|einfach )?(aus dem gedachtnis|aus (deinem|ihrem) (eigenen )?wissen|mit (deinem"
    r"|ihrem) (eigenen )?wissen)|(erfinde|erfinden sie|denk dir) (eine|die) (\w+ )?antwort",
    "persona_more": r"(du wirst|sie werden) (so tun|spielen|dich verhalten|die rolle)|(leg"
    r"|legen sie|gib|vergiss) (deine|ihre) (aktuelle |bisherige )?(rolle|persona|figur) ab",
    "extract_more": r"(den |die |das )?(absatz|text|nachricht|inhalt|zeilen|worter) (direkt "
    r"|unmittelbar )?(vor|oberhalb) (der|meiner|deiner|ihrer) (allerersten|ersten)|(den )?(rohen"
    r"|ungefilterten|exakten|vollstandigen) (prompt|anweisungen)",
    "void_subject": r"(deine|ihre) (\w+ )?(anweisungen|instruktionen|vorgaben|direktiven|richtlinien"
    r"|einschrankungen|befehle|programmierung|konfiguration)|deine (\w+ )?regeln|(die|alle|samtliche)"
    r" (bisherigen|vorherigen|fruheren|ursprunglichen|obigen|alten|vorangegangenen|vorigen|ersten)"
    r" (anweisungen|instruktionen|vorgaben|regeln|richtlinien|einschrankungen|befehle|direktiven)",
    "void_state": r"(gelten|gilt|zahlen|zahlt) (ab sofort |jetzt |nun |ab heute )?nicht mehr|spielen"
    r" keine rolle mehr|(sind|ist) (ab sofort |jetzt |nun |hiermit )?(ungultig|nichtig|aufgehoben"
    r"|hinfallig|uberholt|obsolet|widerrufen|gestrichen|irrelevant|geloscht|ausser kraft)|(wurden"
    r"|wurde) (aufgehoben|widerrufen|ersetzt|gestrichen|geloscht|annulliert)|haben keine"
    r" (bedeutung|gultigkeit) mehr",
    "status_words": r"(sag|sage|sagen sie|antworte|antworten sie|behaupte|behaupten sie|schreib|schreibe"
    r"|bestatige)\w*,? (dass )?(du|sie) [^.?!\n]{0,40}(im kontext|in den dokumenten|in der"
    r" wissensbasis|in den quellen|in deinen quellen|in den unterlagen) gefunden|(markiere|markieren"
    r" sie|kennzeichne|kennzeichnen sie|stufe|klassifiziere) (dies|das|meine frage|diese (frage"
    r"|anfrage)|die frage) als (beantwortet|im rahmen|im kontext gefunden|abgedeckt)",
    "persona_unbound": r"(eine?|die|der) (ki|bot|assistent\w*|chatbot|modell|figur),? (die|der|das) (nie"
    r" ablehnt|niemals ablehnt|alles (beantwortet|kann|sagt|darf)|keine (regeln|filter|grenzen)"
    r" hat|alle (regeln|filter) ignoriert)|(sprich|antworte|rede) (mit mir )?(wie|als) (meine|mein)"
    r" (verstorbene|verstorbener|tote|toter|selige|seliger) (oma|grossmutter|opa|grossvater|mutter"
    r"|vater)|als (dan|unzensierte ki|ungefilterte ki)\b[^.?!\n]{0,10}(antworte|sag|erklar|schreib)",
}
