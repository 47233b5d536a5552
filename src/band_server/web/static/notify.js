// Notifications, on every signed-in page: a browser notification when someone mentions the
// person, or writes in a direct room (the person and one other), or in a room set to "all";
// never for a room set to "none", never for the person's own messages, never for the room on
// screen. Permission is asked once, from the sidebar's button (a browser asks only after a
// click). Unread counts go in the tab title. Band.Notify = { message(msg, here), unread(n) };
// the Rooms page and the room page hand it the pushes they get. On every page it also joins
// the person's own topic (user_notifications:<me>: mentions and direct texts, whichever page
// is open) on the page's shared socket; a message heard twice notifies once. Notifications
// heard on a page without the room list count in the tab title until the person opens Rooms.
(function () {
  "use strict";
  var Band = (window.Band = window.Band || {});
  var main = document.getElementById("main");
  var me = main && main.getAttribute("data-me");
  if (!me) return;
  var baseTitle = document.title;
  var rooms = {}; // id -> { level, direct, title }
  var hiddenNew = 0; // messages that arrived in the open room while the tab was hidden
  var counted = 0;
  var elsewhere = 0; // notifications heard on a page without the room list's counts
  var seen = {}; // message ids already handled (a push can come on two topics)
  var seenOrder = [];

  function load() {
    return fetch("/notify", { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : { rooms: {} }; })
      .then(function (data) { rooms = data.rooms || {}; })
      .catch(function () {});
  }

  function title() {
    var n = counted + hiddenNew + elsewhere;
    document.title = (n ? "(" + n + ") " : "") + baseTitle;
  }

  function readable(msg) {
    var names = {};
    ((msg.metadata && msg.metadata.mentions) || []).forEach(function (m) {
      if (m && m.id) names[m.id] = m.name || m.handle || "someone";
    });
    var text = String(msg.content || "").replace(/@\[\[([0-9A-Za-z-]{1,64})\]\]/g, function (_, id) {
      return "@" + (names[id] || "someone");
    });
    return text.length > 200 ? text.slice(0, 199) + "…" : text;
  }

  function show(msg, room, mentioned, reason) {
    if (!("Notification" in window) || Notification.permission !== "granted") return;
    var who = msg.sender_name || "Someone";
    var how = reason === "reply" ? " replied to you in " : mentioned ? " mentioned you in " : " in ";
    var heading = who + how + (room.title || "a room");
    var note = new Notification(heading, { body: readable(msg), tag: msg.id });
    note.onclick = function () {
      window.focus();
      window.location.href = "/rooms/" + encodeURIComponent(msg.chat_room_id) + "?at=" + (msg.seq || 0);
    };
  }

  function once(id) {
    if (seen[id]) return false;
    seen[id] = true;
    seenOrder.push(id);
    if (seenOrder.length > 500) delete seen[seenOrder.shift()];
    return true;
  }

  // counts: the page has no room list, so a notification shown also counts in the title;
  // reason: why the person's own topic pushed it (mention, reply, direct), if it did.
  function message(msg, here, counts, reason) {
    if (!msg || msg.message_type !== "text" || msg.sender_id === me) return;
    if (!once(msg.id)) return;
    var visible = document.visibilityState === "visible";
    if (here && visible) return;
    if (here) {
      hiddenNew += 1;
      title();
    }
    var room = rooms[msg.chat_room_id];
    var ready = room ? Promise.resolve() : load(); // a room new since the page loaded
    ready.then(function () {
      room = rooms[msg.chat_room_id] || { level: "mentions", direct: false, title: "" };
      var mentioned = ((msg.metadata && msg.metadata.mentions) || []).some(function (m) {
        return m && m.id === me && m.kind !== "reference";
      });
      if (room.level === "none") return;
      if (room.level === "all" || room.direct || mentioned) {
        show(msg, room, mentioned, reason);
        if (counts) {
          elsewhere += 1;
          title();
        }
      }
    });
  }

  function unread(n) {
    counted = n || 0;
    title();
  }

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible" && hiddenNew) {
      hiddenNew = 0;
      title();
    }
  });

  // The sidebar's button: shown while the browser has not been asked.
  var ask = document.getElementById("notify-ask");
  if (ask && "Notification" in window && Notification.permission === "default") {
    ask.hidden = false;
    ask.addEventListener("click", function () {
      Notification.requestPermission().then(function () { ask.hidden = true; });
    });
  }

  // The room page's choice of level.
  var choice = document.getElementById("notify-level");
  if (choice) {
    var roomId = choice.getAttribute("data-room-id");
    load().then(function () {
      if (rooms[roomId]) choice.value = rooms[roomId].level;
    });
    choice.addEventListener("change", function () {
      var body = new URLSearchParams({ level: choice.value, csrf: Band.csrf() });
      Band.post("/rooms/" + roomId + "/notify", body, true).then(function (result) {
        if (result.ok && rooms[roomId]) rooms[roomId].level = choice.value;
      });
    });
  } else {
    load();
  }

  // The person's own topic, on every page.
  var openRoom = choice ? choice.getAttribute("data-room-id") : null;
  var roomList = document.getElementById("rooms");
  if (window.Phoenix && Band.socket) {
    var socket = Band.socket();
    var personal = socket.channel("user_notifications:" + me, {});
    personal.on("notification", function (push) {
      var msg = push && push.message;
      if (!msg || seen[msg.id]) return;
      var here = msg.chat_room_id === openRoom;
      message(msg, here, !here && !roomList, push.reason);
    });
    personal.join();
    // After every script of the page has set up its channels (a room page connects itself).
    document.addEventListener("DOMContentLoaded", function () { socket.connect(); });
  }

  Band.Notify = { message: message, unread: unread };
})();
