/* The agent console: the live queue, the context pack, and the live chat with a visitor.
 * Same-origin only (session cookie + CSRF header); every text is shown with textContent.
 * A conversation the agent handed back to the bot stays in the list, with its later turns, until closed. */
"use strict";
const $ = (id) => document.getElementById(id);
const csrf = document.querySelector("meta[name=csrf-token]").content;
const STRINGS = {
  en: { myName: "Your name shown to visitors", save: "Save", saved: "Saved: visitors see you as", queueTitle: "Conversations",
    typing: "The visitor is typing…", claim: "Claim", return: "Return to bot", resolve: "Resolve", close: "Close", reply: "Reply",
    send: "Send", context: "Context", sources: "Sources of the bot's last answer", history: "Owner history", nobody: "Nobody is waiting.",
    yours: "yours", handled: "with the bot", timedOut: "timed out", asked: "Asked for a human", low_confidence: "Low confidence",
    repeated_misses: "Repeated misses", question: "Question", reason: "Escalation reason", understanding: "Bot's understanding",
    topic: "Topic", confidence: "Confidence", visitor: "visitor", bot: "bot", system: "system", agent: "Agent", page: "p.",
    newWaiting: (n) => `${n} new waiting conversation${n > 1 ? "s" : ""}`, claimedBy: (who) => `Already claimed by ${who}`,
    notSent: "Not sent", noClaim: "Could not claim", owners: { bot: "bot", waiting_agent: "waiting agent", resolved: "resolved" } },
  fr: { myName: "Votre nom affiché aux visiteurs", save: "Enregistrer", saved: "Enregistré : les visiteurs vous voient comme", queueTitle: "Conversations",
    typing: "Le visiteur écrit…", claim: "Prendre", return: "Rendre au bot", resolve: "Résoudre", close: "Fermer", reply: "Réponse",
    send: "Envoyer", context: "Contexte", sources: "Sources de la dernière réponse du bot", history: "Historique des responsables",
    nobody: "Personne n'attend.", yours: "à vous", handled: "avec le bot", timedOut: "délai dépassé", asked: "A demandé un humain",
    low_confidence: "Confiance faible", repeated_misses: "Échecs répétés", question: "Question", reason: "Motif de l'escalade",
    understanding: "Compréhension du bot", topic: "Sujet", confidence: "Confiance", visitor: "visiteur", bot: "bot", system: "système",
    agent: "Conseiller", page: "p.", newWaiting: (n) => `${n} nouvelle${n > 1 ? "s" : ""} conversation${n > 1 ? "s" : ""} en attente`,
    claimedBy: (who) => `Déjà prise par ${who}`, notSent: "Non envoyé", noClaim: "Impossible de prendre la conversation",
    owners: { bot: "bot", waiting_agent: "en attente", resolved: "résolue" } },
};
const lang = (navigator.languages || [navigator.language || "en"]).map((l) => l.slice(0, 2).toLowerCase()).find((l) => STRINGS[l]) || "en";
const t = STRINGS[lang];
document.documentElement.lang = lang;
document.querySelectorAll("[data-t]").forEach((node) => { node.textContent = t[node.dataset.t]; });
let queueRows = [], current = null, convEvents = null, seenWaiting = new Set(), firstLoad = true, typingTimer = null, lastTyping = 0;

function el(tag, cls, text) { const n = document.createElement(tag); if (cls) n.className = cls; if (text != null) n.textContent = text; return n; }
async function post(path, body) {
  const res = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json", "X-CSRFToken": csrf }, body: JSON.stringify(body || {}), credentials: "same-origin" });
  const data = res.status === 204 ? {} : await res.json();
  return { ok: res.ok, status: res.status, data };
}
function fmtWait(seconds) { const m = Math.floor(seconds / 60), s = seconds % 60; return `${m}:${String(s).padStart(2, "0")}`; }
function flash(text) { $("notice").textContent = text; setTimeout(() => { if ($("notice").textContent === text) $("notice").textContent = ""; }, 8000); }

