// A room, live: the official Phoenix client holds the socket (it reconnects and rejoins by
// itself); after every join the page fetches what it missed. Content is only ever set with
// textContent, never parsed as HTML.
(function () {
  "use strict";
  var Band = window.Band;
  var el = Band.el;
  var root = document.getElementById("room");
  if (!root || !window.Phoenix) return;

  var roomId = root.getAttribute("data-room-id");
  var meId = root.getAttribute("data-me");
  var timeline = document.getElementById("timeline");
  var statusNode = document.getElementById("live-status");
  var workingNode = document.getElementById("working");
  var peopleNode = document.getElementById("participants");
  var addForm = document.getElementById("add-participant");
  var addSelect = document.getElementById("add-who");
  var board = Band.Board(document.getElementById("board"), roomId);

  var TOKEN = /@\[\[([0-9A-Za-z-]{1,64})\]\]/g;
  var TERMINAL = { processed: true };
  var state = {
    loaded: false,
    lastSeq: 0,
    readSent: 0,
    items: {}, // id -> {msg, node}
    calls: {}, // tool_call_id -> node of the call
    orphanResults: {}, // tool_call_id -> result message seen before its call
    people: {}, // participant id -> participant
    working: {},
  };

  // -- small helpers ----------------------------------------------------------------------


  function parseJSON(text) {
    try {
      var value = JSON.parse(text);
      return value && typeof value === "object" ? value : null;
    } catch (e) {
      return null;
    }
  }

  function pretty(value) {
    if (typeof value === "string") {
      var parsed = parseJSON(value);
      if (parsed) return JSON.stringify(parsed, null, 2);
      return value;
    }
    return JSON.stringify(value, null, 2);
  }

  function clock(iso) {
    var when = new Date(iso);
    if (isNaN(when.getTime())) return "";
    var time = when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    // Only today's messages go by the time alone.
    if (when.toDateString() === new Date().toDateString()) return time;
    return when.toLocaleDateString([], { month: "short", day: "numeric" }) + ", " + time;
  }

  function nameOf(id, msg) {
    var mentions = (msg && msg.metadata && msg.metadata.mentions) || [];
    for (var i = 0; i < mentions.length; i++) {
      if (mentions[i] && mentions[i].id === id && mentions[i].name) return mentions[i].name;
    }
    var person = state.people[id];
    if (person) return person.name || person.handle;
    return null;
  }

  function setStatus(kind, text) {
    statusNode.setAttribute("data-state", kind);
    statusNode.textContent = text;
  }

  // -- rendering --------------------------------------------------------------------------

  // Text with @[[id]] tokens shown as @Name (never the raw token).
  function richText(container, content, msg) {
    var text = String(content);
    var at = 0;
    var match;
    TOKEN.lastIndex = 0;
    while ((match = TOKEN.exec(text)) !== null) {
      if (match.index > at) container.appendChild(document.createTextNode(text.slice(at, match.index)));
      var name = nameOf(match[1], msg);
      var chip = el("span", "mention" + (match[1] === meId ? " me" : ""), "@" + (name || "someone"));
      container.appendChild(chip);
      at = TOKEN.lastIndex;
    }
    if (at < text.length) container.appendChild(document.createTextNode(text.slice(at)));
    return container;
  }

  function header(msg, label) {
    var head = el("div", "msg-head");
    var who = el("span", "who", msg.sender_name || nameOf(msg.sender_id) || "Someone");
    head.appendChild(who);
    if (msg.sender_type === "Agent") head.appendChild(el("span", "pill agent-pill", "Agent"));
    if (label) head.appendChild(el("span", "kind", label));
    var time = el("time", "", clock(msg.inserted_at));
    time.setAttribute("datetime", msg.inserted_at);
    time.title = new Date(msg.inserted_at).toLocaleString();
    head.appendChild(time);
    return head;
  }

  function deliveries(msg) {
    var statuses = (msg.metadata && msg.metadata.delivery_status) || {};
    if (!Object.keys(statuses).length && msg.message_type === "text") {
      // A new message is pushed before any agent claims it: every mentioned agent has it.
      ((msg.metadata && msg.metadata.mentions) || []).forEach(function (m) {
        var who = m && state.people[m.id];
        if (who && who.type === "Agent" && m.kind !== "reference") statuses[m.id] = { status: "delivered" };
      });
    }
    var ids = Object.keys(statuses);
    if (!ids.length) return null;
    var list = el("ul", "deliveries");
    list.setAttribute("aria-label", "Delivery");
    ids.forEach(function (agentId) {
      var status = statuses[agentId] || {};
      var kind = String(status.status || "delivered");
      var item = el("li", "delivery status-" + kind.replace(/[^a-z]/g, ""));
      item.appendChild(el("span", "delivery-agent", nameOf(agentId, msg) || "Agent"));
      item.appendChild(el("span", "delivery-state", kind));
      if (kind === "failed") {
        var attempts = status.attempts || [];
        var last = attempts.length ? attempts[attempts.length - 1] : null;
        if (last && last.error) item.appendChild(el("span", "delivery-error", last.error));
      }
      list.appendChild(item);
    });
    return list;
  }

  function attachments(msg) {
    var files = msg.attachments || [];
    if (!files.length) return null;
    var list = el("ul", "files");
    list.setAttribute("aria-label", "Files");
    files.forEach(function (file) {
      var item = el("li", "file");
      var link = el("a", "file-name", file.name || "file");
      link.href = "/rooms/" + roomId + "/files/" + encodeURIComponent(file.id);
      link.setAttribute("download", "");
      item.appendChild(link);
      var size = typeof file.bytes === "number" ? Band.formatBytes(file.bytes) : "";
      item.appendChild(el("span", "file-meta", [file.content_type, size].filter(Boolean).join(" · ")));
      list.appendChild(item);
    });
    return list;
  }

  function renderText(msg) {
    var li = el("li", "msg text");
    var mentionsMe = ((msg.metadata && msg.metadata.mentions) || []).some(function (m) {
      return m && m.id === meId;
    });
    if (mentionsMe) li.classList.add("mentions-me");
    if (msg.sender_id === meId) li.classList.add("mine");
    li.appendChild(header(msg));
    li.appendChild(richText(el("div", "body"), msg.content, msg));
    var files = attachments(msg);
    if (files) li.appendChild(files);
    var status = deliveries(msg);
    if (status) li.appendChild(status);
    return li;
  }

  function toolOutput(details, result) {
    var body = parseJSON(result.content) || {};
    var output = body.output !== undefined ? body.output : result.content;
    var failed =
      (result.metadata && (result.metadata.is_error || result.metadata.failure)) ||
      (typeof output === "string" && /^Error\b/.test(output));
    var section = details.querySelector(".tool-output");
    section.textContent = "";
    section.appendChild(el("span", "tool-section", "Result"));
    section.appendChild(el("pre", "", pretty(output)));
    section.hidden = false;
    var badge = details.querySelector(".tool-state");
    badge.textContent = failed ? "failed" : "done";
    badge.className = "tool-state " + (failed ? "is-failed" : "is-done");
  }

  function renderTool(msg) {
    var body = parseJSON(msg.content) || {};
    var meta = msg.metadata || {};
    var name = body.name || meta.tool_name || meta.name || "tool";
    var li = el("li", "msg event tool");
    var details = el("details");
    var summary = el("summary");
    summary.appendChild(el("span", "tool-icon", "⚙"));
    summary.appendChild(el("span", "who", msg.sender_name || "Agent"));
    summary.appendChild(el("span", "kind", msg.message_type === "tool_call" ? "called" : "tool result"));
    summary.appendChild(el("code", "tool-name", name));
    var badge = el("span", "tool-state", msg.message_type === "tool_call" ? "running" : "");
    summary.appendChild(badge);
    var time = el("time", "", clock(msg.inserted_at));
    time.setAttribute("datetime", msg.inserted_at);
    summary.appendChild(time);
    details.appendChild(summary);
    if (msg.message_type === "tool_call") {
      var args = el("div", "tool-args");
      args.appendChild(el("span", "tool-section", "Arguments"));
      args.appendChild(el("pre", "", pretty(body.args !== undefined ? body.args : msg.content)));
      details.appendChild(args);
    }
    var output = el("div", "tool-output");
    output.hidden = true;
    details.appendChild(output);
    li.appendChild(details);
    var callId = body.tool_call_id || meta.tool_call_id;
    if (msg.message_type === "tool_call") {
      if (callId) state.calls[callId] = details;
      var early = callId && state.orphanResults[callId];
      if (early) {
        toolOutput(details, early.msg);
        early.node.remove();
        delete state.orphanResults[callId];
      }
    } else {
      toolOutput(details, msg);
    }
    return li;
  }

  var EVENT_LABELS = { thought: "thought", error: "error", task: "task", attention: "attention" };

  // What a task event is about: a task of the board (its number and status), the room's
  // goal, or the agent's own record (token usage). Only ever read from the message itself.
  function taskTopic(msg) {
    var meta = msg.metadata || {};
    var task = meta.band_task;
    if (task && typeof task === "object") {
      var number = typeof task.number === "number" ? " #" + task.number : "";
      return { kind: "board", label: "task" + number, status: task.state === "active" ? task.overall_status : task.state };
    }
    if (meta.band_board && typeof meta.band_board === "object") return { kind: "board", label: "goal" };
    if (meta.band_usage) return { kind: "usage", label: "usage" };
    return null;
  }

  function renderEvent(msg) {
    var kind = String(msg.message_type).replace(/[^a-z_]/g, "");
    var li = el("li", "msg event event-" + kind);
    var topic = kind === "task" ? taskTopic(msg) : null;
    var head = header(msg, topic ? topic.label : EVENT_LABELS[kind] || kind);
    if (topic && topic.status) head.insertBefore(Band.statusPill(topic.status), head.querySelector("time"));
    if (topic) li.classList.add("task-" + topic.kind);
    li.appendChild(head);
    li.appendChild(richText(el("div", "body"), msg.content, msg));
    if (kind === "error") li.setAttribute("role", "note");
    return li;
  }

  function render(msg) {
    var node;
    if (msg.message_type === "text") node = renderText(msg);
    else if (msg.message_type === "tool_call" || msg.message_type === "tool_result") node = renderTool(msg);
    else node = renderEvent(msg);
    node.setAttribute("data-id", msg.id);
    node.setAttribute("data-seq", String(msg.seq || 0));
    return node;
  }

  function nearBottom() {
    return timeline.scrollHeight - timeline.scrollTop - timeline.clientHeight < 120;
  }

  function place(node, seq) {
    // Keep the timeline in sequence order even when a catch-up fills a gap.
    var rows = timeline.children;
    for (var i = rows.length - 1; i >= 0; i--) {
      var at = Number(rows[i].getAttribute("data-seq") || 0);
      if (at <= seq) {
        rows[i].after(node);
        return;
      }
    }
    timeline.prepend(node);
  }

  function add(msg) {
    if (!msg || !msg.id) return;
    var known = state.items[msg.id];
    if (known) {
      update(msg);
      return;
    }
    var body = (msg.message_type === "tool_result" && parseJSON(msg.content)) || {};
    var callId = body.tool_call_id || (msg.metadata && msg.metadata.tool_call_id);
    var stick = nearBottom();
    var empty = timeline.querySelector(".empty");
    if (empty) empty.remove();
    if (msg.message_type === "tool_result" && callId && state.calls[callId]) {
      // Shown inside its call: the pair folds into one line.
      toolOutput(state.calls[callId], msg);
      state.items[msg.id] = { msg: msg, node: null };
    } else {
      var node = render(msg);
      place(node, msg.seq || 0);
      state.items[msg.id] = { msg: msg, node: node };
      if (msg.message_type === "tool_result" && callId) state.orphanResults[callId] = { msg: msg, node: node };
    }
    if ((msg.seq || 0) > state.lastSeq) state.lastSeq = msg.seq || 0;
    if (msg.message_type === "task" && state.loaded) board.refresh();
    if (stick) timeline.scrollTop = timeline.scrollHeight;
    markRead();
  }

  function update(msg) {
    var known = state.items[msg.id];
    if (!known) return add(msg);
    known.msg = msg;
    if (!known.node || msg.message_type !== "text") return;
    var old = known.node.querySelector(".deliveries");
    var fresh = deliveries(msg);
    if (old && fresh) old.replaceWith(fresh);
    else if (old) old.remove();
    else if (fresh) known.node.appendChild(fresh);
  }

  // -- working indicator ------------------------------------------------------------------

  function renderWorking() {
    var names = Object.keys(state.working)
      .filter(function (id) { return state.working[id]; })
      .map(function (id) { return nameOf(id) || "An agent"; });
    if (!names.length) {
      workingNode.hidden = true;
      workingNode.textContent = "";
      return;
    }
    workingNode.textContent = "";
    workingNode.appendChild(el("span", "dots", ""));
    workingNode.appendChild(document.createTextNode(names.join(", ") + (names.length > 1 ? " are" : " is") + " working…"));
    workingNode.hidden = false;
  }

  function stopWorking(agentId, working) {
    if (!!state.working[agentId] === working) return;
    state.working[agentId] = working;
    renderWorking();
  }

  // -- participants -----------------------------------------------------------------------

  function renderPeople(participants, addable) {
    // A focus on a row that is drawn again (or on a control that hides) goes to the panel's
    // heading, not to the start of the page.
    var panel = document.getElementById("side-panel");
    var hadFocus = panel.contains(document.activeElement);
    state.people = {};
    peopleNode.textContent = "";
    participants.forEach(function (p) {
      state.people[p.id] = p;
      var li = el("li", "person");
      var who = el("div", "person-main");
      var dot = el("span", "presence-dot " + (p.online ? "online" : "offline"));
      dot.title = p.online ? "Online" : "Offline";
      who.appendChild(dot);
      var name = el("span", "who", p.name || p.handle);
      name.title = p.name || p.handle; // the full name when it is cut short
      who.appendChild(name);
      if (p.id === meId) who.appendChild(el("span", "pill", "you"));
      else if (p.type === "Agent") who.appendChild(el("span", "pill agent-pill", "Agent"));
      li.appendChild(who);
      li.appendChild(el("div", "handle", "@" + p.handle + (p.role === "owner" ? " · owner" : "")));
      if (p.removable) {
        var button = el("button", "link danger-text", p.id === meId ? "Leave" : "Remove");
        button.type = "button";
        button.setAttribute("aria-label", (p.id === meId ? "Leave the room" : "Remove " + (p.name || p.handle)));
        button.addEventListener("click", function () { removePerson(p, button); });
        li.appendChild(button);
      }
      peopleNode.appendChild(li);
    });
    addSelect.textContent = "";
    addable.forEach(function (p) {
      var option = el("option", "", (p.name || p.handle) + " (@" + p.handle + ")");
      option.value = p.id;
      addSelect.appendChild(option);
    });
    var none = !addable.length;
    addForm.querySelector(".inline-form").hidden = none;
    addForm.querySelector("[data-nobody]").hidden = !none;
    renderWorking();
    var at = document.activeElement;
    if (hadFocus && (!panel.contains(at) || !at.getClientRects().length)) {
      document.getElementById("participants-title").focus();
    }
  }

  function removePerson(p, button) {
    var question = p.id === meId ? "Leave this room?" : "Remove " + (p.name || p.handle) + " from this room?";
    if (button.getAttribute("aria-disabled") === "true" || !window.confirm(question)) return;
    // aria-disabled, not disabled: a disabled button would drop the keyboard focus.
    button.setAttribute("aria-disabled", "true");
    var body = new URLSearchParams({ csrf: Band.csrf() });
    Band.post("/rooms/" + roomId + "/participants/" + encodeURIComponent(p.id) + "/remove", body).then(function (result) {
      button.removeAttribute("aria-disabled");
      if (!result.ok) {
        window.alert(Band.errorMessage(result));
        return;
      }
      if (p.id === meId) window.location.assign("/rooms");
      else catchUp();
    });
  }

  addForm.addEventListener("submit", function (event) {
    event.preventDefault();
    var error = addForm.querySelector("[data-form-error]");
    error.hidden = true;
    Band.post(addForm.action, new URLSearchParams(new FormData(addForm))).then(function (result) {
      if (!result.ok) {
        error.textContent = Band.errorMessage(result);
        error.hidden = false;
        return;
      }
      catchUp();
    });
  });

  // On a narrow screen the side panel covers the timeline: the toggle opens it, and the
  // toggle again or Escape closes it, back on the toggle.
  var toggle = document.querySelector("[data-toggle-panel]");
  function showPanel(open) {
    root.classList.toggle("show-panel", open);
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
  }
  toggle.addEventListener("click", function () {
    showPanel(!root.classList.contains("show-panel"));
  });
  document.getElementById("side-panel").addEventListener("keydown", function (event) {
    if (event.key !== "Escape" || !root.classList.contains("show-panel")) return;
    showPanel(false);
    toggle.focus();
  });

  // -- catching up ------------------------------------------------------------------------

  var fetching = null;
  var again = false;

  // Messages that may still change (a delivery not yet processed) are fetched again too.
  function resumeFrom() {
    var from = state.lastSeq;
    Object.keys(state.items).forEach(function (id) {
      var msg = state.items[id].msg;
      var statuses = (msg.metadata && msg.metadata.delivery_status) || {};
      Object.keys(statuses).forEach(function (agent) {
        if (!TERMINAL[statuses[agent].status] && (msg.seq || 0) - 1 < from) from = (msg.seq || 1) - 1;
      });
    });
    return from;
  }

  function catchUp() {
    if (fetching) {
      again = true;
      return fetching;
    }
    var url = "/rooms/" + roomId + "/timeline" + (state.loaded ? "?after=" + resumeFrom() : "");
    fetching = fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) {
        if (response.status === 401) {
          setStatus("offline", "Signed out");
          return null;
        }
        if (response.status === 404) {
          setStatus("offline", "You are not in this room");
          return null;
        }
        return response.ok ? response.json() : null;
      })
      .then(function (data) {
        if (!data) return;
        renderPeople(data.participants || [], data.addable || []);
        if (!state.loaded) board.refresh();
        (data.items || []).forEach(add);
        state.working = {};
        (data.working || []).forEach(function (id) { state.working[id] = true; });
        renderWorking();
        if (!state.loaded) {
          state.loaded = true;
          state.readSent = data.last_read_seq || 0;
          if (!(data.items || []).length) timeline.appendChild(el("li", "empty", "No messages yet. Say hello, and @mention an agent to bring it in."));
          timeline.scrollTop = timeline.scrollHeight;
          markRead(true);
        }
        if (data.has_more) again = true;
      })
      .catch(function () {
        /* the next join tries again */
      })
      .then(function () {
        fetching = null;
        if (again) {
          again = false;
          catchUp();
        }
      });
    return fetching;
  }

  // The read marker follows what the person has seen: at once when the room opens, then at
  // most every 800 ms while messages stream in, and whatever is left when the page goes.
  var readTimer = null;
  function sendRead() {
    clearTimeout(readTimer);
    readTimer = null;
    var seq = state.lastSeq;
    if (seq <= state.readSent) return;
    var before = state.readSent;
    state.readSent = seq;
    var body = new URLSearchParams({ seq: String(seq), csrf: Band.csrf() });
    Band.post("/rooms/" + roomId + "/read", body, true).then(function (result) {
      if (!result.ok && state.readSent === seq) state.readSent = before;
    });
  }
  function markRead(now) {
    if (!state.loaded || document.visibilityState !== "visible" || state.lastSeq <= state.readSent) return;
    if (now === true) sendRead();
    else if (!readTimer) readTimer = setTimeout(sendRead, 800);
  }
  document.addEventListener("visibilitychange", markRead);
  window.addEventListener("pagehide", function () {
    if (readTimer) sendRead();
  });

  // -- the socket -------------------------------------------------------------------------

  var socket = Band.socket();
  socket.onOpen(function () { setStatus("connecting", "Joining…"); });
  socket.onError(function () { setStatus("offline", "Reconnecting…"); });
  socket.onClose(function () { setStatus("offline", "Reconnecting…"); });

  var room = socket.channel("chat_room:" + roomId, {});
  room.on("message_created", add);
  room.on("message_updated", update);
  room.on("room_updated", function (payload) {
    if (!payload || !payload.title) return;
    var heading = root.querySelector(".room-head h1");
    heading.textContent = payload.title;
    document.title = payload.title + " · Band";
  });
  room.on("agent_activity", function (payload) {
    if (payload && payload.agent_id) stopWorking(payload.agent_id, !!payload.working);
  });
  room.join()
    .receive("ok", function () {
      setStatus("live", "Live");
      catchUp();
    })
    .receive("error", function () {
      setStatus("offline", "Not allowed");
      catchUp();
    });

  var roster = socket.channel("room_participants:" + roomId, {});
  roster.on("participant_added", function () { catchUp(); });
  roster.on("participant_removed", function (payload) {
    if (payload && payload.id === meId) {
      setStatus("offline", "You are no longer in this room");
      socket.disconnect();
      return;
    }
    catchUp();
  });
  roster.join();
  socket.connect();

  // -- the composer -----------------------------------------------------------------------

  Band.Composer({
    root: root,
    roomId: roomId,
    me: meId,
    people: function () { return state.people; },
    // A message that was sent while the socket is down is fetched by the page itself.
    sent: function () {
      if (statusNode.getAttribute("data-state") !== "live") catchUp();
    },
  });
})();
