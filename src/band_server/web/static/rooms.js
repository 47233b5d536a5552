// The Rooms page, live: a room I am added to appears, a room I leave goes, and a new message
// moves its room up with its unread count and its preview, all without a reload. The socket says *that*
// something changed (user_rooms:<me> for membership, chat_room:<id> for messages); the page
// then asks the server for the list, so the order and the counts are always the server's.
(function () {
  "use strict";
  var Band = window.Band;
  var el = Band.el;
  var root = document.getElementById("rooms");
  if (!root || !window.Phoenix) return;

  var me = root.getAttribute("data-me");
  var followMax = Number(root.getAttribute("data-follow-max")) || 100;
  var socket = Band.socket();
  var followed = {}; // room id -> its chat_room channel


  // The same markup as rooms.html renders.
  function row(room) {
    var li = el("li");
    li.setAttribute("data-room-id", room.id);
    var link = el("a", "room-row" + (room.unread ? " has-unread" : ""));
    link.href = "/rooms/" + encodeURIComponent(room.id);
    var text = el("span", "room-text");
    text.appendChild(el("span", "room-name", room.title));
    if (room.preview) text.appendChild(el("span", "room-preview", room.preview));
    link.appendChild(text);
    if (room.unread) {
      var badge = el("span", "badge", room.unread);
      badge.setAttribute("aria-label", room.unread + " unread");
      link.appendChild(badge);
    }
    var time = el("time");
    time.setAttribute("datetime", room.last_activity);
    time.setAttribute("data-relative", "");
    link.appendChild(time);
    li.appendChild(link);
    return li;
  }

  function empty() {
    var card = el("div", "empty card");
    var first = el("p");
    first.appendChild(el("strong", "", "No rooms yet."));
    card.appendChild(first);
    var second = el("p");
    second.appendChild(document.createTextNode("Click "));
    second.appendChild(el("em", "", "+"));
    second.appendChild(document.createTextNode(" to create a room with your agents and contacts."));
    card.appendChild(second);
    return card;
  }

  function render(rooms) {
    // Whoever is on a room's link with the keyboard stays on it when the list reorders.
    var focused = document.activeElement && document.activeElement.closest && document.activeElement.closest("[data-room-id]");
    var keep = focused && root.contains(focused) ? focused.getAttribute("data-room-id") : null;
    var content;
    if (rooms.length) {
      content = el("ul", "room-list");
      content.setAttribute("aria-label", "Your rooms");
      rooms.forEach(function (room) { content.appendChild(row(room)); });
    } else {
      content = empty();
    }
    root.replaceChildren(content);
    Band.refreshTimes();
    if (keep) {
      var again = root.querySelector('[data-room-id="' + keep.replace(/"/g, "") + '"] a');
      if (again) again.focus();
    }
  }

  function follow(ids) {
    var wanted = {};
    ids.slice(0, followMax).forEach(function (id) { wanted[id] = true; });
    Object.keys(followed).forEach(function (id) {
      if (!wanted[id]) {
        followed[id].leave();
        delete followed[id];
      }
    });
    Object.keys(wanted).forEach(function (id) {
      if (followed[id]) return;
      var channel = socket.channel("chat_room:" + id, {});
      channel.on("message_created", function (msg) {
        if (Band.Notify) Band.Notify.message(msg, false);
        changed();
      });
      channel.on("room_updated", changed);
      channel.join();
      followed[id] = channel;
    });
  }

  // A burst of pushes (an agent's tool calls) is one question.
  var changed = Band.follower("/rooms", function (data) {
    render(data.rooms || []);
    if (Band.Notify) {
      Band.Notify.unread((data.rooms || []).reduce(function (sum, room) { return sum + (room.unread || 0); }, 0));
    }
    follow((data.rooms || []).map(function (room) { return room.id; }));
  }, 250);

  follow(Array.prototype.map.call(root.querySelectorAll("[data-room-id]"), function (node) {
    return node.getAttribute("data-room-id");
  }));
  var mine = socket.channel("user_rooms:" + me, {});
  mine.on("room_added", changed);
  mine.on("room_removed", changed);
  // Every join (the first, after the page was drawn, and each after a reconnect) asks for
  // whatever happened in between.
  mine.join().receive("ok", changed);
  socket.connect();
})();
