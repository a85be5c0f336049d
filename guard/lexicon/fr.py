"""The French words of an injection (folded: lower case, no accents); slots as in guard.lexicon."""

from __future__ import annotations

from guard.lexicon.slots import Lexicon

LEXICON: Lexicon = {
    "override_verbs": r"ne (prete|pretez) (aucune|pas|plus) attention a|ignore[rsz]?|oublie[rsz]?"
    r"|ne (tiens|tenez|tient) (pas|plus) compte"
    r"|(fais|faites) abstraction|contourne[rsz]?|passe[rz]? outre|outrepasse[rsz]?"
    r"|laisse[rsz]? tomber"
    r"|ne (suis|suivez) plus|abandonne[rsz]?|efface[rsz]?|mets? de cote|mettez de cote|ecarte[sz]?"
    r"|neglige[sz]?",
    "override_objects": r"(ton|votre|ta) (role|personnage|mission|identite)|(toutes? |tes |vos "
    r"|les "
    r"|ces |mes )?(\w+ )?(instructions?|consignes?|regles"
    r"|directives|prompts?|restrictions|limites|contraintes|indications|orientations|parametres"
    r"|reglages|ordres) (precedentes?|anterieures?"
    r"|initiales?"
    r"|ci-dessus|d'origine|originales?|systeme|donnees|recues)"
    r"|(tes|vos|toutes? les|toutes? tes|toutes? vos) (\w+ )?(instructions?|consignes?|regles"
    r"|directives"
    r"|restrictions|limites|contraintes|indications|orientations|parametres|reglages)"
    r"|(tout )?ce qui (precede|a ete dit|est au-dessus|est ecrit au-dessus)"
    r"|(tout )?ce (que|qu'on) (t'a|on t'a|vous a|l'on t'a) (dit|ecrit|donne)"
    # "oublie ce que je t'ai dit sur la couleur": the user takes back their own words.
    r"|tout ce que je (t'ai|vous ai) (dit|ecrit)|ce que je (t'ai|vous ai) (dit|ecrit) (avant"
    r"|plus haut|precedemment|jusqu'ici)"
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
    "extract_verbs": r"affiche[rsz]?|repete[rsz]?|tradui[rstz]e?|traduisez|resume[rsz]?"
    r"|recopie[rsz]?"
    r"|revele[rsz]?|donne[rsz]?(-moi)?|montre[rsz]?(-moi)?|ecris|ecrivez|imprime[rsz]?|cite[rsz]?"
    r"|dis(-moi)?|dites(-moi)?|liste[rsz]?|reproduis(ez)?|partage[rsz]?",
    "extract_objects": r"(tout )?ce qui (precede|est (ecrit )?(au-dessus|plus haut|avant)"
    r"|se trouve avant)"
    r"|(le |du )?texte (ci-dessus|au-dessus(?! (du|de la|des|de l') ?(?!(message|texte|question"
    r"|conversation|prompt)\b)\w+)|precedent|qui precede|plus haut)"
    r"|(les )?mots (ci-dessus|au-dessus|precedents|qui precedent)"
    r"|(tes|vos) (instructions|consignes|regles|directives)( (initiales|systeme|cachees))?"
    r"|(le |ton |votre )?prompt( systeme| initial)?"
    r"|(les )?(instructions|consignes) (initiales|systeme|cachees|secretes|d'origine)"
    r"|tout ce (qu'on t'a|que l'on t'a|qui t'a ete) (dit|donne|ecrit)",
    "persona": r"imagine[sz]? (que tu es|etre|que vous etes) (une?|le|la) (\w+ )?(ia|modele"
    r"|assistant|chatbot|bot)|je (veux|voudrais|souhaite) que (tu|vous) (agisses|agissiez|sois"
    r"|soyez|joues|jouiez"
    r"|fasses semblant|te comportes|incarnes|deviennes|repondes)"
    # "faites comme si j'étais débutant": the user casts themself, not the bot.
    r"|fai(s|tes) (comme si(?! (j'|je |nous |on |mon |ma |mes ))|semblant)"
    r"|(desormais|dorenavant|a partir de maintenant|a partir d'aujourd'hui),? (tu|vous|reponds|agis"
    r"|ton)"
    r"|tu es (desormais|maintenant|a present) |tu n'es plus|joue[sz]? le role|incarne[sz]? (un|une"
    r"|le|la) "
    r"|mode (dieu|sans (filtre|restriction|limite)s?)"
    r"|(ia|assistant|modele|chatbot|bot|version) (sans (regles|filtres?|restrictions|limites"
    r"|censure)"
    r"|non (filtre|censure|bride)e?|debride)"
    r"|tu n'as (plus )?(aucune|pas de) (regle|restriction|limite|filtre)s?"
    r"|libere de (toutes? )?(tes )?(regles|restrictions|contraintes)",
    "persona_weak": r"agis comme|comporte-toi comme|mode (developpeur|debug)|sans (aucune )?(regle"
    r"|restriction|limite|filtre"
    r"|censure)s?|jeu de role",
    "policy_nouns": r"politique|regles|restrictions|filtres?|garde-fous|consignes|securite"
    r"|moderation"
    r"|censure|limites|protections",
    "policy_off": r"(est|sont|a ete|ont ete) (maintenant |desormais )?(desactive|suspendu|leve"
    r"|supprime"
    r"|annule|coupe)(e|es|s)?|ne s'applique(nt)? plus|n'(est|sont) plus (actif|active|en vigueur"
    r"|valable)s?",
    "new_orders": r"(nouvelles?|autres?) (regles?|consignes?|instructions?) pour (cette"
    r"|la) (conversation|discussion|session)|(nouvelles?|vraies?|veritables?"
    r"|nouveaux) (instructions?|consignes?|regles|directives"
    r"|taches?|ordres) ?:",
    "context_objects": r"(la|ta|votre|les|tes|vos) (base (de connaissances|documentaire)"
    r"|documents?|sources|passages (recuperes|fournis)|contexte( fourni)?|faq"
    r"|resultats de recherche)",
    "own_knowledge": r"(reponds?|repondez|reponse) (uniquement |seulement )?(de memoire|avec (tes"
    r"|vos) (propres )?connaissances|selon (tes|vos) connaissances)|invente[sz]? (une|la) (reponse"
    r"|histoire)",
    "persona_more": r"(tu vas|vous allez) (faire semblant|jouer|te comporter|vous comporter"
    r"|incarner|etre desormais)|(abandonne[sz]?|quitte[sz]?|laisse[sz]? tomber) (ton"
    r"|votre) (personnage|role|persona)",
    "extract_more": r"(le )?(paragraphe|texte|message|contenu|lignes?|mots) (juste |qui (se trouve"
    r"|vient) )?(precede|avant|qui precede(nt)?) (le|mon|ton|votre) (tout )?premier"
    r"|(le )?prompt (brut|exact|complet|recu)",
    "void_subject": r"(tes|vos|toutes tes|toutes vos) (\w+ )?(instructions?|consignes?|regles|directives"
    r"|restrictions|limites|contraintes|indications|parametres|ordres)|(les|ces|toutes les) (\w+ )?"
    r"(instructions?|consignes?|regles|directives|restrictions|indications|ordres) (precedentes"
    r"|anterieures|initiales|d'origine|de depart|du systeme|systeme|ci-dessus|d'avant|qu'on t'a"
    r" donnees)|(ta|votre) (configuration|programmation)( (initiale|d'origine|de depart))?",
    "void_state": r"ne (comptent|compte|valent|vaut|s'appliquent|s'applique) plus|n'ont plus"
    r" (d'importance|cours|lieu d'etre)|(sont|est) (desormais |maintenant |donc )?(caduques?"
    r"|nulles?|obsoletes?|annulee?s?|revoquee?s?|perimee?s?|abrogee?s?|invalides?|sans objet)"
    r"|(ont ete|a ete) (annulee?s?|revoquee?s?|remplacee?s?|abrogee?s?|levee?s?|supprimee?s?)",
    "status_words": r"(dis|dites|reponds|repondez|affirme|affirmez|indique|indiquez|pretends|pretendez"
    r"|fais croire|ecris|ecrivez)( que)? [^.?!\n]{0,30}(trouve|trouvee|trouvees|trouves)"
    r" [^.?!\n]{0,30}(dans|a partir) (le contexte|du contexte|les documents|des documents|la base"
    r"|tes sources|vos sources)|(marque|marquez|classe|classez|note|notez|etiquette|etiquetez)"
    r" (ceci|cela|ca|ma question|cette (question|demande)|la question) comme (repondue?|dans le"
    r" perimetre|trouvee? dans le contexte|couverte?)",
    "persona_unbound": r"(une?|l') (ia|bot|assistant|chatbot|modele|personnage) (qui ne refuse jamais|qui peut"
    r" tout (faire|dire)|qui repond a tout|qui ignore (toutes )?(les|ses) (regles|filtres)|capable"
    r" de tout)|(parle|parlez|reponds|repondez)(-moi)? comme (ma|mon) (defunte?|feue?|regrettee?"
    r"|decedee?) (grand-mere|grand-pere|mere|pere|mamie|papi)|en tant que (dan|ia (non censuree|sans"
    r" filtre))",
}
