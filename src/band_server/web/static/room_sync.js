// Keeping the room page in step with the server: a catch-up fetch after every join (and
// whenever the page knows it missed something), one at a time, and the read marker, which
// follows what the person has seen. Band.RoomSync(room) returns { catchUp, markRead };
// `room` gives roomId, timeline node, state, the Timeline, the Participants panel, the board
// and setStatus(kind, text).
(function () {
  "use strict";
  var Band = (window.Band = window.Band || {});
  var el = Band.el;
  var EMPTY = "No messages yet. Say hello, and @mention an agent to bring it in.";

  Band.RoomSync = function (room) {
    var state = room.state;
    var fetching = null;
    var again = false;

    function show(data) {
      room.people.render(data.participants || [], data.addable || []);
      if (!state.loaded) room.board.refresh();
      (data.items || []).forEach(room.timeline.add);
      state.working = {};
      (data.working || []).forEach(function (id) { state.working[id] = true; });
      room.people.showWorking();
      if (!state.loaded) {
        state.loaded = true;
        state.readSent = data.last_read_seq || 0;
        if (!(data.items || []).length) room.node.appendChild(el("li", "empty", EMPTY));
        room.node.scrollTop = room.node.scrollHeight;
        markRead(true);
      }
      if (data.has_more) again = true;
    }

    function catchUp() {
      if (fetching) {
        again = true;
        return fetching;
      }
      var url = "/rooms/" + room.roomId + "/timeline" + (state.loaded ? "?after=" + room.timeline.resumeFrom() : "");
      fetching = fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (response) {
          if (response.status === 401) {
            room.setStatus("offline", "Signed out");
            return null;
          }
          if (response.status === 404) {
            room.setStatus("offline", "You are not in this room");
            return null;
          }
          return response.ok ? response.json() : null;
        })
        .then(function (data) {
          if (data) show(data);
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

    // The read marker: at once when the room opens, then at most every 800 ms while messages
    // stream in, and whatever is left when the page goes.
    var readTimer = null;
    function sendRead() {
      clearTimeout(readTimer);
      readTimer = null;
      var seq = state.lastSeq;
      if (seq <= state.readSent) return;
      var before = state.readSent;
      state.readSent = seq;
      var body = new URLSearchParams({ seq: String(seq), csrf: Band.csrf() });
      Band.post("/rooms/" + room.roomId + "/read", body, true).then(function (result) {
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

    return { catchUp: catchUp, markRead: markRead };
  };
})();