async function loadQueue() {
  const res = await fetch("/agent/api/queue", { credentials: "same-origin" });
  if (!res.ok) return;
  const now = Date.now();
  queueRows = (await res.json()).conversations.map((r) => ({ ...r, since: now - r.wait_seconds * 1000 }));
  const fresh = queueRows.filter((r) => r.state === "waiting" && !seenWaiting.has(r.conversation_id));
  fresh.forEach((r) => seenWaiting.add(r.conversation_id));
  if (fresh.length && !firstLoad) notify(fresh.length);
  firstLoad = false;
  renderQueue();
}
function notify(count) {
  flash(t.newWaiting(count));
  document.title = `(${queueRows.filter((r) => r.state === "waiting").length}) Agent console · Parley`;
  if (window.Notification && Notification.permission === "granted") new Notification("Parley", { body: $("notice").textContent });
}
function waitLabel(r) { return r.state === "mine" ? t.yours : r.state === "handled" ? t.handled : fmtWait(Math.floor((Date.now() - r.since) / 1000)); }
function renderQueue() {
  const list = $("queue"); list.replaceChildren();
  for (const r of queueRows) {
    const b = el("button", r.state); b.type = "button"; b.dataset.id = r.conversation_id;
    if (current && current.conversation_id === r.conversation_id) b.setAttribute("aria-current", "true");
    b.append(el("span", "wait", waitLabel(r)), el("strong", "", r.bot), el("span", "channel", r.channel_label));
    b.append(el("span", "question", r.last_question || "—"));
    b.append(el("small", "reason", `${t[r.escalation] || r.escalation}${r.timed_out ? ` · ${t.timedOut}` : ""}`));
    b.addEventListener("click", () => openConversation(r.conversation_id));
    const li = el("li"); li.append(b); list.append(li);
  }
  if (!queueRows.length) list.append(el("li", "", t.nobody));
}
setInterval(() => document.querySelectorAll("#queue .wait").forEach((w, i) => {
  const r = queueRows[i]; if (r && r.state === "waiting") w.textContent = waitLabel(r);
}), 1000);

function addMessage(m) {
  if (m.id && $("log").querySelector(`[data-id="${CSS.escape(m.id)}"]`)) return;
  const node = el("div", `msg ${m.role}`); node.dataset.id = m.id || "";
  node.append(el("span", "who", m.role === "agent" ? m.author || t.agent : m.role === "bot" ? current.bot : t[m.role] || m.role), document.createTextNode(m.text));
  $("log").append(node); $("log").scrollTop = $("log").scrollHeight;
}
function addTurn(d) {  // a bot turn after the return to the bot, live: its ids are the history's
  if (!d.pending_answer) addMessage({ id: `${d.turn_id}:q`, role: "visitor", text: d.question });
  if (d.answer) addMessage({ id: d.turn_id, role: "bot", text: d.answer });
}
function setOwner(owner, claimedBy) {
  current.owner = owner; if (claimedBy !== undefined) current.claimed_by = claimedBy;
  const mine = owner === "agent" && current.mine;
  $("owner").textContent = owner === "agent" ? `agent: ${current.claimed_by || "?"}` : t.owners[owner] || owner;
  $("claim").hidden = owner !== "waiting_agent";
  $("return").hidden = $("resolve").hidden = !mine;
  $("reply").hidden = !mine;
  $("close").hidden = !current.closable || owner === "agent";
}
function renderEvents(events) {
  $("events").replaceChildren(...events.map((e) => el("li", "", `${e.from} → ${e.to} by ${e.agent || e.actor} at ${new Date(e.at).toLocaleTimeString()}`)));
}
function renderContext(pack) {
  const ctx = $("context"); ctx.replaceChildren();
  for (const [label, value] of [["question", pack.question || "—"],
    ["reason", `${t[pack.escalation] || pack.reason || "—"}${pack.reason_detail ? ` — ${pack.reason_detail}` : ""}`],
    ["understanding", pack.understanding || "—"], ["topic", pack.topic || "—"],
    ["confidence", pack.confidence == null ? "—" : `${Math.round(pack.confidence * 100)}%`]]) {
    ctx.append(el("dt", "", t[label]), el("dd", label, value));
  }
  $("sources").replaceChildren(...pack.sources.map((s) => {
    const li = el("li", "source"); li.append(el("strong", "", `${s.title || s.chunk_id}${s.page ? ` (${t.page} ${s.page})` : ""}`));
    for (const sentence of s.sentences || []) li.append(el("q", "", sentence));
    return li;
  }));
}
async function refresh(id) {  // after an owner change: who holds it now, whether it is ours, the events
  const res = await fetch(`/agent/api/conversations/${id}`, { credentials: "same-origin" });
  if (!res.ok || !current || current.conversation_id !== id) return;
  const pack = await res.json();
  Object.assign(current, { mine: pack.mine, closable: pack.closable, claimed_by: pack.claimed_by });
  renderEvents(pack.owner_events); setOwner(pack.owner, pack.claimed_by);
}
async function openConversation(id) {
  const res = await fetch(`/agent/api/conversations/${id}`, { credentials: "same-origin" });
  if (!res.ok) return;
  current = await res.json();
  $("detail").hidden = false; $("conv-title").textContent = `${current.bot} · ${current.channel_label} · ${id.slice(0, 8)}`;
  $("log").replaceChildren(); current.history.forEach(addMessage);
  renderContext(current); renderEvents(current.owner_events);
  setOwner(current.owner, current.claimed_by);
  renderQueue();
  if (convEvents) convEvents.close();
  convEvents = new EventSource(`/agent/api/conversations/${id}/events`);
  for (const name of ["visitor_message", "agent_message", "system_message"]) {
    convEvents.addEventListener(name, (e) => { $("typing").hidden = true; addMessage(JSON.parse(e.data)); });
  }
  convEvents.addEventListener("turn_answered", (e) => addTurn(JSON.parse(e.data)));
  convEvents.addEventListener("owner_changed", (e) => {
    const d = JSON.parse(e.data);
    setOwner(d.owner);  // d.agent is the visitors' name for the agent; the pack has the agents' one
    refresh(current.conversation_id);
  });
  convEvents.addEventListener("visitor_typing", () => {
    $("typing").hidden = false; clearTimeout(typingTimer); typingTimer = setTimeout(() => { $("typing").hidden = true; }, 3000);
  });
}
function closeDetail() {
  if (convEvents) convEvents.close();
  convEvents = null; current = null; $("detail").hidden = true; renderQueue();
}

