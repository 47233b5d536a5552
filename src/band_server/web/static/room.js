// A room, live: the official Phoenix client holds the socket (it reconnects and rejoins by
// itself); after every join the page fetches what it missed. This file wires the pieces:
// room_text.js (text and mentions), room_messages.js (how rows look), room_timeline.js (the
// list), room_people.js (the side panel), room_sync.js (catch-up and read marker), board.js
// and composer.js. Content is set with textContent, except a text message's Markdown, which
// room_markdown.js renders and sanitises (DOMPurify) before it reaches the page.
(function () {
  "use strict";
  var Band = window.Band;
  var root = document.getElementById("room");
  if (!root || !window.Phoenix) return;

  var statusNode = document.getElementById("live-status");
  var room = {
    root: root,
    roomId: root.getAttribute("data-room-id"),
    meId: root.getAttribute("data-me"),
    node: document.getElementById("timeline"),
    state: {
      loaded: false,
      lastSeq: 0,
      readSent: 0,
      items: {}, // id -> {msg, node}
      calls: {}, // tool_call_id -> node of the call
      orphanResults: {}, // tool_call_id -> result message seen before its call
      people: {}, // participant id -> participant
      working: {},
    },
    setStatus: function (kind, text) {
      statusNode.setAttribute("data-state", kind);
      statusNode.textContent = text;
    },
    // A name for an id: as the message's mentions spell it, else from the participants.
    nameOf: function (id, msg) {
      var mentions = (msg && msg.metadata && msg.metadata.mentions) || [];
      for (var i = 0; i < mentions.length; i++) {
        if (mentions[i] && mentions[i].id === id && mentions[i].name) return mentions[i].name;
      }
      var person = room.state.people[id];
      return person ? person.name || person.handle : null;
    },
    refresh: function () { return sync.catchUp(); },
    taskSeen: function () { room.board.refresh(); },
    seen: function () { sync.markRead(); },
  };
  room.board = Band.Board(document.getElementById("board"), room.roomId);
  room.turns = Band.TurnPanel(room);
  room.views = Band.MessageViews(room);
  room.timeline = Band.Timeline(room);
  room.people = Band.Participants(room);
  var sync = Band.RoomSync(room);

  var socket = Band.socket();
  socket.onOpen(function () { room.setStatus("connecting", "Joining…"); });
  socket.onError(function () { room.setStatus("offline", "Reconnecting…"); });
  socket.onClose(function () { room.setStatus("offline", "Reconnecting…"); });

  var channel = socket.channel("chat_room:" + room.roomId, {});
  channel.on("message_created", function (msg) {
    room.timeline.add(msg);
    room.turns.poke();
    if (Band.Notify) Band.Notify.message(msg, true);
  });
  channel.on("message_updated", function (msg) {
    room.timeline.update(msg);
    room.turns.poke();
  });
  channel.on("room_updated", function (payload) {
    if (!payload || !payload.title) return;
    root.querySelector(".room-head h1").textContent = payload.title;
    document.title = payload.title + " · Band";
  });
  channel.on("agent_activity", function (payload) {
    if (payload && payload.agent_id) room.people.setWorking(payload.agent_id, !!payload.working);
  });
  channel.join()
    .receive("ok", function () {
      room.setStatus("live", "Live");
      sync.catchUp();
    })
    .receive("error", function () {
      room.setStatus("offline", "Not allowed");
      sync.catchUp();
    });

  var roster = socket.channel("room_participants:" + room.roomId, {});
  roster.on("participant_added", function () { sync.catchUp(); });
  roster.on("participant_removed", function (payload) {
    if (payload && payload.id === room.meId) {
      room.setStatus("offline", "You are no longer in this room");
      channel.leave(); // the socket stays: the person's notifications ride on it
      roster.leave();
      return;
    }
    sync.catchUp();
  });
  roster.join();
  socket.connect();

  Band.Composer({
    root: root,
    roomId: room.roomId,
    me: room.meId,
    people: function () { return room.state.people; },
    // A message that was sent while the socket is down is fetched by the page itself.
    sent: function () {
      if (statusNode.getAttribute("data-state") !== "live") sync.catchUp();
    },
  });
})();
