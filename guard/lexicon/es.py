"""The Spanish words of an injection (folded: lower case, no accents); slots as in guard.lexicon."""

from __future__ import annotations

from guard.lexicon.slots import Lexicon

LEXICON: Lexicon = {
    "override_verbs": r"no (prestes|preste) atencion a|ignora[rd]?|ignore[ns]?|olvida[rd]?"
    r"|olvide[ns]?|omite|omita[ns]?|omitir"
    r"|haz caso omiso|hagan? caso omiso|no (hagas|haga) caso|descarta[rd]?|deja de (seguir|lado)"
    r"|pasa por alto|no sigas|desobedece|deja a un lado|saltate|saltarse|saltese|pasa de"
    r"|no (tengas|tenga) en cuenta",
    "override_objects": r"(tu|su) (papel|rol|personaje|mision|identidad)|(todas? |tus |sus |las "
    r"|los |estas |mis )?(\w+ )?(instrucciones|instruccion"
    r"|reglas|normas|directrices|indicaciones|ordenes|restricciones|limitaciones|pautas"
    r"|orientaciones|configuracion|limites|prompts?) (anteriores"
    r"|previas|de arriba|iniciales|originales|del sistema|recibidas|que te (dieron|di))"
    r"|(tus|sus|todas las|todas tus) (\w+ )?(instrucciones|reglas|normas|directrices|indicaciones"
    r"|restricciones)"
    r"|(todo )?lo (anterior|de arriba|que (te )?(dijeron|precede|esta arriba|se dijo))"
    # "olvida lo que dije de la talla": the user takes back their own words (only "todo" is more).
    r"|todo lo que (te )?dije|lo que (te )?dije (antes|arriba|hasta ahora)"
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
    r"|(ia|asistente|modelo|chatbot|bot|version) sin (reglas|filtros?|restricciones|limites"
    r"|censura)"
    r"|no tienes (reglas|restricciones|limites|filtros)|libre de (todas? )?(tus )?(reglas"
    r"|restricciones)",
    "persona_weak": r"actua como|comportate como|modo desarrollador|sin (ninguna )?(regla"
    r"|restriccion|limite|filtro"
    r"|censura)s?|juego de rol",
    "policy_nouns": r"politicas?|reglas|restricciones|filtros?|normas|seguridad|moderacion|censura"
    r"|limites|protecciones",
    "policy_off": r"(esta|estan|ha sido|han sido|queda|quedan) (ahora )?(desactivad|suspendid"
    r"|levantad|eliminad|anulad|deshabilitad)[oa]s?|ya no (aplica|aplican|esta activ|estan activ"
    r"|rige"
    r"|rigen)",
    "new_orders": r"(nuevas?|otras?) (reglas?|normas?|instrucciones?) para (este|esta|la|el) (chat"
    r"|conversacion|sesion)|(nuevas?|verdaderas?|reales?) (instrucciones|instruccion|reglas"
    r"|tareas?|ordenes) ?:",
    "context_objects": r"(la|tu|su|los|tus|sus) (base de (conocimientos?|datos documental)"
    r"|documentos?|fuentes|pasajes recuperados|contexto( recibido)?|faq|resultados de busqueda)",
    "own_knowledge": r"(responde|responda|contesta|conteste)\w* (solo |solamente "
    r"|unicamente )?(de memoria|con (tu|su|tus|sus) (propios? )?conocimientos?|con lo que (sabes"
    r"|sepas))|inventa(te)? (una|la) (respuesta|historia)",
    "persona_more": r"vas a (fingir|hacer de|actuar como|comportarte|ser ahora|interpretar)"
    r"|(abandona|deja|olvida) (tu|su) (personaje|papel|rol|persona)( actual)?",
    "extract_more": r"(el )?(parrafo|texto|mensaje|contenido|lineas?|palabras) (que (va|viene|esta"
    r"|aparece) )?(antes del|previo al|que precede al) (primer|mensaje inicial)"
    r"|(el )?prompt (en bruto|exacto|completo|que recibiste|recibido)",
    "void_subject": r"tus (\w+ )?(instrucciones|indicaciones|directrices|normas|reglas|restricciones"
    r"|ordenes|limites)|sus (\w+ )?(instrucciones|indicaciones|directrices|restricciones|ordenes)"
    r"|(las|todas las) (\w+ )?(instrucciones|indicaciones|directrices|normas|reglas|restricciones"
    r"|ordenes) (anteriores|previas|iniciales|originales|de antes|de arriba|del sistema|que (te"
    r" dieron|recibiste))|tu configuracion( inicial| original)?",
    "void_state": r"ya no (importan|importa|cuentan|cuenta|valen|vale|aplican|aplica|se aplican|se aplica"
    r"|son validas|estan vigentes|tienen validez)|(son|es|quedan|queda|estan|esta) (ahora )?(nulas?"
    r"|anuladas?|obsoletas?|invalidas?|revocadas?|canceladas?|sin efecto|irrelevantes|derogadas?)"
    r"|(han sido|ha sido|fueron|fue) (anuladas?|revocadas?|reemplazadas?|sustituidas?|canceladas?"
    r"|eliminadas?|derogadas?)|no tienen (ya )?(validez|importancia)",
    "status_words": r"(di|diga|decid|responde|responda|afirma|afirme|escribe|escriba|finge|asegura)( que)?"
    r" [^.?!\n]{0,30}(encontraste|has encontrado|encontre|encontro|hallaste|esta) [^.?!\n]{0,30}en"
    r" (el contexto|los documentos|la base de conocimientos?|tus fuentes|las fuentes)|(marca|marque"
    r"|clasifica|clasifique|etiqueta|etiquete) (esto|esta (pregunta|consulta)|mi pregunta|la"
    r" pregunta) como (respondida|dentro del alcance|encontrada en el contexto|cubierta)",
    "persona_unbound": r"(una?|la|el) (ia|bot|asistente|chatbot|modelo|personaje) que (nunca se niega|nunca"
    r" rechaza|responde a todo|puede hacer (cualquier cosa|todo)|ignora (todas )?(las|sus) (reglas"
    r"|normas|filtros)|no tiene (reglas|filtros|limites))|(habla|hablame|responde|respondeme) como"
    r" (mi|si fueras mi) (difunta|difunto|fallecida|fallecido|querida|querido) (abuela|abuelo|madre"
    r"|padre)|como (dan|una ia sin censura)\b[^.?!\n]{0,10}(responde|di|explica|escribe)",
}
