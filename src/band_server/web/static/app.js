// Live updates for a room page: a Phoenix v2 socket authenticated by the session cookie.
// Content is only ever set with textContent, never parsed as HTML.
(function () {
  "use strict";
  var timeline = document.getElementById("timeline");
  if (!timeline) return;
  var roomId = timeline.getAttribute("data-room-id");
  var status = document.getElementById("live-status");
  var topic = "chat_room:" + roomId;
  var HEARTBEAT_MS = 30000;
  var MENTION = /@\[\[([0-9A-Za-z-]{1,64})\]\]/g;
  var ref = 0;
  var joinRef = null;
  var heartbeat = null;
  var retryMs = 1000;

  function people() {
    var handles = {};
    var names = {};
    var rows = document.querySelectorAll("#participants li[data-id]");
    for (var i = 0; i < rows.length; i++) {
      handles[rows[i].getAttribute("data-id")] = rows[i].getAttribute("data-handle");
      names[rows[i].getAttribute("data-id")] = rows[i].getAttribute("data-name");
    }
    return { handles: handles, names: names };
  }

  function showMentions(text, handles) {
    return String(text).replace(MENTION, function (whole, id) {
      return Object.prototype.hasOwnProperty.call(handles, id) ? "@" + handles[id] : whole;
    });
  }

  function eventLabel(msg) {
    var meta = msg.metadata || {};
    if (msg.message_type === "tool_call" || msg.message_type === "tool_result") {
      var name = meta.tool_name || meta.name;
      if (typeof name !== "string") {
        try { name = JSON.parse(msg.content).name; } catch (e) { name = ""; }
      }
      return typeof name === "string" ? name : "";
    }
    var first = String(msg.content).trim().split("\n")[0] || "";
    return first.length > 80 ? first.slice(0, 80) + "…" : first;
  }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function render(msg) {
    var p = people();
    var who = msg.sender_name || p.names[msg.sender_id] || msg.sender_id;
    var body = showMentions(msg.content, p.handles);
    var li = el("li", "msg");
    li.setAttribute("data-id", msg.id);
    li.setAttribute("data-seq", String(msg.seq || 0));
    if (msg.message_type === "text") {
      var time = el("time", "", msg.inserted_at);
      time.setAttribute("datetime", msg.inserted_at);
      li.appendChild(el("span", "who", who));
      li.appendChild(document.createTextNode(" "));
      li.appendChild(time);
      li.appendChild(el("div", "body", body));
    } else {
      li.className = "msg event event-" + String(msg.message_type).replace(/[^a-z_]/g, "");
      var details = el("details");
      var summary = el("summary");
      summary.appendChild(el("span", "who", who));
      summary.appendChild(document.createTextNode(" "));
      summary.appendChild(el("span", "kind", msg.message_type));
      summary.appendChild(document.createTextNode(" "));
      summary.appendChild(el("span", "label", eventLabel(msg)));
      details.appendChild(summary);
      details.appendChild(el("pre", "body", body));
      li.appendChild(details);
    }
    return li;
  }

  function append(msg) {
    if (!msg || !msg.id) return;
    var rows = timeline.querySelectorAll("li[data-id]");
    for (var i = 0; i < rows.length; i++) {
      if (rows[i].getAttribute("data-id") === msg.id) return;
    }
    var empty = timeline.querySelector("li.empty");
    if (empty) empty.remove();
    var nearBottom = window.innerHeight + window.scrollY >= document.body.offsetHeight - 80;
    timeline.appendChild(render(msg));
    if (nearBottom) window.scrollTo(0, document.body.scrollHeight);
  }

  function setStatus(text) {
    if (status) status.textContent = text;
  }

  function connect() {
    var scheme = location.protocol === "https:" ? "wss:" : "ws:";
    var ws = new WebSocket(scheme + "//" + location.host + "/api/v1/socket/websocket?vsn=2.0.0");
    function send(frame) { ws.send(JSON.stringify(frame)); }
    ws.onopen = function () {
      retryMs = 1000;
      ref += 1;
      joinRef = String(ref);
      send([joinRef, joinRef, topic, "phx_join", {}]);
      heartbeat = setInterval(function () {
        ref += 1;
        send([null, String(ref), "phoenix", "heartbeat", {}]);
      }, HEARTBEAT_MS);
    };
    ws.onmessage = function (event) {
      var frame;
      try { frame = JSON.parse(event.data); } catch (e) { return; }
      if (!Array.isArray(frame) || frame.length !== 5) return;
      if (frame[2] !== topic) return;
      if (frame[3] === "phx_reply" && frame[1] === joinRef) {
        setStatus(frame[4] && frame[4].status === "ok" ? "live" : "not allowed");
      } else if (frame[3] === "message_created") {
        append(frame[4]);
      }
    };
    ws.onclose = function () {
      clearInterval(heartbeat);
      setStatus("reconnecting…");
      setTimeout(connect, retryMs);
      retryMs = Math.min(retryMs * 2, 30000);
    };
  }

  connect();
})();
