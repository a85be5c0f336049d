"""The Italian words of an injection (folded: lower case, no accents); slots as in guard.lexicon."""

from __future__ import annotations

from guard.lexicon.slots import Lexicon

LEXICON: Lexicon = {
    "override_verbs": r"non (prestare|presti) attenzione a|ignora(re)?|ignori|ignorate"
    r"|dimentica(re)?|dimentichi|dimenticate|trascura(re)?"
    r"|tralascia|non (tenere|tener) conto|non considerare|scarta|smetti di seguire"
    r"|non seguire( piu)?"
    r"|bypassa|aggira|lascia perdere|metti da parte|passa sopra|salta|non tenere in considerazione",
    "override_objects": r"(tutto )?(cio|quello) che ti (hanno|ho|abbiamo) (detto|scritto|dato)"
    r"|(il tuo|il suo|la tua) (ruolo|personaggio|missione|identita)|(tutte |le "
    r"|tue |sue |queste |mie )?(\w+ )?(istruzioni|regole|direttive"
    r"|indicazioni|consegne|restrizioni|limitazioni|linee guida|impostazioni|configurazione|limiti"
    r"|prompt|ordini) (precedenti|iniziali|originali"
    r"|di sistema|ricevute|sopra|date)"
    r"|(le tue|tutte le|le sue|tutte le tue) (\w+ )?(istruzioni|regole|direttive|indicazioni"
    r"|restrizioni"
    r"|limitazioni|linee guida|impostazioni|configurazione|limiti)"
    r"|(tutto )?(cio|quello) che (precede|e stato detto|ti e stato detto|c'e sopra|sta sopra"
    r"|hai letto)"
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
    r"|(le tue|tue|le sue) (istruzioni|regole|direttive|indicazioni)( (iniziali|di sistema"
    r"|nascoste))?"
    r"|(il |tuo |il tuo )?prompt (di sistema|iniziale|originale|nascosto)"
    r"|le istruzioni (iniziali|di sistema|nascoste|segrete|originali)",
    "persona": r"immagina (di essere|che tu sia) (un|una|il|la|l') ?(\w+ )?(ia|modello|assistente"
    r"|chatbot|bot)|voglio che tu (agisca|sia|finga|faccia|interpreti|ti comporti|risponda come"
    r"|diventi)"
    r"|fingi (di essere|che tu sia)|fai finta di|(d'ora in poi|da ora in poi|da adesso"
    r"|a partire da ora|da questo momento),? (sei|sarai|tu|agisci|rispondi|ti comporterai)"
    r"|ora sei |adesso sei |non sei piu|(interpreta|gioca|assumi) (il ruolo|la parte)"
    r"|modalita (dio|senza (filtri|restrizioni|limiti))"
    r"|(ia|assistente|modello|chatbot|bot|versione) (senza (regole|filtri|restrizioni|limiti"
    r"|censure)"
    r"|non censurat[ao])|non hai (regole|restrizioni|limiti|filtri)"
    r"|liber[oa] da (tutte )?(le )?(tue )?(regole|restrizioni)",
    "persona_weak": r"agisci come|comportati come|modalita sviluppatore|senza (alcuna )?(regol"
    r"|restrizion|limit|filtr"
    r"|censur)\w*|gioco di ruolo",
    "policy_nouns": r"politica|politiche|regole|restrizioni|filtri?|sicurezza|moderazione|censura"
    r"|limiti|protezioni",
    "policy_off": r"(e|sono|e stata|e stato|sono state|sono stati) (ora )?(disattivat|disabilitat"
    r"|sospes|revocat|rimoss|annullat)[aoie]|non (si applica|si applicano|e piu attiv"
    r"|sono piu attiv"
    r"|valgono piu|vale piu)",
    "new_orders": r"(nuove?|altre?) (regole?|istruzioni?) per (questa|la|questo) (chat"
    r"|conversazione"
    r"|sessione)|(nuove?|vere?) (istruzioni|regole|compit[oi]|ordini) ?:",
    "context_objects": r"(la|le|i|tua|tuoi|il) (base di conoscenza|knowledge base|documenti|fonti"
    r"|passaggi recuperati|contesto( ricevuto)?|faq|risultati di ricerca)",
    "own_knowledge": r"(rispondi|risponda)\w* (solo |soltanto )?(a memoria|con (le tue"
    r"|le sue) (conoscenze|competenze)|con quello che sai)|inventa(ti)? (una|la) (risposta|storia)",
    "persona_more": r"(farai finta|fingerai|interpreterai|ti comporterai come|reciterai)"
    r"|(abbandona|lascia|dimentica) (il tuo|il suo|la tua) (personaggio|ruolo|persona)( attuale)?",
    "extract_more": r"(il )?(paragrafo|testo|messaggio|contenuto|righe|parole) (che (viene|sta"
    r"|c'e) )?(prima del|precedente al|che precede il) (primo|messaggio iniziale)"
    r"|(il )?prompt (grezzo|esatto|completo|ricevuto|che hai ricevuto)",
    "void_subject": r"(le tue|tue) (\w+ )?(istruzioni|regole|direttive|indicazioni|restrizioni|limitazioni"
    r"|impostazioni|consegne)|(le|tutte le) (\w+ )?(istruzioni|regole|direttive|indicazioni"
    r"|restrizioni|consegne) (precedenti|iniziali|originali|di prima|di sistema|del sistema|qui"
    r" sopra|ricevute|che hai ricevuto)|la tua (configurazione|programmazione)( iniziale)?",
    "void_state": r"non (contano|conta|valgono|vale|importano|importa|si applicano|si applica) piu|non"
    r" (sono|e) piu (valide|valida|in vigore|attive|attiva)|(sono|e) (ora |ormai )?(nulle|annullate"
    r"|obsolete|revocate|superate|invalide|decadute|irrilevanti|cancellate)|(sono state|e stata)"
    r" (annullate?|revocate?|sostituite?|cancellate?|rimosse?|abrogate?)|non hanno piu"
    r" (importanza|valore)",
    "status_words": r"(di|dici|dimmi|digli|dica|rispondi|risponda|afferma|scrivi|fingi|conferma)"
    r"( che)? [^.?!\n]{0,30}"
    r"(trovato|trovata|trovate|trovati) [^.?!\n]{0,30}(nel contesto|nei documenti|nella base di"
    r" conoscenza|nelle fonti)|(segna|segnala|classifica|marca|etichetta) (questo|questa (domanda"
    r"|richiesta)|la mia domanda|la domanda) come (risposta|nell'ambito|trovata nel contesto"
    r"|coperta)",
    "persona_unbound": r"(una?|un'|l') ?(ia|bot|assistente|chatbot|modello|personaggio) che (non rifiuta mai"
    r"|risponde a tutto|puo fare (tutto|qualsiasi cosa)|ignora (tutte )?(le|sue) (regole|filtri)"
    r"|non ha (regole|filtri|limiti))|(parla|parlami|rispondi|rispondimi) come (la mia|il mio|mia"
    r"|mio) (defunta|defunto|compianta|compianto|povera|povero) (nonna|nonno|madre|padre)|come (dan"
    r"|un'ia senza censura)\b[^.?!\n]{0,10}(rispondi|di|dimmi|spiega|scrivi)",
}