$("claim").addEventListener("click", async () => {
  const r = await post(`/agent/api/conversations/${current.conversation_id}/claim`);
  if (r.ok) { current.mine = true; current.closable = false; setOwner("agent", r.data.claimed_by); $("reply-text").focus(); }
  else { flash(r.data.claimed_by ? t.claimedBy(r.data.claimed_by) : r.data.message || t.noClaim); current.mine = false; setOwner("agent", r.data.claimed_by); }
  loadQueue();
});
for (const [id, action] of [["return", "return"], ["resolve", "resolve"]]) {
  $(id).addEventListener("click", async () => {
    const r = await post(`/agent/api/conversations/${current.conversation_id}/${action}`);
    if (r.ok) { current.closable = action === "return"; setOwner(r.data.owner); }
    loadQueue();
  });
}
$("close").addEventListener("click", async () => {
  const r = await post(`/agent/api/conversations/${current.conversation_id}/close`);
  if (r.ok) closeDetail(); else flash(r.data.message || r.data.code);
  loadQueue();
});
$("reply").addEventListener("submit", async (e) => {
  e.preventDefault();
  const text = $("reply-text").value.trim(); if (!text) return;
  $("reply-text").value = "";
  const r = await post(`/agent/api/conversations/${current.conversation_id}/messages`, { text, client_message_id: crypto.randomUUID() });
  if (r.ok) addMessage(r.data); else flash(r.data.message || t.notSent);
});
$("reply-text").addEventListener("keydown", (e) => { if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); $("reply").requestSubmit(); } });
$("reply-text").addEventListener("input", () => {
  if (current && Date.now() - lastTyping > 2000) { lastTyping = Date.now(); post(`/agent/api/conversations/${current.conversation_id}/typing`); }
});
$("my-name").addEventListener("submit", async (e) => {
  e.preventDefault();
  const r = await post("/agent/api/me", { display_name: $("my-name-input").value });
  if (r.ok) { $("my-name-input").value = r.data.display_name; $("me").textContent = r.data.console_name; flash(`${t.saved} ${r.data.shown_as}`); }
  else flash(r.data.message || r.data.code);
});

// One stream for the queues of all the agent's workspaces. It starts at the queues' current end, so the
// queue is (re)loaded each time it opens, reconnections included: no change falls between the two.
const queueEvents = new EventSource("/agent/api/queue/events");
queueEvents.addEventListener("open", loadQueue);
queueEvents.addEventListener("queue_changed", loadQueue);
if (window.Notification && Notification.permission === "default") Notification.requestPermission().catch(() => {});
loadQueue();
