// Keeping the room page in step with the server: a catch-up fetch after every join (and
// whenever the page knows it missed something), one at a time, and the read marker, which
// follows what the person has seen. Opened from a search result (?at=<seq>), the first fetch
// starts a little before that message and the page scrolls to it. Band.RoomSync(room)
// returns { catchUp, markRead }; `room` gives roomId, timeline node, state, the Timeline, the
// Participants panel, the board and setStatus(kind, text).
(function () {
  "use strict";
  var Band = (window.Band = window.Band || {});
  var el = Band.el;
  var EMPTY = "No messages yet. Say hello, and @mention an agent to bring it in.";

  var CONTEXT = 20; // messages shown above a message a search result opens

  // The message a search result asked for (?at=<seq>), if any.
  function target() {
    var at = new URLSearchParams(window.location.search).get("at");
    return at && /^[0-9]{1,15}$/.test(at) && Number(at) > 0 ? Number(at) : null;
  }

  // Scroll to the asked-for message, mark it and give it focus (for keyboards and readers).
  function showTarget(node, seq) {
    var row = node.querySelector('li.msg[data-seq="' + seq + '"]');
    if (!row) return false;
    row.classList.add("found-target");
    row.setAttribute("tabindex", "-1");
    row.scrollIntoView({ block: "center" });
    row.focus({ preventScroll: true });
    return true;
  }

  Band.RoomSync = function (room) {
    var state = room.state;
    var fetching = null;
    var again = false;
    var at = target();

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
        if (!(at && showTarget(room.node, at))) room.node.scrollTop = room.node.scrollHeight;
        markRead(true);
      }
      if (data.has_more) again = true;
    }

    function catchUp() {
      if (fetching) {
        again = true;
        return fetching;
      }
      var from = state.loaded ? room.timeline.resumeFrom() : at ? Math.max(0, at - 1 - CONTEXT) : null;
      var url = "/rooms/" + room.roomId + "/timeline" + (from !== null ? "?after=" + from : "");
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
