"""The Portuguese words of an injection (folded: lower case, no accents); slots as in guard.lexicon."""

from __future__ import annotations

from guard.lexicon.slots import Lexicon

LEXICON: Lexicon = {
    "override_verbs": r"nao (preste|prestes) atencao a|ignore|ignora(r)?|ignorem|esqueca"
    r"|esquece(r)?"
    r"|esquecam|desconsidere"
    r"|desconsidera(r)?|nao (leve|leves) em (conta|consideracao)|descarte|descarta(r)?|pule"
    r"|deixe de (seguir|lado)|nao siga|pare de seguir|contorne|burle|ponha de lado|passe por cima"
    r"|passar por cima"
    r"|salte",
    "override_objects": r"(o seu|o teu|seu|teu|a sua) (papel|personagem|missao|identidade)|(todas "
    r"|as |suas |tuas |estas |minhas )?(\w+ )?(instrucoes|instrucao|regras"
    r"|normas|diretrizes|orientacoes|ordens|restricoes|limitacoes|pautas|configuracao|limites"
    r"|indicacoes|prompts?) (anteriores|previas|acima"
    r"|iniciais|originais|do sistema|recebidas|dadas)"
    r"|(suas|tuas|todas as|todas as suas) (\w+ )?(instrucoes|regras|normas|diretrizes|orientacoes"
    r"|restricoes|limitacoes|pautas|configuracao|limites|indicacoes)"
    r"|(tudo )?o que (foi dito|esta acima|precede|vem antes|te disseram)"
    # "esquece o que eu disse sobre o tamanho": the user takes back their own words.
    r"|tudo o que eu (te )?disse|o que eu (te )?disse (antes|acima|ate agora)"
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
    "policy_nouns": r"politicas?|regras|restricoes|filtros?|normas|seguranca|moderacao|censura"
    r"|limites"
    r"|protecoes",
    "policy_off": r"(esta|estao|foi|foram|fica|ficam) (agora )?(desativad|suspens|removid|anulad"
    r"|desabilitad|revogad)[oa]s?|nao (se aplica|se aplicam|esta mais ativ|estao mais ativ"
    r"|vale mais"
    r"|valem mais)",
    "new_orders": r"(novas?|outras?) (regras?|instrucoes?) para (este|esta|a|o) (chat|conversa"
    r"|sessao)|(novas?|verdadeiras?|reais) (instrucoes|instrucao|regras|tarefas?|ordens) ?:",
    "context_objects": r"(a|sua|tua|os|seus|teus) (base de conhecimentos?|documentos?|fontes"
    r"|trechos recuperados|contexto( recebido)?|faq|resultados de busca)",
    "own_knowledge": r"(responda|responde|responder)\w* (so |somente |apenas )?(de memoria"
    r"|com (seu|teu|o seu) (proprio )?conhecimento|com o que (voce )?sabe)|invente (uma"
    r"|a) (resposta|historia)",
    "persona_more": r"(voce vai|tu vais|vais) (fingir|fazer de conta|agir como|se comportar"
    r"|ser agora|interpretar)|(abandone|deixe|esqueca) (o seu|seu|o teu|teu) (personagem|papel"
    r"|persona)( atual)?",
    "extract_more": r"(o )?(paragrafo|texto|mensagem|conteudo|linhas|palavras) (que (vem|esta"
    r"|aparece) )?(antes da|anterior a|que precede a) (primeira|mensagem inicial)"
    r"|(o )?prompt (bruto|exato|completo|que (voce )?recebeu|recebido)",
    "void_subject": r"(tuas|as tuas) (\w+ )?(instrucoes|regras|diretrizes|orientacoes|restricoes|ordens"
    r"|normas)|(suas|as suas) (\w+ )?(instrucoes|diretrizes|orientacoes|restricoes|ordens"
    r"|configuracoes)|(as|todas as) (\w+ )?(instrucoes|regras|diretrizes|orientacoes|restricoes"
    r"|normas) (anteriores|iniciais|originais|de antes|acima|do sistema|que (voce )?recebeu)",
    "void_state": r"nao (importam|importa|contam|conta|valem|vale|se aplicam|se aplica) mais|ja nao"
    r" (importam|contam|valem|se aplicam)|(sao|e|estao|esta|ficam|fica) (agora )?(nulas?"
    r"|anuladas?|obsoletas?|invalidas?|revogadas?|canceladas?|sem efeito|irrelevantes)|(foram"
    r"|foi) (anuladas?|revogadas?|substituidas?|canceladas?|removidas?)|nao tem mais"
    r" (validade|importancia)",
    "status_words": r"(diga|dize|fala|responda|afirme|escreva|finja|confirme)( que)? [^.?!\n]{0,30}"
    r"(encontrou|achou|encontrei|encontrada|encontrado) [^.?!\n]{0,30}(no contexto|nos documentos"
    r"|na base de conhecimento|nas fontes)|(marque|classifique|rotule|marca) (isto|isso|esta"
    r" (pergunta|solicitacao)|minha pergunta|a pergunta) como (respondida|dentro do escopo"
    r"|encontrada no contexto|coberta)",
    "persona_unbound": r"(uma?|a|o) (ia|bot|assistente|chatbot|modelo|personagem) que (nunca recusa|nunca se"
    r" recusa|responde a tudo|pode fazer (tudo|qualquer coisa)|ignora (todas )?(as|suas) (regras"
    r"|normas|filtros)|nao tem (regras|filtros|limites))|(fala|fale|responda|responde) (comigo )?como"
    r" (a minha|o meu|minha|meu) (falecida|falecido|saudosa|saudoso|querida|querido) (avo|vovo|mae"
    r"|pai)|como (dan|uma ia sem censura)\b[^.?!\n]{0,10}(responda|diga|explique|escreva)",
}
