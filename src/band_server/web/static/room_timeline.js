// The timeline list: rows kept in sequence order (a catch-up may fill a gap), a tool result
// folded into its call, the view kept at the bottom while it was there. Band.Timeline(room)
// returns { add, update, resumeFrom }; `room` gives the list node, state, views (from
// Band.MessageViews), and the hooks taskSeen() and seen() (for the board and the read marker).
(function () {
  "use strict";
  var Band = (window.Band = window.Band || {});
  var TERMINAL = { processed: true };

  Band.Timeline = function (room) {
    var list = room.node;
    var state = room.state;
    var views = room.views;

    function nearBottom() {
      return list.scrollHeight - list.scrollTop - list.clientHeight < 120;
    }

    function place(node, seq) {
      var rows = list.children;
      for (var i = rows.length - 1; i >= 0; i--) {
        var at = Number(rows[i].getAttribute("data-seq") || 0);
        if (at <= seq) {
          rows[i].after(node);
          return;
        }
      }
      list.prepend(node);
    }

    function add(msg) {
      if (!msg || !msg.id) return;
      if (state.items[msg.id]) {
        update(msg);
        return;
      }
      var body = (msg.message_type === "tool_result" && Band.RoomText.parseJSON(msg.content)) || {};
      var callId = Band.toolCallKey(msg, body.tool_call_id || (msg.metadata && msg.metadata.tool_call_id));
      var stick = nearBottom();
      var empty = list.querySelector(".empty");
      if (empty) empty.remove();
      if (msg.message_type === "tool_result" && callId && state.calls[callId]) {
        // Shown inside its call: the pair folds into one line.
        views.toolOutput(state.calls[callId], msg);
        state.items[msg.id] = { msg: msg, node: null };
      } else {
        var node = views.render(msg);
        place(node, msg.seq || 0);
        state.items[msg.id] = { msg: msg, node: node };
        if (msg.message_type === "tool_result" && callId) state.orphanResults[callId] = { msg: msg, node: node };
      }
      if ((msg.seq || 0) > state.lastSeq) state.lastSeq = msg.seq || 0;
      if (msg.message_type === "task" && state.loaded) room.taskSeen();
      if (stick) list.scrollTop = list.scrollHeight;
      room.seen();
    }

    function update(msg) {
      var known = state.items[msg.id];
      if (!known) return add(msg);
      known.msg = msg;
      if (known.node) views.update(known.node, msg);
    }

    // Where a catch-up starts: after the newest row, or before the oldest message whose
    // delivery may still change (not yet processed), so its status is fetched again too.
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

    return { add: add, update: update, resumeFrom: resumeFrom };
  };
})();
