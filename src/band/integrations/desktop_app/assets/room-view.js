// The room view: renders the transcript a tool result carries, then keeps it current by
// calling the monitor tool itself (caller "app") through the MCP Apps host bridge.
"use strict";

const MONITOR_TOOL = "band_wait_for_room_event";
const DEFAULT_ATTENTION = "user_first";
const instance = Math.random().toString(36).slice(2);
const state = {
  chatId: null, since: null, viewerId: null, attention: DEFAULT_ATTENTION,
  seen: new Set(), waitingOnAgent: new Map(), // message id -> sent at, until the agent replies
};
let nextId = 1;
const waiting = new Map();

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text; // text only: room content is never HTML
  return node;
}

function request(method, params) {
  const id = nextId++;
  window.parent.postMessage({ jsonrpc: "2.0", id, method, params }, "*");
  return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
}

function renderMessage(message) {
  if (!message.id || state.seen.has(message.id)) return;
  state.seen.add(message.id);
  const item = element("li");
  if (message.addressed_to_viewer) item.classList.add("addressed");
  if (message.sender_id === state.viewerId) item.classList.add("mine");
  item.append(element("span", "sender", message.sender_name || message.sender_type || "unknown"));
  if (message.inserted_at) item.append(element("span", "time", new Date(message.inserted_at).toLocaleTimeString()));
  item.append(element("div", "content", message.content || ""));
  document.getElementById("messages").append(item);
  item.scrollIntoView({ block: "end" });
}

function render(transcript) {
  if (!transcript || !transcript.chat_id) return;
  if (transcript.superseded) {
    document.body.classList.add("superseded");
    return;
  }
  state.chatId = transcript.chat_id;
  state.since = transcript.next_since || state.since;
  state.viewerId = (transcript.viewer || {}).id || state.viewerId;
  state.attention = transcript.attention || state.attention;
  document.getElementById("room-title").textContent = `Band room ${transcript.chat_id}`;
  (transcript.messages || []).forEach(renderMessage);
  (transcript.pending_requests || []).forEach((m) => state.waitingOnAgent.set(m.id, m.inserted_at || ""));
  for (const message of transcript.messages || []) {
    if (message.sender_id !== state.viewerId) continue; // the agent spoke: what came before is answered
    for (const [id, at] of state.waitingOnAgent) {
      if (at <= (message.inserted_at || "")) state.waitingOnAgent.delete(id);
    }
  }
  const pending = document.getElementById("pending");
  const count = state.waitingOnAgent.size;
  pending.hidden = count === 0;
  pending.textContent = count ? `${count} message(s) waiting for the agent` : "";
  const transport = transcript.transport || {};
  const live = transport.role === "follower" || transport.websocket_connected;
  const status = document.getElementById("room-status");
  status.textContent = live ? "live" : "catching up over REST";
  status.classList.toggle("live", Boolean(live));
  document.getElementById("attention").textContent = `attention: ${state.attention}`;
  document.getElementById("transport").textContent = `${transport.events_received || 0} events`;
}

async function watch() {
  while (state.chatId && !document.body.classList.contains("superseded")) {
    try {
      const args = { chat_id: state.chatId, caller: "app", instance };
      if (state.since) args.since = state.since;
      const result = await request("tools/call", { name: MONITOR_TOOL, arguments: args });
      render(result && result.structuredContent);
    } catch (error) {
      await new Promise((done) => setTimeout(done, 5000));
    }
  }
}

window.addEventListener("message", (event) => {
  const message = event.data || {};
  if (message.id !== undefined && waiting.has(message.id)) {
    const { resolve, reject } = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.error) reject(message.error);
    else resolve(message.result);
    return;
  }
  if (message.method === "ui/notifications/tool-result") {
    const first = !state.chatId;
    render((message.params || {}).structuredContent);
    if (first && state.chatId) watch();
  }
});

request("ui/initialize", { appInfo: { name: "band-room-view", version: "1" }, appCapabilities: {} })
  .then(() => window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/initialized" }, "*"))
  .catch(() => {});
