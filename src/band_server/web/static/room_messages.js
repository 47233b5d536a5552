// How each kind of timeline row looks: text messages (Markdown, files with image thumbnails,
// delivery per mentioned agent), tool calls folded with their results by tool_call_id, and
// events (thought, error, task).
// Band.MessageViews(room) returns { render, update, toolOutput }; `room` gives roomId, meId,
// nameOf(id, msg), state.people, and the maps state.calls / state.orphanResults.
(function () {
  "use strict";
  var Band = (window.Band = window.Band || {});
  var el = Band.el;
  var text = Band.RoomText;
  // Images shown as thumbnails: the types the file route serves inline (files/serving.py);
  // every other file (SVG and HTML included) is a download link with its name, type and size.
  var PREVIEW_TYPES = { "image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true };
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

  // A tool call pairs with its result within one agent's turn: two turns running at once may
  // use the same tool_call_id, and each post names its turn (metadata.turn_id).
  function callKey(msg, callId) {
    if (!callId) return "";
    return [msg.sender_id || "", (msg.metadata && msg.metadata.turn_id) || "", callId].join("/");
  }
  Band.toolCallKey = callKey;

  function timeOf(msg) {
    var time = el("time", "", text.clock(msg.inserted_at));
    time.setAttribute("datetime", msg.inserted_at);
    return time;
  }

  Band.MessageViews = function (room) {
    var state = room.state;

    function rich(container, content, msg) {
      return text.richText(container, content, msg, room.nameOf, room.meId);
    }

    // A text message's Markdown, its mentions named as the message or the roster names them.
    function markdown(container, content, msg) {
      var names = { of: function (id) { return room.nameOf(id, msg); }, me: room.meId };
      return Band.Markdown.render(container, content, names);
    }

    function header(msg, label) {
      var head = el("div", "msg-head");
      head.appendChild(el("span", "who", msg.sender_name || room.nameOf(msg.sender_id) || "Someone"));
      if (msg.sender_type === "Agent") head.appendChild(el("span", "pill agent-pill", "Agent"));
      if (label) head.appendChild(el("span", "kind", label));
      var time = timeOf(msg);
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
        // The status opens the agent's turn (room_turn.js).
        var open = el("button", "delivery-open");
        open.type = "button";
        open.title = "Open the turn";
        open.setAttribute("data-agent", agentId);
        open.addEventListener("click", function () {
          if (room.turns) room.turns.open(msg.id, agentId);
        });
        open.appendChild(el("span", "delivery-agent", room.nameOf(agentId, msg) || "Agent"));
        open.appendChild(el("span", "delivery-state", kind));
        item.appendChild(open);
        if (kind === "failed") {
          var attempts = status.attempts || [];
          var last = attempts.length ? attempts[attempts.length - 1] : null;
          if (last && last.error) item.appendChild(el("span", "delivery-error", last.error));
        }
        list.appendChild(item);
      });
      var trace = traceLink(msg);
      if (trace) list.appendChild(trace);
      return list;
    }

    // The message's trace (the platform records its id while tracing is on): a link when the
    // platform names a trace viewer (data-trace-url, with {trace_id}), else the id itself.
    function traceLink(msg) {
      var id = msg.metadata && msg.metadata.trace_id;
      if (typeof id !== "string" || !/^[0-9a-f]{32}$/.test(id)) return null;
      var item = el("li", "delivery-trace");
      var root = document.getElementById("room");
      var template = (root && root.getAttribute("data-trace-url")) || "";
      var label = "trace " + id.slice(0, 8);
      if (/^https?:\/\//.test(template) && template.indexOf("{trace_id}") >= 0) {
        var link = el("a", "trace-link", label);
        link.href = template.split("{trace_id}").join(id);
        link.target = "_blank";
        link.rel = "noopener noreferrer";
        link.title = "Trace " + id;
        item.appendChild(link);
      } else {
        var code = el("code", "trace-id", label);
        code.title = "Trace " + id;
        item.appendChild(code);
      }
      return item;
    }

    function attachments(msg) {
      var files = msg.attachments || [];
      if (!files.length) return null;
      var list = el("ul", "files");
      list.setAttribute("aria-label", "Files");
      files.forEach(function (file) {
        var url = "/rooms/" + room.roomId + "/files/" + encodeURIComponent(file.id);
        var item = el("li", "file");
        if (PREVIEW_TYPES[file.content_type]) {
          // An image of a safe type: the server's thumbnail, which opens it full size.
          item.classList.add("file-image");
          var open = el("a", "thumb");
          open.href = url;
          open.target = "_blank";
          open.rel = "noopener noreferrer";
          open.setAttribute("aria-label", "Open " + (file.name || "image") + " full size");
          var img = el("img");
          img.src = url + "/thumbnail"; // made on the server: small, metadata stripped
          img.alt = file.name || "image";
          img.loading = "lazy";
          // An image the server would not decode (too large, damaged): the link stays.
          img.addEventListener("error", function () { open.hidden = true; });
          open.appendChild(img);
          item.appendChild(open);
        }
        var link = el("a", "file-name", file.name || "file");
        link.href = url;
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
        return m && m.id === room.meId;
      });
      if (mentionsMe) li.classList.add("mentions-me");
      if (msg.sender_id === room.meId) li.classList.add("mine");
      li.appendChild(header(msg));
      li.appendChild(markdown(el("div", "body"), msg.content, msg));
      var files = attachments(msg);
      if (files) li.appendChild(files);
      var status = deliveries(msg);
      if (status) li.appendChild(status);
      return li;
    }

    function toolOutput(details, result) {
      var body = text.parseJSON(result.content) || {};
      var output = body.output !== undefined ? body.output : result.content;
      var failed =
        (result.metadata && (result.metadata.is_error || result.metadata.failure)) ||
        (typeof output === "string" && /^Error\b/.test(output));
      var section = details.querySelector(".tool-output");
      section.textContent = "";
      section.appendChild(el("span", "tool-section", "Result"));
      section.appendChild(el("pre", "", text.pretty(output)));
      section.hidden = false;
      var badge = details.querySelector(".tool-state");
      badge.textContent = failed ? "failed" : "done";
      badge.className = "tool-state " + (failed ? "is-failed" : "is-done");
    }

    function renderTool(msg) {
      var body = text.parseJSON(msg.content) || {};
      var meta = msg.metadata || {};
      var name = body.name || meta.tool_name || meta.name || "tool";
      var isCall = msg.message_type === "tool_call";
      var li = el("li", "msg event tool");
      var details = el("details");
      var summary = el("summary");
      summary.appendChild(el("span", "tool-icon", "⚙"));
      summary.appendChild(el("span", "who", msg.sender_name || "Agent"));
      summary.appendChild(el("span", "kind", isCall ? "called" : "tool result"));
      summary.appendChild(el("code", "tool-name", name));
      summary.appendChild(el("span", "tool-state", isCall ? "running" : ""));
      summary.appendChild(timeOf(msg));
      details.appendChild(summary);
      if (isCall) {
        var args = el("div", "tool-args");
        args.appendChild(el("span", "tool-section", "Arguments"));
        args.appendChild(el("pre", "", text.pretty(body.args !== undefined ? body.args : msg.content)));
        details.appendChild(args);
      }
      var output = el("div", "tool-output");
      output.hidden = true;
      details.appendChild(output);
      li.appendChild(details);
      var callId = callKey(msg, body.tool_call_id || meta.tool_call_id);
      if (!isCall) {
        toolOutput(details, msg);
        return li;
      }
      if (callId) state.calls[callId] = details;
      var early = callId && state.orphanResults[callId];
      if (early) {
        toolOutput(details, early.msg);
        early.node.remove();
        delete state.orphanResults[callId];
      }
      return li;
    }

    function renderEvent(msg) {
      var kind = String(msg.message_type).replace(/[^a-z_]/g, "");
      var li = el("li", "msg event event-" + kind);
      var topic = kind === "task" ? taskTopic(msg) : null;
      var head = header(msg, topic ? topic.label : EVENT_LABELS[kind] || kind);
      if (topic && topic.status) head.insertBefore(Band.statusPill(topic.status), head.querySelector("time"));
      if (topic) li.classList.add("task-" + topic.kind);
      li.appendChild(head);
      li.appendChild(rich(el("div", "body"), msg.content, msg));
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

    // A text message drawn again when its delivery statuses change.
    function update(node, msg) {
      if (msg.message_type !== "text") return;
      var old = node.querySelector(".deliveries");
      var fresh = deliveries(msg);
      if (old && fresh) old.replaceWith(fresh);
      else if (old) old.remove();
      else if (fresh) node.appendChild(fresh);
    }

    return { render: render, update: update, toolOutput: toolOutput };
  };
})();
