/* Parley chat widget: <script src=".../static/widget/widget.js" data-bot-key="ppk_..." async></script>
 * Plain JavaScript in a Shadow DOM. It talks only to Parley's public API with the publishable key;
 * every text from the visitor, the bot, documents or agents is put in the page with textContent. */
(() => {
  "use strict";
  const script = document.currentScript || document.querySelector("script[data-bot-key]");
  if (!script || window.__parleyWidget) return;
  window.__parleyWidget = true;
  const KEY = script.dataset.botKey;
  const API = new URL(script.src, location.href).origin + "/api/v1";
  const STORE = "parley:" + KEY;
  // The browser's own visitor id (random, first-party, in this site's storage): it ties this
  // browser's conversations together for a privacy request. It proves nothing: every read and the
  // "Forget me" erasure go by the session tokens kept beside it.
  const VISITOR = "parley-visitor:" + KEY, TOKENS = "parley-sessions:" + KEY;
  const STRINGS = {
    en: { open: "Open chat", hide: "Hide chat", close: "Close chat", send: "Send", placeholder: "Type your question…",
      human: "Talk to a human", searching: "Searching…", writing: "Writing…", thinking: "Thinking…",
      waiting: "Waiting for an agent…", agentJoined: "An agent joined the chat.", joined: "{name} joined the chat.", backToBot: "You are chatting with the assistant again.",
      resolved: "This conversation is closed.", typing: "typing…", sources: "Sources", source: "Source", why: "Why this answer",
      understanding: "Understanding", confidence: "Confidence", used: "Documents used", quoted: "Quoted from it:", helpful: "Helpful",
      notHelpful: "Not helpful", reasonsTitle: "What was wrong?", wrong: "Wrong", incomplete: "Incomplete",
      not_what_i_asked: "Not what I asked", offensive: "Offensive", submit: "Send feedback", thanks: "Thanks for your feedback.",
      error: "Something went wrong. Please try again.", page: "page", you: "You", agent: "Agent", log: "Conversation",
      closePreview: "Close the source", noAgent: "No agent is available – leave a message", left: "Thank you, your message was sent. We will answer you here.",
      count: "{n} / {max} characters", tooLong: "Your message has {n} characters; the limit is {max}. Shorten it to send it.",
      refused: "Your message was not sent: {reason}",
      forget: "Forget me", forgetConfirm: "Erase your conversations with us from our records? This cannot be undone.", forgotten: "Your conversations were erased." },
    fr: { open: "Ouvrir le chat", hide: "Masquer le chat", close: "Fermer le chat", send: "Envoyer", placeholder: "Posez votre question…",
      human: "Parler à un humain", searching: "Recherche…", writing: "Rédaction…", thinking: "Réflexion…",
      waiting: "En attente d'un conseiller…", agentJoined: "Un conseiller a rejoint la conversation.", joined: "{name} a rejoint la conversation.",
      backToBot: "Vous discutez de nouveau avec l'assistant.", resolved: "Cette conversation est terminée.",
      typing: "écrit…", sources: "Sources", source: "Source", why: "Pourquoi cette réponse", understanding: "Compréhension",
      confidence: "Confiance", used: "Documents utilisés", quoted: "Passages cités :", helpful: "Utile", notHelpful: "Pas utile",
      reasonsTitle: "Qu'est-ce qui n'allait pas ?", wrong: "Faux", incomplete: "Incomplet",
      not_what_i_asked: "Hors sujet", offensive: "Offensant", submit: "Envoyer l'avis", thanks: "Merci pour votre avis.",
      error: "Une erreur est survenue. Réessayez.", page: "page", you: "Vous", agent: "Conseiller", log: "Conversation",
      closePreview: "Fermer la source", noAgent: "Aucun conseiller disponible – laissez un message",
      left: "Merci, votre message a été envoyé. Nous vous répondrons ici.",
      count: "{n} / {max} caractères", tooLong: "Votre message compte {n} caractères ; la limite est de {max}. Raccourcissez-le pour l'envoyer.",
      refused: "Votre message n'a pas été envoyé : {reason}",
      forget: "Oublier mes données", forgetConfirm: "Effacer vos conversations avec nous de nos systèmes ? C'est définitif.", forgotten: "Vos conversations ont été effacées." },
    de: { open: "Chat öffnen", hide: "Chat ausblenden", close: "Chat schließen", send: "Senden", placeholder: "Ihre Frage…",
      human: "Mit einem Menschen sprechen", searching: "Suche…", writing: "Schreibt…", thinking: "Denkt nach…",
      waiting: "Warten auf einen Mitarbeiter…", agentJoined: "Ein Mitarbeiter ist dem Chat beigetreten.", joined: "{name} ist dem Chat beigetreten.",
      backToBot: "Sie chatten wieder mit dem Assistenten.", resolved: "Dieses Gespräch ist beendet.",
      typing: "schreibt…", sources: "Quellen", source: "Quelle", why: "Warum diese Antwort", understanding: "Verständnis",
      confidence: "Sicherheit", used: "Verwendete Dokumente", quoted: "Daraus zitiert:", helpful: "Hilfreich", notHelpful: "Nicht hilfreich",
      reasonsTitle: "Was war falsch?", wrong: "Falsch", incomplete: "Unvollständig",
      not_what_i_asked: "Nicht meine Frage", offensive: "Anstößig", submit: "Feedback senden", thanks: "Danke für Ihr Feedback.",
      error: "Etwas ist schiefgelaufen. Bitte versuchen Sie es erneut.", page: "Seite", you: "Sie", agent: "Mitarbeiter", log: "Gespräch",
      closePreview: "Quelle schließen", noAgent: "Kein Mitarbeiter verfügbar – hinterlassen Sie eine Nachricht",
      left: "Danke, Ihre Nachricht wurde gesendet. Wir antworten Ihnen hier.",
      count: "{n} / {max} Zeichen", tooLong: "Ihre Nachricht hat {n} Zeichen; erlaubt sind {max}. Kürzen Sie sie, um sie zu senden.",
      refused: "Ihre Nachricht wurde nicht gesendet: {reason}",
      forget: "Meine Daten löschen", forgetConfirm: "Ihre Gespräche mit uns endgültig löschen?", forgotten: "Ihre Gespräche wurden gelöscht." },
    es: { open: "Abrir el chat", hide: "Ocultar el chat", close: "Cerrar el chat", send: "Enviar", placeholder: "Escriba su pregunta…",
      human: "Hablar con una persona", searching: "Buscando…", writing: "Escribiendo…", thinking: "Pensando…",
      waiting: "Esperando a un agente…", agentJoined: "Un agente se ha unido al chat.", joined: "{name} se ha unido al chat.",
      backToBot: "Vuelve a hablar con el asistente.", resolved: "Esta conversación está cerrada.",
      typing: "escribiendo…", sources: "Fuentes", source: "Fuente", why: "Por qué esta respuesta", understanding: "Comprensión",
      confidence: "Confianza", used: "Documentos utilizados", quoted: "Citado del documento:", helpful: "Útil", notHelpful: "No útil",
      reasonsTitle: "¿Qué estaba mal?", wrong: "Incorrecta", incomplete: "Incompleta",
      not_what_i_asked: "No es lo que pregunté", offensive: "Ofensiva", submit: "Enviar opinión", thanks: "Gracias por su opinión.",
      error: "Algo salió mal. Inténtelo de nuevo.", page: "página", you: "Usted", agent: "Agente", log: "Conversación",
      closePreview: "Cerrar la fuente", noAgent: "No hay ningún agente disponible – deje un mensaje",
      left: "Gracias, su mensaje se ha enviado. Le responderemos aquí.",
      count: "{n} / {max} caracteres", tooLong: "Su mensaje tiene {n} caracteres; el límite es {max}. Acórtelo para enviarlo.",
      refused: "Su mensaje no se ha enviado: {reason}",
      forget: "Olvidarme", forgetConfirm: "¿Borrar sus conversaciones con nosotros? No se puede deshacer.", forgotten: "Sus conversaciones se han borrado." },
    it: { open: "Apri la chat", hide: "Nascondi la chat", close: "Chiudi la chat", send: "Invia", placeholder: "Scriva la sua domanda…",
      human: "Parla con una persona", searching: "Ricerca…", writing: "Sta scrivendo…", thinking: "Sta pensando…",
      waiting: "In attesa di un operatore…", agentJoined: "Un operatore si è unito alla chat.", joined: "{name} si è unito alla chat.",
      backToBot: "Sta di nuovo parlando con l'assistente.", resolved: "Questa conversazione è chiusa.",
      typing: "sta scrivendo…", sources: "Fonti", source: "Fonte", why: "Perché questa risposta", understanding: "Comprensione",
      confidence: "Affidabilità", used: "Documenti usati", quoted: "Citato dal documento:", helpful: "Utile", notHelpful: "Non utile",
      reasonsTitle: "Che cosa non andava?", wrong: "Sbagliata", incomplete: "Incompleta",
      not_what_i_asked: "Non è ciò che ho chiesto", offensive: "Offensiva", submit: "Invia il parere", thanks: "Grazie per il suo parere.",
      error: "Qualcosa è andato storto. Riprovi.", page: "pagina", you: "Lei", agent: "Operatore", log: "Conversazione",
      closePreview: "Chiudi la fonte", noAgent: "Nessun operatore disponibile – lasci un messaggio",
      left: "Grazie, il suo messaggio è stato inviato. Le risponderemo qui.",
      count: "{n} / {max} caratteri", tooLong: "Il suo messaggio ha {n} caratteri; il limite è {max}. Lo accorci per inviarlo.",
      refused: "Il suo messaggio non è stato inviato: {reason}",
      forget: "Dimentica i miei dati", forgetConfirm: "Cancellare le sue conversazioni con noi? Non si può annullare.", forgotten: "Le sue conversazioni sono state cancellate." },
    pt: { open: "Abrir o chat", hide: "Ocultar o chat", close: "Fechar o chat", send: "Enviar", placeholder: "Escreva a sua pergunta…",
      human: "Falar com uma pessoa", searching: "Pesquisando…", writing: "Escrevendo…", thinking: "Pensando…",
      waiting: "Aguardando um atendente…", agentJoined: "Um atendente entrou no chat.", joined: "{name} entrou no chat.",
      backToBot: "Voltou a conversar com o assistente.", resolved: "Esta conversa foi encerrada.",
      typing: "digitando…", sources: "Fontes", source: "Fonte", why: "Por que esta resposta", understanding: "Compreensão",
      confidence: "Confiança", used: "Documentos usados", quoted: "Citado do documento:", helpful: "Útil", notHelpful: "Não foi útil",
      reasonsTitle: "O que estava errado?", wrong: "Errada", incomplete: "Incompleta",
      not_what_i_asked: "Não foi o que perguntei", offensive: "Ofensiva", submit: "Enviar avaliação", thanks: "Obrigado pela sua avaliação.",
      error: "Algo deu errado. Tente novamente.", page: "página", you: "Você", agent: "Atendente", log: "Conversa",
      closePreview: "Fechar a fonte", noAgent: "Nenhum atendente disponível – deixe uma mensagem",
      left: "Obrigado, a sua mensagem foi enviada. Responderemos aqui.",
      count: "{n} / {max} caracteres", tooLong: "A sua mensagem tem {n} caracteres; o limite é {max}. Encurte-a para enviá-la.",
      refused: "A sua mensagem não foi enviada: {reason}",
      forget: "Esquecer-me", forgetConfirm: "Apagar as suas conversas connosco? Não pode ser desfeito.", forgotten: "As suas conversas foram apagadas." },
  };
  const PHASES = { SEARCH_PREPARATION: "searching", RETRIEVAL: "searching", RERANKING: "searching", COMPILING_RESULTS: "thinking" };
  let cfg = null, t = STRINGS.en, lang = "en", session = load(), owner = "bot", eventsAbort = null;
  // The server's limit on a message (widget/config says it; this until it has).
  let maxChars = 4000;
  // The open handoff as the visitor sees it: since when it waits, whether nobody came, whether a message was left.
  let wait = null, ticker = null, opener = null;
  const shown = new Set();  // the turns whose answer is on screen: a live event never draws one twice
  // Inline SVG icons (24×24, stroked): no emoji, which render as empty boxes without an emoji font.
  const ICONS = {
    chat: "M4 5h16v11H9l-5 4z", down: "M6 9l6 6 6-6", close: "M6 6l12 12M18 6L6 18", send: "M4 12l16-8-6 16-2-7z",
    up: "M7 11v9H4v-9zm0 0l4-7c1.5 0 2.5 1 2.5 2.5V9H19a1.5 1.5 0 0 1 1.5 1.8l-1.5 7.7a2 2 0 0 1-2 1.5H7",
    clock: "M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18zm0 4v5l3 2", check: "M5 12l5 5 9-10",
  };
  function icon(name, flip) {
    const NS = "http://www.w3.org/2000/svg", svg = document.createElementNS(NS, "svg"), path = document.createElementNS(NS, "path");
    for (const [k, v] of Object.entries({ viewBox: "0 0 24 24", width: "20", height: "20", fill: "none", stroke: "currentColor",
      "stroke-width": "2", "stroke-linecap": "round", "stroke-linejoin": "round", "aria-hidden": "true", focusable: "false" })) svg.setAttribute(k, v);
    if (flip) svg.setAttribute("transform", "rotate(180)");
    path.setAttribute("d", ICONS[name]); svg.append(path);
    return svg;
  }

  function load() { try { return JSON.parse(localStorage.getItem(STORE)) || null; } catch { return null; } }
  function visitorId() {
    let id = localStorage.getItem(VISITOR);
    if (!id) { id = "wv_" + crypto.randomUUID().replaceAll("-", ""); localStorage.setItem(VISITOR, id); }
    return id;
  }
  function tokens() { try { return JSON.parse(localStorage.getItem(TOKENS)) || []; } catch { return []; } }
  function save() { localStorage.setItem(STORE, JSON.stringify(session)); }
  function el(tag, attrs, ...kids) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") node.className = v; else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v === true ? "" : v);
    }
    for (const kid of kids) if (kid !== null && kid !== undefined) node.append(kid);
    return node;
  }
  function headers(extra) {
    // The widget's language: the server words its refusals (a message too long…) in it.
    const h = { Authorization: "Bearer " + KEY, "Accept-Language": lang, ...extra };
    if (session) h["X-Parley-Session"] = session.session_token;
    return h;
  }
  async function api(path, opts = {}) {
    const res = await fetch(API + path, { ...opts, headers: headers({ "Content-Type": "application/json", ...(opts.headers || {}) }) });
    if (!res.ok && res.status !== 202) throw await refusal(res);
    return res.status === 204 ? null : res.json();
  }
  // An error response as an Error whose message is the server's reason: the first field error of a
  // refused request (in the widget's language), else the API's message ({"code", "message", "extra"}).
  async function refusal(res) {
    let body = {};
    try { body = await res.json(); } catch { /* not the API's JSON: the status says it */ }
    const fields = (body.extra && body.extra.fields) || {};
    const first = Object.values(fields).flat()[0];
    return Object.assign(new Error(first || body.message || "HTTP " + res.status), { status: res.status, code: body.code, refused: true });
  }
  function fmt(template, values) { return template.replace(/\{(\w+)\}/g, (_, k) => values[k]); }

  /* --- SSE over fetch (the key travels in a header, which EventSource cannot send) --- */
  // `pieces` outlives one connection: a stream resumed mid-way through a split event sends its remaining pieces.
  async function readSSE(res, onEvent, signal, pieces = {}) {
    const reader = res.body.getReader(), decoder = new TextDecoder();
    let buf = "", ev = { event: "message", data: [], id: null };
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += decoder.decode(value, { stream: true });
      let nl;
      while ((nl = buf.search(/\r?\n/)) >= 0) {
        const line = buf.slice(0, nl); buf = buf.slice(nl + (buf[nl] === "\r" ? 2 : 1));
        if (line === "") {
          if (ev.data.length) dispatch(ev, pieces, onEvent);
          ev = { event: "message", data: [], id: null };
        } else if (!line.startsWith(":")) {
          const i = line.indexOf(":"), field = i < 0 ? line : line.slice(0, i);
          const val = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
          if (field === "data") ev.data.push(val); else if (field === "event") ev.event = val; else if (field === "id") ev.id = val;
        }
      }
      if (signal && signal.aborted) return;
    }
  }
  function dispatch(ev, pieces, onEvent) {
    let data; try { data = JSON.parse(ev.data.join("\n")); } catch { return; }
    if (ev.event.endsWith("_delta_sse")) {  // a big event split in pieces: join them, then parse
      const name = ev.event.slice(0, -10);
      if (data.seq === 0) pieces[name] = [];
      (pieces[name] = pieces[name] || [])[data.seq] = data.chunk;
      onEvent({ id: ev.id, event: "_piece" });
      if (data.seq === data.total - 1) {
        const joined = pieces[name].join(""); delete pieces[name];
        onEvent({ id: ev.id, event: name, data: JSON.parse(joined) });
      }
      return;
    }
    onEvent({ id: ev.id, event: ev.event, data });
  }

  /* --- Safe Markdown: DOM nodes and textContent only, links limited to http(s) --- */
  function inline(text, parent, cites) {
    const re = /(\*\*[^*]+\*\*|\*[^*\s][^*]*\*|`[^`]+`|\[\d+\](?!\()|\[[^\]]+\]\((https?:\/\/[^)\s]+)\))/g;
    let last = 0, m;
    while ((m = re.exec(text))) {
      parent.append(text.slice(last, m.index));
      const s = m[0];
      if (s.startsWith("**")) parent.append(el("strong", {}, s.slice(2, -2)));
      else if (s.startsWith("`")) parent.append(el("code", {}, s.slice(1, -1)));
      else if (s.startsWith("*")) parent.append(el("em", {}, s.slice(1, -1)));
      else if (/^\[\d+\]$/.test(s)) {
        const n = Number(s.slice(1, -1)), c = cites && cites.find((x) => x.n === n);
        const mark = c && el("button", { class: "cite mark", type: "button", "data-n": n, "aria-label": `${t.source} ${n}: ${c.title || ""}` }, String(n));
        if (mark) {
          mark.addEventListener("click", () => showCitation(c, mark));
          // Focus (Tab) points at the source without moving focus into the preview: its chip lights up.
          const light = (on) => mark.closest(".msg")?.querySelectorAll(`.tools .cite[data-n="${n}"]`).forEach((b) => b.classList.toggle("hint", on));
          mark.addEventListener("focus", () => light(true)); mark.addEventListener("blur", () => light(false));
        }
        parent.append(mark || s);
      } else {
        const label = s.slice(1, s.indexOf("]("));
        parent.append(el("a", { href: m[2], target: "_blank", rel: "noopener noreferrer" }, label));
      }
      last = m.index + s.length;
    }
    parent.append(text.slice(last));
  }
  const cells = (line) => line.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((x) => x.trim());
  function markdown(src, cites) {
    const root = el("div", { class: "md" });
    let list = null, table = null;
    for (const block of String(src || "").split(/\n/)) {
      const item = block.match(/^\s*(?:[-*]|\d+\.)\s+(.*)$/), head = block.match(/^\s*#{1,6}\s+(.*)$/);
      if (/^\s*\|.*\|\s*$/.test(block)) {  // a Markdown table row; the |---| line makes the row above it a header
        list = null;
        if (/^[\s|:-]+$/.test(block)) { table?.querySelectorAll("td").forEach((td) => td.replaceWith(el("th", { scope: "col" }, ...td.childNodes))); continue; }
        if (!table) { table = el("table"); root.append(el("div", { class: "table" }, table)); }
        const tr = el("tr"); for (const cell of cells(block)) { const td = el("td"); inline(cell, td, cites); tr.append(td); }
        table.append(tr); continue;
      }
      table = null;
      if (item) {
        if (!list) { list = el(/^\s*\d/.test(block) ? "ol" : "ul"); root.append(list); }
        const li = el("li"); inline(item[1], li, cites); list.append(li);
      } else if (block.trim()) {
        list = null; const p = el("p"); inline(head ? head[1] : block, head ? p.appendChild(el("strong")) : p, cites); root.append(p);
      } else list = null;
    }
    return root;
  }
  // [n] after the first sentence of the answer that source n is quoted for (not inside a table row, whose
  // pipes it would break); a source none of whose quotes the answer shows verbatim gets only its chip.
  function marked(answer, cites, usage) {
    let text = String(answer || "");
    if (/\[\d+\](?!\()/.test(text)) return text;  // the answer brings its own markers
    for (const c of cites || []) {
      const u = (usage || []).find((x) => x.chunk === c.chunk_id && x.used_in_response);
      for (const quote of (u && u.sentences) || []) {
        const at = quote ? text.indexOf(quote) : -1;
        if (at < 0) continue;
        const end = at + quote.length, line = text.slice(text.lastIndexOf("\n", at) + 1);
        if (!/^\s*\|/.test(line)) { text = text.slice(0, end) + ` [${c.n}]` + text.slice(end); break; }
      }
    }
    return text;
  }

  /* --- UI --- */
  const host = el("div", { "data-parley-widget": "" });
  const root = host.attachShadow({ mode: "open" });
  const style = el("style");
  // A host page whose CSP admits this script by nonce admits the widget's own styles the same way.
  if (script.nonce) style.nonce = script.nonce;
  const launcher = el("button", { class: "launcher", type: "button", "aria-expanded": "false", "aria-controls": "parley-panel" });
  const title = el("h2", { id: "parley-title" });
  const closeBtn = el("button", { class: "close", type: "button" }, icon("close"));
  // One live region: the handoff's state (banner) and what the bot is doing (activity).
  const banner = el("span", { class: "banner" }), activity = el("span", { class: "activity" });
  const status = el("p", { class: "status", role: "status", "aria-live": "polite" }, banner, activity);
  const log = el("div", { class: "log", role: "log", "aria-live": "polite", tabindex: "0" });
  const typing = el("p", { class: "typing", hidden: true });
  const input = el("textarea", { rows: "2", id: "parley-input" });
  const sendBtn = el("button", { class: "send", type: "submit" });
  // Near the limit, how many characters are left; past it, why the message cannot be sent.
  const counter = el("p", { class: "count", id: "parley-count", "aria-live": "polite", hidden: true });
  const humanBtn = el("button", { class: "human", type: "button", hidden: true });
  const forgetBtn = el("button", { class: "forget", type: "button" });
  const previewTitle = el("strong", { id: "parley-preview-title" }), previewClose = el("button", { class: "pclose", type: "button" }, icon("close"));
  const previewBody = el("div", { class: "pbody" });
  // A drawer over the lower part of the conversation: the log keeps its size behind it, the composer stays usable.
  const preview = el("div", { class: "preview", role: "region", "aria-labelledby": "parley-preview-title", hidden: true, tabindex: "-1" },
    el("div", { class: "phead" }, previewTitle, previewClose), previewBody);
  const form = el("form", { class: "composer" }, el("label", { for: "parley-input", class: "sr" }), input, sendBtn);
  const panel = el("div", { id: "parley-panel", class: "panel", role: "dialog", "aria-labelledby": "parley-title", hidden: true },
    el("header", {}, title, closeBtn), status, el("div", { class: "main" }, log, preview), typing, humanBtn, counter, form, forgetBtn);
  root.append(style, launcher, panel);

  function css(c) {
    return `:host{all:initial}*{box-sizing:border-box;font-family:system-ui,sans-serif}
.launcher{position:fixed;bottom:20px;${c.position}:20px;width:56px;height:56px;border-radius:50%;border:0;background:${c.primary_color};color:${c.text_color};cursor:pointer;box-shadow:0 4px 14px #0003;z-index:2147483646;display:grid;place-items:center}.launcher svg{width:26px;height:26px}
svg{display:block;flex:none}button{display:inline-flex;align-items:center;gap:4px}[hidden]{display:none!important}.tools svg{width:16px;height:16px}.rate{display:flex;gap:4px;margin-left:auto}
.panel{position:fixed;bottom:88px;${c.position}:20px;width:min(380px,calc(100vw - 40px));height:min(560px,calc(100vh - 120px));display:flex;flex-direction:column;background:#fff;color:#1b1b1f;border-radius:12px;box-shadow:0 8px 30px #0004;z-index:2147483647;font-size:15px;line-height:1.4;transition:opacity .2s}
.panel[hidden]{display:none}header{display:flex;align-items:center;gap:8px;padding:12px 14px;background:${c.primary_color};color:${c.text_color};border-radius:12px 12px 0 0}
header img{width:28px;height:28px;border-radius:50%}h2{flex:1;margin:0;font-size:16px}.close,.pclose{background:none;border:0;color:inherit;cursor:pointer;padding:4px;border-radius:6px}
.status{margin:0;padding:4px 14px;font-size:13px;color:#555;min-height:1.4em}.banner:not(:empty){display:flex;gap:6px;align-items:center;margin:2px 0;padding:6px 10px;border-radius:8px;background:#fff7e0;color:#5b4200;font-weight:600}.banner.left{background:#e6f4ea;color:#14532d}.log{flex:1;overflow-y:auto;padding:8px 14px}
.msg{margin:8px 0;padding:8px 11px;border-radius:10px;max-width:88%;word-wrap:break-word}.visitor{margin-left:auto;background:${c.primary_color};color:${c.text_color}}
.bot,.agent{background:#f0f1f4}.agent{border-left:3px solid ${c.primary_color}}.system{background:#fff7e0;font-size:13px;max-width:100%}
.who{display:block;font-size:12px;opacity:.75}.md p{margin:0 0 6px}.table{overflow-x:auto;margin:0 0 6px}table{border-collapse:collapse;font-size:13px}th,td{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top}th{background:#0000000d}.md ul,.md ol{margin:0 0 6px;padding-left:20px}code{background:#0001;padding:0 3px;border-radius:3px}
.cite{border:1px solid ${c.primary_color};background:#fff;color:${c.primary_color};border-radius:10px;font-size:11px;padding:0 5px;margin:0 1px;cursor:pointer;vertical-align:super}
.tools{display:flex;gap:6px;margin-top:6px;flex-wrap:wrap;font-size:13px}.tools button,.reasons button{background:#fff;border:1px solid #bbb;border-radius:6px;cursor:pointer;padding:2px 8px}
.tools button[aria-pressed=true]{background:${c.primary_color};color:${c.text_color}}.reasons label{display:block;font-size:13px}
details{font-size:13px;margin-top:6px}details ol{padding-left:18px;margin:4px 0}.doc{font-weight:600}blockquote{margin:2px 0 4px;padding-left:8px;border-left:3px solid #ccc;color:#444}.cite.on{background:${c.primary_color};color:${c.text_color}}.cite.hint{outline:2px solid ${c.primary_color};outline-offset:1px}
.main{position:relative;flex:1;min-height:0;display:flex;flex-direction:column}.preview{position:absolute;left:0;right:0;bottom:0;max-height:60%;display:flex;flex-direction:column;background:#fff;border-top:1px solid #ddd;border-radius:12px 12px 0 0;box-shadow:0 -6px 20px #0003;font-size:13px;z-index:1}.preview[hidden]{display:none}
.phead{display:flex;align-items:center;gap:8px;padding:8px 10px 8px 14px;border-bottom:1px solid #eee}.phead strong{flex:1}.pbody{overflow:auto;padding:8px 14px 12px}.src{display:flex;gap:8px;align-items:flex-start}.src img{max-width:55%;max-height:200px;object-fit:contain;border:1px solid #ddd;background:#fff}.src p{margin:0;flex:1}.src .md{flex:1}
.forget{align-self:flex-end;margin:0 14px 6px;background:none;border:0;color:#555;font-size:12px;text-decoration:underline;cursor:pointer}
.typing{margin:0 14px;font-size:12px;color:#666}.human{margin:4px 14px;background:#fff;border:1px solid ${c.primary_color};color:${c.primary_color};border-radius:8px;padding:6px;cursor:pointer}
.composer{display:flex;gap:8px;padding:10px 14px;border-top:1px solid #eee}textarea{flex:1;resize:none;border:1px solid #bbb;border-radius:8px;padding:6px;font-size:14px}
.send{background:${c.primary_color};color:${c.text_color};border:0;border-radius:8px;padding:0 12px;cursor:pointer}.send:disabled{opacity:.45;cursor:not-allowed}
.count{margin:0 14px;font-size:12px;color:#555;text-align:right}.count.over{color:#b42318;font-weight:600;text-align:left}.refused{background:#fdecea;color:#7a1c12}
button:focus-visible,textarea:focus-visible,a:focus-visible,.log:focus-visible,.preview:focus-visible{outline:3px solid #f5a623;outline-offset:2px}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
@media (prefers-reduced-motion:reduce){*{transition:none!important;animation:none!important;scroll-behavior:auto!important}}`;
  }

  function apply() {
    const pageLang = (document.documentElement.lang || navigator.language || "en").slice(0, 2).toLowerCase();
    lang = cfg.locale === "page" ? (STRINGS[pageLang] ? pageLang : "en") : cfg.locale;
    t = { ...STRINGS.en, ...(STRINGS[lang] || {}), ...((cfg.strings || {})[lang] || {}) };
    maxChars = cfg.message_max_chars || maxChars;
    style.textContent = css(cfg);
    launcher.replaceChildren(icon("chat")); launcher.setAttribute("aria-label", t.open);
    title.textContent = cfg.title;
    if (cfg.avatar_url) title.before(el("img", { src: cfg.avatar_url, alt: "" }));
    closeBtn.setAttribute("aria-label", t.close); previewClose.setAttribute("aria-label", t.closePreview); log.setAttribute("aria-label", t.log);
    input.placeholder = t.placeholder; form.querySelector("label").textContent = t.placeholder;
    sendBtn.replaceChildren(icon("send")); sendBtn.setAttribute("aria-label", t.send); humanBtn.textContent = t.human; forgetBtn.textContent = t.forget;
    humanBtn.hidden = !cfg.handoff_enabled;
    const greeting = t.greeting || cfg.greeting;  // a locale's own greeting, from the appearance's strings
    if (greeting && !log.children.length) bubble("bot", greeting);
  }

  function bubble(role, text, extra) {
    const who = role === "agent" ? (extra && extra.author) || t.agent : role === "visitor" ? t.you : role === "bot" ? cfg.title : "";
    const node = el("div", { class: "msg " + role }, who ? el("span", { class: "who" }, who) : null);
    node.append(role === "bot" ? markdown(marked(text, extra?.citations, extra?.context_usage), extra?.citations) : el("div", { class: "md" }, text));
    log.append(node); log.scrollTop = log.scrollHeight;
    return node;
  }
  function toggle(open) {
    panel.hidden = !open; launcher.setAttribute("aria-expanded", String(open));
    // Distinct names: the launcher hides the panel, the × closes it (a screen reader lists both).
    launcher.setAttribute("aria-label", open ? t.hide : t.open); launcher.replaceChildren(icon(open ? "down" : "chat"));
    if (open) log.scrollTop = log.scrollHeight;  // a hidden log cannot scroll: open on the last message
    (open ? input : launcher).focus();
  }
  function closePreview() {
    preview.hidden = true; root.querySelectorAll(".cite.on").forEach((b) => b.classList.remove("on"));
    if (opener && opener.isConnected) opener.focus(); else input.focus();
    opener = null;
  }
  launcher.addEventListener("click", () => toggle(panel.hidden));
  closeBtn.addEventListener("click", () => toggle(false));
  previewClose.addEventListener("click", closePreview);
  // Escape closes the innermost thing open: the source preview first, then the panel.
  panel.addEventListener("keydown", (e) => { if (e.key === "Escape") { e.stopPropagation(); if (!preview.hidden) closePreview(); else toggle(false); } });
  input.addEventListener("keydown", (e) => { if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); form.requestSubmit(); } });
  // Counts from 90% of the limit; past it, says so and blocks sending (the text stays to be shortened).
  function countShow() {
    const n = input.value.length, over = n > maxChars;
    const values = { n: n.toLocaleString(lang), max: maxChars.toLocaleString(lang) };
    counter.hidden = n < maxChars * 0.9;
    counter.classList.toggle("over", over);
    counter.textContent = over ? fmt(t.tooLong, values) : fmt(t.count, values);
    sendBtn.disabled = over;
    if (over) input.setAttribute("aria-invalid", "true"); else input.removeAttribute("aria-invalid");
    input.setAttribute("aria-describedby", counter.hidden ? "" : "parley-count");
    return !over;
  }
  input.addEventListener("input", countShow);
  let lastTyping = 0;
  input.addEventListener("input", () => {
    if (owner === "agent" && session && Date.now() - lastTyping > 2000) {
      lastTyping = Date.now(); api(`/conversations/${session.conversation_id}/typing`, { method: "POST", body: "{}" }).catch(() => {});
    }
  });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text || !countShow()) return;
    input.value = ""; countShow(); send(text);
  });
  // "Forget me": the conversations this browser holds tokens for are erased, then it starts over
  // under a new visitor id.
  forgetBtn.addEventListener("click", async () => {
    if (!confirm(t.forgetConfirm)) return;
    const held = tokens().filter((token) => !session || token !== session.session_token);
    if (session || held.length) {
      try {
        await api("/privacy/forget", { method: "POST", body: JSON.stringify({ session_tokens: held, widget_visitor_id: visitorId() }) });
      } catch (err) { if (!(err && err.status === 404)) { bubble("system", t.error); return; } }
    }
    if (eventsAbort) eventsAbort.abort();
    session = null; wait = null; shown.clear();
    for (const name of [STORE, TOKENS, VISITOR]) localStorage.removeItem(name);
    showWait(); setOwner("bot"); log.replaceChildren(); bubble("system", t.forgotten);
  });
  humanBtn.addEventListener("click", async () => {
    await ensureSession();
    try { await api(`/conversations/${session.conversation_id}/handoff`, { method: "POST", body: "{}" }); setOwner("waiting_agent"); }
    catch { activity.textContent = t.error; }
  });

  async function showCitation(c, from) {
    opener = from || null;
    root.querySelectorAll(".cite.on").forEach((b) => b.classList.remove("on"));
    // The marker and its chip light up together: the chip of the same message with the same number.
    from?.closest(".msg")?.querySelectorAll(`.cite[data-n="${c.n}"]`).forEach((b) => b.classList.add("on"));
    preview.hidden = false; previewTitle.textContent = `[${c.n}] ${c.title || ""}`;
    const where = c.page_number ? `${t.page} ${c.page_number}` : c.start_time != null ? fmtTime(c.start_time) : "";
    const whereNode = where ? el("div", { class: "who" }, where) : null;
    // A web page's source (a knowledge source's page): its title and URL, a link that opens the page.
    const page = /^https?:\/\//.test(c.url || "") ? el("a", { class: "page", href: c.url, target: "_blank", rel: "noopener noreferrer" }, c.url) : null;
    previewBody.replaceChildren(...(page ? [page] : []), ...(whereNode ? [whereNode] : []));
    let text = c.text_preview || "", chunk = null;
    // A curated answer ("curated:<id>") is no document chunk: its citation already holds the text.
    if (!String(c.chunk_id).startsWith("curated:")) {
      try { chunk = await api(`/chunks/${c.chunk_id}`); text = chunk.text_preview || chunk.text || chunk.content || text; } catch { /* keep the preview we have */ }
    }
    // A passage with a Markdown table shows the table; plain text stays one paragraph.
    const body = el("div", { class: "src" }, /^\s*\|.*\|\s*$/m.test(text) ? markdown(text) : el("p", {}, text));
    previewBody.append(body); preview.focus();
    if (!chunk) return;
    if (chunk.start_time != null) {  // audio and video: the time range, no picture
      const span = fmtTime(chunk.start_time) + (chunk.end_time != null ? " – " + fmtTime(chunk.end_time) : "");
      whereNode?.remove(); body.before(el("div", { class: "who" }, span));
    } else if (chunk.page_number != null || chunk.metadata?.modality === "image") {
      // The page region with the passage highlighted; fetched with the key (an <img src> cannot send it).
      try {
        const res = await fetch(API + `/chunks/${c.chunk_id}/preview`, { headers: headers({}) });
        if (!res.ok) return;
        const img = el("img", { alt: where || t.sources, src: URL.createObjectURL(await res.blob()) });
        img.onload = () => URL.revokeObjectURL(img.src); body.prepend(img);
      } catch { /* the text alone still says it */ }
    }
  }
  function fmtTime(s) { s = Math.floor(s); return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`; }

  // The agent by the name visitors see; the fixed text when there is none (or only the neutral label).
  function joinedText(name) { return name && name !== t.agent ? t.joined.replace("{name}", name) : t.agentJoined; }
  function setOwner(next, announce, agent) {
    owner = next;
    humanBtn.hidden = !cfg.handoff_enabled || next !== "bot";
    if (next === "waiting_agent") wait = wait || { since: Date.now(), timedOut: false, left: false };
    else wait = null;
    activity.textContent = next === "resolved" ? t.resolved : "";
    showWait();
    if (announce && next === "agent") bubble("system", joinedText(agent));
    if (announce && next === "bot") bubble("system", t.backToBot);
  }
  // The banner while the visitor waits: the elapsed time, ticking; after the timeout, what to do instead.
  function showWait() {
    clearInterval(ticker); ticker = null;
    banner.className = "banner" + (wait && wait.left ? " left" : "");
    if (!wait) { banner.replaceChildren(); return; }
    const text = wait.left ? t.left : wait.timedOut ? t.noAgent : t.waiting;
    // Only the clock ticks, outside the live region's speech: the state is announced once, not every second.
    const clock = el("span", { "aria-hidden": "true" });
    banner.replaceChildren(icon(wait.left ? "check" : "clock"), el("span", {}, text), clock);
    if (wait.timedOut) return;
    const tick = () => { clock.textContent = fmtTime((Date.now() - wait.since) / 1000); };
    tick(); ticker = setInterval(tick, 1000);
  }

  async function ensureSession() {
    if (session) return;
    const s = await api("/sessions", { method: "POST", body: JSON.stringify({ widget_visitor_id: visitorId() }) });
    session = { conversation_id: s.conversation_id, session_token: s.session_token, last_event: null }; save();
    // Every conversation's token, kept for "Forget me" (the server skips those expired by then).
    localStorage.setItem(TOKENS, JSON.stringify([...tokens(), s.session_token].slice(-100)));
    listen();
  }

  function finishAnswer(node, body, result) {
    const cites = result.citations || [], usage = result.context_usage || [];
    if (result.turn_id) shown.add(result.turn_id);
    body.replaceWith(markdown(result.display_answer === false ? "" : marked(result.answer, cites, usage), cites));
    const tools = el("div", { class: "tools" });
    if (cites.length) {
      tools.append(el("span", {}, t.sources + ":"));
      for (const c of cites) {
        const chip = el("button", { type: "button", class: "cite", "data-n": c.n }, `${c.n} ${c.title || ""}`);
        chip.addEventListener("click", () => showCitation(c, chip)); tools.append(chip);
      }
    }
    if (result.turn_id) tools.append(el("span", { class: "rate" }, ...feedback(result.turn_id, node, result.feedback)));
    node.append(tools);
    if (result.understanding !== undefined || result.context_usage) node.append(why(result, cites, usage));
    if (result.owner) setOwner(result.owner);
    log.scrollTop = log.scrollHeight;
  }
  // "Why this answer" in words: what was understood, the confidence, each document used and the
  // sentences quoted from it. Ids stay out: they mean nothing to a visitor.
  function why(result, cites, usage) {
    const box = el("details", {}, el("summary", {}, t.why));
    if (result.understanding) box.append(el("p", {}, `${t.understanding}: ${result.understanding}`));
    if (result.confidence != null) box.append(el("p", {}, `${t.confidence}: ${Math.round(result.confidence * 100)}%`));
    const docs = el("ol");
    for (const c of cites) {
      const u = usage.find((x) => x.chunk === c.chunk_id && x.used_in_response);
      const where = c.page_number ? ` (${t.page} ${c.page_number})` : "";
      const li = el("li", {}, el("span", { class: "doc" }, (c.title || t.source) + where));
      const quotes = (u && u.sentences) || [];
      if (quotes.length) li.append(el("div", {}, t.quoted), ...quotes.map((q) => el("blockquote", {}, q)));
      docs.append(li);
    }
    if (cites.length) box.append(el("p", {}, t.used), docs);
    return box;
  }
  function feedback(turnId, node, given) {
    const up = el("button", { type: "button", "aria-pressed": String(given?.rating === "up"), "aria-label": t.helpful }, icon("up"));
    const down = el("button", { type: "button", "aria-pressed": String(given?.rating === "down"), "aria-label": t.notHelpful }, icon("up", true));
    const rate = async (rating, reasons) => {
      await api(`/turns/${turnId}/feedback`, { method: "POST", body: JSON.stringify({ rating, reasons }) });
      up.setAttribute("aria-pressed", String(rating === "up")); down.setAttribute("aria-pressed", String(rating === "down"));
      activity.textContent = t.thanks; setTimeout(() => { if (activity.textContent === t.thanks) activity.textContent = ""; }, 4000);
    };
    up.addEventListener("click", () => rate("up", []));
    down.addEventListener("click", () => {
      const box = el("fieldset", { class: "reasons" }, el("legend", {}, t.reasonsTitle));
      for (const r of ["wrong", "incomplete", "not_what_i_asked", "offensive"]) box.append(el("label", {}, el("input", { type: "checkbox", value: r }), " " + t[r]));
      box.append(el("button", { type: "button", onclick: () => { rate("down", [...box.querySelectorAll("input:checked")].map((i) => i.value)); box.remove(); } }, t.submit));
      node.append(box); box.querySelector("input").focus();
    });
    return [up, down];
  }

  async function send(text) {
    await ensureSession();
    const visitorNode = bubble("visitor", text);
    const id = crypto.randomUUID();
    const node = bubble("bot", ""), body = node.lastChild;
    if (owner !== "bot") node.hidden = true;
    activity.textContent = t.thinking;
    let answer = "", streamId = null, lastId = null, result = null;
    const pieces = {};
    const onEvent = (e) => {
      if (e.id) lastId = e.id;
      if (e.event === "tool_update") activity.textContent = t[PHASES[e.data.phase] || "thinking"];
      else if (e.event === "tool_partial_update") {
        answer += e.data.content || "";  // each update is the next fragment (spec: concatenate them)
        activity.textContent = t.writing; body.replaceChildren(markdown(answer)); log.scrollTop = log.scrollHeight;
      } else if (e.event === "tool_end") result = e.data;
      else if (e.event === "error") throw new Error(e.data.code || "error");
    };
    // Sent again with the same client_message_id when no stream came back (the connection failed, or a
    // proxy answered 5xx because the web process behind it died): the server answers that id once.
    const post = () => fetch(`${API}/conversations/${session.conversation_id}/turns`, {
      method: "POST", headers: headers({ "Content-Type": "application/json", Accept: "text/event-stream" }),
      body: JSON.stringify({ message: text, client_message_id: id, stream: true }),
    });
    const resume = () => fetch(`${API}/streams/${streamId}/events`, { headers: headers(lastId ? { "Last-Event-ID": lastId, Accept: "text/event-stream" } : { Accept: "text/event-stream" }) });
    try {
      for (let attempt = 0; ; attempt++) {
        if (attempt) await new Promise((r) => setTimeout(r, 300 * attempt));
        let res;
        try { res = await (streamId ? resume() : post()); } catch (err) { if (attempt > 4) throw err; continue; }
        if (res.status >= 500 && attempt <= 4) continue;
        if (!res.ok && res.status !== 202) {
          if (streamId && res.status < 500 && attempt <= 4) { streamId = null; lastId = null; continue; }  // that stream is gone
          throw streamId ? new Error("HTTP " + res.status) : await refusal(res);
        }
        if (!(res.headers.get("Content-Type") || "").includes("text/event-stream")) { result = await res.json(); break; }
        streamId = res.headers.get("X-Parley-Stream-Id") || streamId;
        try { await readSSE(res, onEvent, null, pieces); } catch (err) {
          if (attempt > 4) throw err;
          // An expired stream cannot be resumed, nor one whose answer was interrupted (its worker died): ask
          // again, the server replays the turn it answered or answers it now, once.
          if (!streamId || (err && (err.message === "stream_expired" || err.message === "stream_interrupted"))) { streamId = null; lastId = null; }
        }
        if (result || attempt > 4) break;
        // The stream dropped before its end: resume after the last event we saw, nothing is lost.
      }
      activity.textContent = "";
      if (!result) throw new Error("no answer");
      if (result.status === "forwarded_to_agent") {
        node.remove(); setOwner(result.owner || owner);
        if (wait && wait.timedOut && !wait.left) { wait.left = true; showWait(); }  // the message left after the timeout
        return;
      }
      node.hidden = false; finishAnswer(node, body, result);
    } catch (err) {
      activity.textContent = "";
      // Nothing is lost: a message that got no answer goes back to the input (unless a new one is typed).
      if (!input.value) { input.value = text; countShow(); }
      if (err && err.refused) {  // the server refused it: its reason, in the widget's language
        visitorNode.remove(); node.classList.replace("bot", "system"); node.classList.add("refused"); node.querySelector(".who")?.remove();
        node.hidden = false; node.setAttribute("role", "alert");
        body.replaceChildren(el("p", {}, fmt(t.refused, { reason: err.message })));
      } else { node.hidden = false; body.replaceChildren(el("p", {}, t.error)); }
    }
  }

  async function listen() {
    if (!session || eventsAbort) return;
    eventsAbort = new AbortController();
    let typingTimer = null;
    const pieces = {};
    for (let attempt = 0; attempt < 1000; attempt++) {
      try {
        const h = { Accept: "text/event-stream" };
        if (session.last_event) h["Last-Event-ID"] = session.last_event;
        const res = await fetch(`${API}/conversations/${session.conversation_id}/events`, { headers: headers(h), signal: eventsAbort.signal });
        if (res.status === 401 || res.status === 404) { session = null; localStorage.removeItem(STORE); return; }
        await readSSE(res, (e) => {
          if (e.id && e.event !== "error") { session.last_event = e.id; save(); }
          if (e.event === "agent_message") { typing.hidden = true; bubble("agent", e.data.text, e.data); }
          else if (e.event === "system_message") bubble("system", e.data.text);
          else if (e.event === "owner_changed") setOwner(e.data.owner, true, e.data.agent);
          // The bot's answer, after a return to it, to what the agent left unanswered: no turn of ours
          // asked it, so it is drawn here (the widget's own turns it draws itself; a reload, from history).
          else if (e.event === "turn_answered" && e.data.pending_answer && e.data.answer && !shown.has(e.data.turn_id)) {
            const node = bubble("bot", ""); finishAnswer(node, node.lastChild, { ...e.data, owner: "" });
          }
          else if (e.event === "handoff_timed_out" && owner === "waiting_agent") { wait.timedOut = true; showWait(); }
          else if (e.event === "agent_typing") {
            typing.textContent = `${t.agent} ${t.typing}`; typing.hidden = false;
            clearTimeout(typingTimer); typingTimer = setTimeout(() => { typing.hidden = true; }, 3000);
          } else if (e.event === "error" && e.data.code === "stream_expired") session.last_event = null;
        }, eventsAbort.signal, pieces);
      } catch (err) { if (eventsAbort.signal.aborted) return; }
      await new Promise((r) => setTimeout(r, Math.min(5000, 300 * (attempt + 1))));
    }
  }

  // The history, with "… joined the chat." where the agent who has the conversation claimed it.
  async function restore(claim) {
    const items = await api(`/conversations/${session.conversation_id}/messages`);
    const joined = () => { if (claim) bubble("system", joinedText(claim.agent)); claim = null; };
    for (const m of items) {
      if (claim && Date.parse(m.created_at) >= Date.parse(claim.claimed_at)) joined();
      if (m.role !== "bot" || !m.turn_id) { bubble(m.role, m.text, m); continue; }
      const node = bubble("bot", ""); finishAnswer(node, node.lastChild, { ...m, answer: m.text });
    }
    joined();
  }

  async function start() {
    try { cfg = await api("/widget/config"); } catch (err) {
      // A page the key does not allow gets the server's reason (the origin, the key's admin page); a
      // cross-origin page it does not allow cannot even read that, only that the request failed.
      const reason = err && err.refused ? err.message
        : `${API} could not be reached from ${location.origin}. Is this origin among the widget key's allowed origins?`;
      console.error("Parley widget: " + reason);
      return;
    }
    apply();
    document.body.append(host);
    if (session) {
      const h = cfg.handoff;  // the open handoff as the server knows it: the banner survives a reload
      if (h) wait = { since: Date.now() - h.wait_seconds * 1000, timedOut: h.timed_out, left: h.message_left };
      try { await restore(cfg.owner === "agent" && h?.claimed_at ? h : null); setOwner(cfg.owner || "bot"); listen(); }
      catch { session = null; localStorage.removeItem(STORE); }
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
