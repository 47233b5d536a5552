// A turn of an agent, opened from a delivery status in the timeline: delivered, processing,
// every tool call with its arguments, result and duration, thoughts, usage, the reply, errors
// and the total time, in a dialog that follows the turn while it runs (the room page pokes it
// on every push). Band.TurnPanel(room) returns { open(messageId, agentId), poke() }.
(function () {
  "use strict";
  var Band = (window.Band = window.Band || {});
  var el = Band.el;

  function seconds(ms) {
    if (typeof ms !== "number") return "";
    return ms < 1000 ? ms + " ms" : (ms / 1000).toFixed(1) + " s";
  }

  function clock(iso) {
    var when = new Date(iso);
    return isNaN(when.getTime()) ? "" : when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  }

  function pretty(value) {
    return Band.RoomText ? Band.RoomText.pretty(value) : JSON.stringify(value, null, 2);
  }

  function row(kind, label, iso) {
    var li = el("li", "turn-step step-" + kind.replace(/[^a-z_]/g, ""));
    var head = el("div", "turn-step-head");
    head.appendChild(el("span", "turn-label", label));
    if (iso) {
      var time = el("time", "", clock(iso));
      time.setAttribute("datetime", iso);
      head.appendChild(time);
    }
    li.appendChild(head);
    return li;
  }

  function section(title, value) {
    var box = el("div", "turn-section");
    box.appendChild(el("span", "tool-section", title));
    box.appendChild(el("pre", "", pretty(value)));
    return box;
  }

  function step(s, room) {
    if (s.kind === "tool") {
      var running = s.result === null;
      var li = row("tool", "Tool " + s.name + (running ? " (running)" : " · " + seconds(s.duration_ms)), s.at);
      if (s.failed) li.classList.add("is-failed");
      li.appendChild(section("Arguments", s.args));
      if (!running) li.appendChild(section(s.failed ? "Error" : "Result", s.result));
      return li;
    }
    if (s.kind === "usage") {
      var usage = s.usage || {};
      var tokens = ["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"]
        .filter(function (k) { return typeof usage[k] === "number"; })
        .map(function (k) { return usage[k] + " " + k.replace(/_tokens$/, "").replace(/_/g, " "); });
      var u = row("usage", "Usage", s.at);
      u.appendChild(el("p", "", "Tokens: " + tokens.join(", ")));
      return u;
    }
    var labels = { reply: "Reply", thought: "Thought", error: "Error" };
    var other = row(s.kind, labels[s.kind] || s.kind, s.at);
    // Mention tokens read as @Name, as in the timeline.
    other.appendChild(Band.RoomText.richText(el("p", "turn-text"), s.text, null, room.nameOf, room.meId));
    return other;
  }

  Band.TurnPanel = function (room) {
    var dialog = document.getElementById("turn");
    var current = null;
    var busy = false;
    var again = false;

    function render(turn) {
      dialog.querySelector("[data-title]").textContent = turn.agent.name + "'s turn";
      var total = seconds(turn.total_ms);
      var summary = turn.running
        ? turn.status + (total ? " · " + total + " so far" : "")
        : turn.status + (total ? " in " + total : "");
      dialog.querySelector("[data-summary]").textContent = summary;
      var list = dialog.querySelector("[data-steps]");
      var items = [row("delivered", "Delivered", turn.delivered_at)];
      if (turn.processing_at) items.push(row("processing", "Processing", turn.processing_at));
      turn.steps.forEach(function (s) { items.push(step(s, room)); });
      turn.errors.forEach(function (text) {
        var e = row("error", "Error");
        e.appendChild(el("p", "turn-text", text));
        items.push(e);
      });
      if (turn.finished_at) items.push(row("finished", turn.status === "failed" ? "Failed" : "Finished", turn.finished_at));
      list.replaceChildren.apply(list, items);
    }

    function load() {
      if (!current) return;
      if (busy) {
        again = true;
        return;
      }
      busy = true;
      var url = "/rooms/" + room.roomId + "/turns/" + encodeURIComponent(current.message) + "/" + encodeURIComponent(current.agent);
      fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (turn) { if (turn && current) render(turn); })
        .catch(function () {})
        .then(function () {
          busy = false;
          if (again) {
            again = false;
            load();
          }
        });
    }

    function open(messageId, agentId) {
      current = { message: messageId, agent: agentId };
      dialog.querySelector("[data-steps]").replaceChildren();
      dialog.querySelector("[data-summary]").textContent = "Loading…";
      Band.openDialog(dialog);
      load();
    }

    // Back to the status it was opened from (redrawn since, when the turn moved on).
    dialog.addEventListener("close", function () {
      var was = current;
      current = null;
      if (!was) return;
      var row = room.node.querySelector('li.msg[data-id="' + was.message.replace(/"/g, "") + '"]');
      var status = row && row.querySelector('.delivery-open[data-agent="' + was.agent.replace(/"/g, "") + '"]');
      if (status) status.focus();
    });

    return { open: open, poke: function () { if (current && dialog.open) load(); } };
  };
})();
