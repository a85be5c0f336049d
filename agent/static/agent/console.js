/* The agent console: the live queue, the context pack, and the live chat with a visitor.
 * Same-origin only (session cookie + CSRF header); every text is shown with textContent. */
"use strict";
const $ = (id) => document.getElementById(id);
const csrf = document.querySelector("meta[name=csrf-token]").content;
let queueRows = [], current = null, convEvents = null, seenWaiting = new Set(), firstLoad = true, typingTimer = null, lastTyping = 0;

function el(tag, cls, text) { const n = document.createElement(tag); if (cls) n.className = cls; if (text != null) n.textContent = text; return n; }
async function post(path, body) {
  const res = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json", "X-CSRFToken": csrf }, body: JSON.stringify(body || {}), credentials: "same-origin" });
  const data = res.status === 204 ? {} : await res.json();
  return { ok: res.ok, status: res.status, data };
}
function fmtWait(seconds) { const m = Math.floor(seconds / 60), s = seconds % 60; return `${m}:${String(s).padStart(2, "0")}`; }

async function loadQueue() {
  const res = await fetch("/agent/api/queue", { credentials: "same-origin" });
  if (!res.ok) return;
  const now = Date.now();
  queueRows = (await res.json()).conversations.map((r) => ({ ...r, since: now - r.wait_seconds * 1000 }));
  const fresh = queueRows.filter((r) => r.owner === "waiting_agent" && !seenWaiting.has(r.conversation_id));
  fresh.forEach((r) => seenWaiting.add(r.conversation_id));
  if (fresh.length && !firstLoad) notify(fresh.length);
  firstLoad = false;
  renderQueue();
}
function notify(count) {
  $("notice").textContent = `${count} new waiting conversation${count > 1 ? "s" : ""}`;
  document.title = `(${queueRows.filter((r) => r.owner === "waiting_agent").length}) Agent console · Parley`;
  if (window.Notification && Notification.permission === "granted") new Notification("Parley", { body: $("notice").textContent });
  setTimeout(() => { $("notice").textContent = ""; }, 8000);
}
function renderQueue() {
  const list = $("queue"); list.replaceChildren();
  for (const r of queueRows) {
    const b = el("button", r.mine ? "mine" : "");
    b.type = "button"; b.dataset.id = r.conversation_id;
    b.append(el("span", "wait", r.owner === "agent" ? "yours" : fmtWait(Math.floor((Date.now() - r.since) / 1000))));
    b.append(el("strong", "", r.bot), el("br"), el("small", "", `${r.reason.replace(/_/g, " ")}${r.timed_out ? " · timed out" : ""}`));
    b.addEventListener("click", () => openConversation(r.conversation_id));
    const li = el("li"); li.append(b); list.append(li);
  }
  if (!queueRows.length) list.append(el("li", "", "Nobody is waiting."));
}
setInterval(() => document.querySelectorAll("#queue .wait").forEach((w, i) => {
  const r = queueRows[i]; if (r && r.owner !== "agent") w.textContent = fmtWait(Math.floor((Date.now() - r.since) / 1000));
}), 1000);

