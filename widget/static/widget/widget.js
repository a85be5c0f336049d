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
  const STRINGS = {
    en: { open: "Open chat", close: "Close chat", send: "Send", placeholder: "Type your question…",
      human: "Talk to a human", searching: "Searching…", writing: "Writing…", thinking: "Thinking…",
      waiting: "Waiting for an agent…", agentJoined: "An agent joined the chat.", backToBot: "You are chatting with the assistant again.",
      resolved: "This conversation is closed.", typing: "typing…", sources: "Sources", why: "Why this answer",
      understanding: "Understanding", confidence: "Confidence", used: "Passages used", helpful: "Helpful",
      notHelpful: "Not helpful", reasonsTitle: "What was wrong?", wrong: "Wrong", incomplete: "Incomplete",
      not_what_i_asked: "Not what I asked", offensive: "Offensive", submit: "Send feedback", thanks: "Thanks for your feedback.",
      error: "Something went wrong. Please try again.", page: "page", you: "You", agent: "Agent", log: "Conversation" },
    fr: { open: "Ouvrir le chat", close: "Fermer le chat", send: "Envoyer", placeholder: "Posez votre question…",
      human: "Parler à un humain", searching: "Recherche…", writing: "Rédaction…", thinking: "Réflexion…",
      waiting: "En attente d'un conseiller…", agentJoined: "Un conseiller a rejoint la conversation.",
      backToBot: "Vous discutez de nouveau avec l'assistant.", resolved: "Cette conversation est terminée.",
      typing: "écrit…", sources: "Sources", why: "Pourquoi cette réponse", understanding: "Compréhension",
      confidence: "Confiance", used: "Passages utilisés", helpful: "Utile", notHelpful: "Pas utile",
      reasonsTitle: "Qu'est-ce qui n'allait pas ?", wrong: "Faux", incomplete: "Incomplet",
      not_what_i_asked: "Hors sujet", offensive: "Offensant", submit: "Envoyer l'avis", thanks: "Merci pour votre avis.",
      error: "Une erreur est survenue. Réessayez.", page: "page", you: "Vous", agent: "Conseiller", log: "Conversation" },
  };
  const PHASES = { SEARCH_PREPARATION: "searching", RETRIEVAL: "searching", RERANKING: "searching", COMPILING_RESULTS: "thinking" };
  let cfg = null, t = STRINGS.en, session = load(), owner = "bot", eventsAbort = null;

  function load() { try { return JSON.parse(localStorage.getItem(STORE)) || null; } catch { return null; } }
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
    const h = { Authorization: "Bearer " + KEY, ...extra };
    if (session) h["X-Parley-Session"] = session.session_token;
    return h;
  }
  async function api(path, opts = {}) {
    const res = await fetch(API + path, { ...opts, headers: headers({ "Content-Type": "application/json", ...(opts.headers || {}) }) });
    if (!res.ok && res.status !== 202) throw new Error("HTTP " + res.status);
    return res.status === 204 ? null : res.json();
  }

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
        parent.append(c ? el("button", { class: "cite", type: "button", "aria-label": t.sources + " " + n, onclick: () => showCitation(c) }, String(n)) : s);
      } else {
        const label = s.slice(1, s.indexOf("]("));
        parent.append(el("a", { href: m[2], target: "_blank", rel: "noopener noreferrer" }, label));
      }
      last = m.index + s.length;
    }
    parent.append(text.slice(last));
  }
  function markdown(src, cites) {
    const root = el("div", { class: "md" });
    let list = null;
    for (const block of String(src || "").split(/\n/)) {
      const item = block.match(/^\s*(?:[-*]|\d+\.)\s+(.*)$/);
      if (item) {
        if (!list) { list = el(/^\s*\d/.test(block) ? "ol" : "ul"); root.append(list); }
        const li = el("li"); inline(item[1], li, cites); list.append(li);
      } else if (block.trim()) {
        list = null; const p = el("p"); inline(block, p, cites); root.append(p);
      } else list = null;
    }
    return root;
  }

  /* --- UI --- */
  const host = el("div", { "data-parley-widget": "" });
  const root = host.attachShadow({ mode: "open" });
  const style = el("style");
  // A host page whose CSP admits this script by nonce admits the widget's own styles the same way.
  if (script.nonce) style.nonce = script.nonce;
  const launcher = el("button", { class: "launcher", type: "button", "aria-expanded": "false", "aria-controls": "parley-panel" });
  const title = el("h2", { id: "parley-title" });
  const closeBtn = el("button", { class: "close", type: "button" }, "×");
  const status = el("p", { class: "status", role: "status", "aria-live": "polite" });
  const log = el("div", { class: "log", role: "log", "aria-live": "polite", tabindex: "0" });
  const typing = el("p", { class: "typing", hidden: true });
  const input = el("textarea", { rows: "2", id: "parley-input" });
  const sendBtn = el("button", { class: "send", type: "submit" });
  const humanBtn = el("button", { class: "human", type: "button", hidden: true });
  const preview = el("div", { class: "preview", role: "region", hidden: true, tabindex: "-1" });
  const form = el("form", { class: "composer" }, el("label", { for: "parley-input", class: "sr" }), input, sendBtn);
  const panel = el("div", { id: "parley-panel", class: "panel", role: "dialog", "aria-labelledby": "parley-title", hidden: true },
    el("header", {}, title, closeBtn), status, log, preview, typing, humanBtn, form);
  root.append(style, launcher, panel);

  function css(c) {
    return `:host{all:initial}*{box-sizing:border-box;font-family:system-ui,sans-serif}
.launcher{position:fixed;bottom:20px;${c.position}:20px;width:56px;height:56px;border-radius:50%;border:0;background:${c.primary_color};color:${c.text_color};font-size:24px;cursor:pointer;box-shadow:0 4px 14px #0003;z-index:2147483646}
.panel{position:fixed;bottom:88px;${c.position}:20px;width:min(380px,calc(100vw - 40px));height:min(560px,calc(100vh - 120px));display:flex;flex-direction:column;background:#fff;color:#1b1b1f;border-radius:12px;box-shadow:0 8px 30px #0004;z-index:2147483647;font-size:15px;line-height:1.4;transition:opacity .2s}
.panel[hidden]{display:none}header{display:flex;align-items:center;gap:8px;padding:12px 14px;background:${c.primary_color};color:${c.text_color};border-radius:12px 12px 0 0}
header img{width:28px;height:28px;border-radius:50%}h2{flex:1;margin:0;font-size:16px}.close{background:none;border:0;color:inherit;font-size:22px;cursor:pointer}
.status{margin:0;padding:4px 14px;font-size:13px;color:#555;min-height:1.4em}.log{flex:1;overflow-y:auto;padding:8px 14px}
.msg{margin:8px 0;padding:8px 11px;border-radius:10px;max-width:88%;word-wrap:break-word}.visitor{margin-left:auto;background:${c.primary_color};color:${c.text_color}}
.bot,.agent{background:#f0f1f4}.agent{border-left:3px solid ${c.primary_color}}.system{background:#fff7e0;font-size:13px;max-width:100%}
.who{display:block;font-size:12px;opacity:.75}.md p{margin:0 0 6px}.md ul,.md ol{margin:0 0 6px;padding-left:20px}code{background:#0001;padding:0 3px;border-radius:3px}
.cite{border:1px solid ${c.primary_color};background:#fff;color:${c.primary_color};border-radius:10px;font-size:11px;padding:0 5px;margin:0 1px;cursor:pointer;vertical-align:super}
.tools{display:flex;gap:6px;margin-top:6px;flex-wrap:wrap;font-size:13px}.tools button,.reasons button{background:#fff;border:1px solid #bbb;border-radius:6px;cursor:pointer;padding:2px 8px}
.tools button[aria-pressed=true]{background:${c.primary_color};color:${c.text_color}}.reasons label{display:block;font-size:13px}
details{font-size:13px;margin-top:6px}.preview{margin:0 14px;padding:8px;border:1px solid #ddd;border-radius:8px;font-size:13px;max-height:30%;overflow:auto;background:#fafafa}.src{display:flex;gap:8px;align-items:flex-start}.src img{max-width:55%;max-height:200px;object-fit:contain;border:1px solid #ddd;background:#fff}.src p{margin:0;flex:1}
.typing{margin:0 14px;font-size:12px;color:#666}.human{margin:4px 14px;background:#fff;border:1px solid ${c.primary_color};color:${c.primary_color};border-radius:8px;padding:6px;cursor:pointer}
.composer{display:flex;gap:8px;padding:10px 14px;border-top:1px solid #eee}textarea{flex:1;resize:none;border:1px solid #bbb;border-radius:8px;padding:6px;font-size:14px}
.send{background:${c.primary_color};color:${c.text_color};border:0;border-radius:8px;padding:0 14px;cursor:pointer}
button:focus-visible,textarea:focus-visible,a:focus-visible,.log:focus-visible,.preview:focus-visible{outline:3px solid #f5a623;outline-offset:2px}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
@media (prefers-reduced-motion:reduce){*{transition:none!important;animation:none!important;scroll-behavior:auto!important}}`;
  }

  function apply() {
    const pageLang = (document.documentElement.lang || navigator.language || "en").slice(0, 2).toLowerCase();
    const lang = cfg.locale === "page" ? (STRINGS[pageLang] ? pageLang : "en") : cfg.locale;
    t = { ...STRINGS[lang], ...((cfg.strings || {})[lang] || {}) };
    style.textContent = css(cfg);
    launcher.textContent = "💬"; launcher.setAttribute("aria-label", t.open);
    title.textContent = cfg.title;
    if (cfg.avatar_url) title.before(el("img", { src: cfg.avatar_url, alt: "" }));
    closeBtn.setAttribute("aria-label", t.close); log.setAttribute("aria-label", t.log);
    input.placeholder = t.placeholder; form.querySelector("label").textContent = t.placeholder;
    sendBtn.textContent = t.send; humanBtn.textContent = t.human;
    humanBtn.hidden = !cfg.handoff_enabled;
    if (cfg.greeting && !log.children.length) bubble("bot", cfg.greeting);
  }

  function bubble(role, text, extra) {
    const who = role === "agent" ? (extra && extra.author) || t.agent : role === "visitor" ? t.you : role === "bot" ? cfg.title : "";
    const node = el("div", { class: "msg " + role }, who ? el("span", { class: "who" }, who) : null);
    node.append(role === "bot" ? markdown(text, extra && extra.citations) : el("div", { class: "md" }, text));
    log.append(node); log.scrollTop = log.scrollHeight;
    return node;
  }
  function toggle(open) {
    panel.hidden = !open; launcher.setAttribute("aria-expanded", String(open));
    launcher.setAttribute("aria-label", open ? t.close : t.open);
    (open ? input : launcher).focus();
  }
  launcher.addEventListener("click", () => toggle(panel.hidden));
  closeBtn.addEventListener("click", () => toggle(false));
  panel.addEventListener("keydown", (e) => { if (e.key === "Escape") { e.stopPropagation(); toggle(false); } });
  input.addEventListener("keydown", (e) => { if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); form.requestSubmit(); } });
  let lastTyping = 0;
  input.addEventListener("input", () => {
    if (owner === "agent" && session && Date.now() - lastTyping > 2000) {
      lastTyping = Date.now(); api(`/conversations/${session.conversation_id}/typing`, { method: "POST", body: "{}" }).catch(() => {});
    }
  });
  form.addEventListener("submit", (e) => { e.preventDefault(); const text = input.value.trim(); if (text) { input.value = ""; send(text); } });
  humanBtn.addEventListener("click", async () => {
    await ensureSession();
    try { await api(`/conversations/${session.conversation_id}/handoff`, { method: "POST", body: "{}" }); setOwner("waiting_agent"); }
    catch { status.textContent = t.error; }
  });

  async function showCitation(c) {
    preview.hidden = false; preview.replaceChildren(el("strong", {}, `[${c.n}] ${c.title || ""}`));
    const where = c.page_number ? `${t.page} ${c.page_number}` : c.start_time != null ? fmtTime(c.start_time) : "";
    if (where) preview.append(el("div", { class: "who" }, where));
    let text = c.text_preview || "", chunk = null;
    try { chunk = await api(`/chunks/${c.chunk_id}`); text = chunk.text_preview || chunk.text || chunk.content || text; } catch { /* keep the preview we have */ }
    const body = el("div", { class: "src" }, el("p", {}, text));
    preview.append(body); preview.focus();
    if (!chunk) return;
    if (chunk.start_time != null) {  // audio and video: the time range, no picture
      const span = fmtTime(chunk.start_time) + (chunk.end_time != null ? " – " + fmtTime(chunk.end_time) : "");
      preview.querySelector(".who")?.remove(); body.before(el("div", { class: "who" }, span));
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

  function setOwner(next, announce) {
    owner = next;
    humanBtn.hidden = !cfg.handoff_enabled || next !== "bot";
    status.textContent = next === "waiting_agent" ? t.waiting : next === "resolved" ? t.resolved : "";
    if (announce && next === "agent") bubble("system", t.agentJoined);
    if (announce && next === "bot") bubble("system", t.backToBot);
  }

  async function ensureSession() {
    if (session) return;
    const s = await api("/sessions", { method: "POST", body: "{}" });
    session = { conversation_id: s.conversation_id, session_token: s.session_token, last_event: null }; save();
    listen();
  }

  function finishAnswer(node, body, result) {
    body.replaceWith(markdown(result.display_answer === false ? "" : result.answer, result.citations));
    const tools = el("div", { class: "tools" });
    if (result.citations && result.citations.length) {
      tools.append(el("span", {}, t.sources + ":"));
      for (const c of result.citations) tools.append(el("button", { type: "button", class: "cite", onclick: () => showCitation(c) }, `${c.n} ${c.title || ""}`));
    }
    if (result.turn_id) tools.append(...feedback(result.turn_id, node));
    node.append(tools);
    if (result.understanding !== undefined || result.context_usage) {
      const why = el("details", {}, el("summary", {}, t.why));
      if (result.understanding) why.append(el("p", {}, `${t.understanding}: ${result.understanding}`));
      if (result.confidence != null) why.append(el("p", {}, `${t.confidence}: ${Math.round(result.confidence * 100)}%`));
      const used = el("ul");
      for (const u of result.context_usage || []) used.append(el("li", {}, typeof u === "string" ? u : JSON.stringify(u)));
      why.append(el("p", {}, t.used), used); node.append(why);
    }
    if (result.owner) setOwner(result.owner);
  }
  function feedback(turnId, node) {
    const up = el("button", { type: "button", "aria-pressed": "false", "aria-label": t.helpful }, "👍");
    const down = el("button", { type: "button", "aria-pressed": "false", "aria-label": t.notHelpful }, "👎");
    const rate = async (rating, reasons) => {
      await api(`/turns/${turnId}/feedback`, { method: "POST", body: JSON.stringify({ rating, reasons }) });
      up.setAttribute("aria-pressed", String(rating === "up")); down.setAttribute("aria-pressed", String(rating === "down"));
      status.textContent = t.thanks;
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
    bubble("visitor", text);
    const id = crypto.randomUUID();
    const node = bubble("bot", ""), body = node.lastChild;
    if (owner !== "bot") node.hidden = true;
    status.textContent = t.thinking;
    let answer = "", streamId = null, lastId = null, result = null;
    const pieces = {};
    const onEvent = (e) => {
      if (e.id) lastId = e.id;
      if (e.event === "tool_update") status.textContent = t[PHASES[e.data.phase] || "thinking"];
      else if (e.event === "tool_partial_update") {
        answer += e.data.content || "";  // each update is the next fragment (spec: concatenate them)
        status.textContent = t.writing; body.replaceChildren(markdown(answer)); log.scrollTop = log.scrollHeight;
      } else if (e.event === "tool_end") result = e.data;
      else if (e.event === "error") throw new Error(e.data.code || "error");
    };
    try {
      let res = await fetch(`${API}/conversations/${session.conversation_id}/turns`, {
        method: "POST", headers: headers({ "Content-Type": "application/json", Accept: "text/event-stream" }),
        body: JSON.stringify({ message: text, client_message_id: id, stream: true }),
      });
      for (let attempt = 0; ; attempt++) {
        if (!res.ok && res.status !== 202) throw new Error("HTTP " + res.status);
        if (!(res.headers.get("Content-Type") || "").includes("text/event-stream")) { result = await res.json(); break; }
        streamId = res.headers.get("X-Parley-Stream-Id") || streamId;
        try { await readSSE(res, onEvent, null, pieces); } catch (err) { if (!streamId || attempt > 4) throw err; }
        if (result || !streamId || attempt > 4) break;
        // The stream dropped before its end: resume after the last event we saw, nothing is lost.
        await new Promise((r) => setTimeout(r, 300 * (attempt + 1)));
        res = await fetch(`${API}/streams/${streamId}/events`, { headers: headers(lastId ? { "Last-Event-ID": lastId, Accept: "text/event-stream" } : { Accept: "text/event-stream" }) });
      }
      status.textContent = "";
      if (!result) throw new Error("no answer");
      if (result.status === "forwarded_to_agent") { node.remove(); setOwner(result.owner || owner); return; }
      node.hidden = false; finishAnswer(node, body, result);
    } catch {
      node.hidden = false; body.replaceChildren(el("p", {}, t.error)); status.textContent = "";
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
          else if (e.event === "owner_changed") setOwner(e.data.owner, true);
          else if (e.event === "agent_typing") {
            typing.textContent = `${t.agent} ${t.typing}`; typing.hidden = false;
            clearTimeout(typingTimer); typingTimer = setTimeout(() => { typing.hidden = true; }, 3000);
          } else if (e.event === "error" && e.data.code === "stream_expired") session.last_event = null;
        }, eventsAbort.signal, pieces);
      } catch (err) { if (eventsAbort.signal.aborted) return; }
      await new Promise((r) => setTimeout(r, Math.min(5000, 300 * (attempt + 1))));
    }
  }

  async function restore() {
    const items = await api(`/conversations/${session.conversation_id}/messages`);
    for (const m of items) {
      const node = bubble(m.role, m.text, m);
      if (m.role === "bot" && m.turn_id) node.append(el("div", { class: "tools" }, ...feedback(m.turn_id, node)));
    }
  }

  async function start() {
    cfg = await api("/widget/config");
    apply();
    document.body.append(host);
    if (session) {
      try { await restore(); setOwner(cfg.owner || "bot"); listen(); }
      catch { session = null; localStorage.removeItem(STORE); }
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