function addMessage(m) {
  if (m.id && $("log").querySelector(`[data-id="${CSS.escape(m.id)}"]`)) return;
  const node = el("div", `msg ${m.role}`); node.dataset.id = m.id || "";
  node.append(el("span", "who", m.role === "agent" ? m.author || "Agent" : m.role), document.createTextNode(m.text));
  $("log").append(node); $("log").scrollTop = $("log").scrollHeight;
}
function setOwner(owner, claimedBy) {
  current.owner = owner; if (claimedBy !== undefined) current.claimed_by = claimedBy;
  const mine = owner === "agent" && current.claimed_by === $("me").textContent;
  $("owner").textContent = owner === "agent" ? `agent: ${current.claimed_by || "?"}` : owner.replace("_", " ");
  $("claim").hidden = owner !== "waiting_agent";
  $("return").hidden = $("resolve").hidden = !mine;
  $("reply").hidden = !mine;
}
function renderEvents(events) {
  $("events").replaceChildren(...events.map((e) => el("li", "", `${e.from} → ${e.to} by ${e.agent || e.actor} at ${new Date(e.at).toLocaleTimeString()}`)));
}
async function refreshEvents(id) {
  const res = await fetch(`/agent/api/conversations/${id}`, { credentials: "same-origin" });
  if (res.ok && current && current.conversation_id === id) renderEvents((await res.json()).owner_events);
}
async function openConversation(id) {
  const res = await fetch(`/agent/api/conversations/${id}`, { credentials: "same-origin" });
  if (!res.ok) return;
  current = await res.json();
  $("detail").hidden = false; $("conv-title").textContent = `${current.bot} · ${id.slice(0, 8)}`;
  $("log").replaceChildren(); current.history.forEach(addMessage);
  const ctx = $("context"); ctx.replaceChildren();
  for (const [label, value] of [["Escalation reason", `${current.reason}${current.reason_detail ? ` — ${current.reason_detail}` : ""}`],
    ["Bot's understanding", current.understanding || "—"], ["Topic", current.topic || "—"],
    ["Confidence", current.confidence == null ? "—" : `${Math.round(current.confidence * 100)}%`]]) ctx.append(el("dt", "", label), el("dd", "", value));
  $("sources").replaceChildren(...current.sources.map((s) => el("li", "", `${s.title || s.chunk_id}${s.page ? ` (p. ${s.page})` : ""}`)));
  renderEvents(current.owner_events);
  setOwner(current.owner, current.claimed_by);
  if (convEvents) convEvents.close();
  convEvents = new EventSource(`/agent/api/conversations/${id}/events`);
  for (const name of ["visitor_message", "agent_message", "system_message"]) {
    convEvents.addEventListener(name, (e) => { $("typing").hidden = true; addMessage(JSON.parse(e.data)); });
  }
  convEvents.addEventListener("owner_changed", (e) => {
    const d = JSON.parse(e.data);
    setOwner(d.owner, d.agent || current.claimed_by);
    refreshEvents(current.conversation_id);
  });
  convEvents.addEventListener("visitor_typing", () => {
    $("typing").hidden = false; clearTimeout(typingTimer); typingTimer = setTimeout(() => { $("typing").hidden = true; }, 3000);
  });
}

$("claim").addEventListener("click", async () => {
  const r = await post(`/agent/api/conversations/${current.conversation_id}/claim`);
  if (r.ok) { setOwner("agent", r.data.claimed_by); $("reply-text").focus(); }
  else { $("notice").textContent = r.data.claimed_by ? `Already claimed by ${r.data.claimed_by}` : r.data.message || "Could not claim"; setOwner("agent", r.data.claimed_by); }
  loadQueue();
});
for (const [id, action] of [["return", "return"], ["resolve", "resolve"]]) {
  $(id).addEventListener("click", async () => {
    const r = await post(`/agent/api/conversations/${current.conversation_id}/${action}`);
    if (r.ok) setOwner(r.data.owner); loadQueue();
  });
}
$("reply").addEventListener("submit", async (e) => {
  e.preventDefault();
  const text = $("reply-text").value.trim(); if (!text) return;
  $("reply-text").value = "";
  const r = await post(`/agent/api/conversations/${current.conversation_id}/messages`, { text, client_message_id: crypto.randomUUID() });
  if (r.ok) addMessage(r.data); else $("notice").textContent = r.data.message || "Not sent";
});
$("reply-text").addEventListener("keydown", (e) => { if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); $("reply").requestSubmit(); } });
$("reply-text").addEventListener("input", () => {
  if (current && Date.now() - lastTyping > 2000) { lastTyping = Date.now(); post(`/agent/api/conversations/${current.conversation_id}/typing`); }
});

// One stream for the queues of all the agent's workspaces. It starts at the queues' current end, so the
// queue is (re)loaded each time it opens, reconnections included: no change falls between the two.
const queueEvents = new EventSource("/agent/api/queue/events");
queueEvents.addEventListener("open", loadQueue);
queueEvents.addEventListener("queue_changed", loadQueue);
if (window.Notification && Notification.permission === "default") Notification.requestPermission().catch(() => {});
loadQueue();
