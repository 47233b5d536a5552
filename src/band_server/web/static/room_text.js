// Text helpers of the room page: JSON shown pretty, times shown short, and message text with
// its @[[id]] mention tokens shown as @Name chips. Content is only ever set as text.
(function () {
  "use strict";
  var Band = (window.Band = window.Band || {});
  var el = Band.el;
  var TOKEN = /@\[\[([0-9A-Za-z-]{1,64})\]\]/g;

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

  // Text with @[[id]] tokens shown as @Name (never the raw token); nameOf(id, msg) names them.
  function richText(container, content, msg, nameOf, meId) {
    var text = String(content);
    var at = 0;
    var match;
    TOKEN.lastIndex = 0;
    while ((match = TOKEN.exec(text)) !== null) {
      if (match.index > at) container.appendChild(document.createTextNode(text.slice(at, match.index)));
      var name = nameOf(match[1], msg);
      container.appendChild(el("span", "mention" + (match[1] === meId ? " me" : ""), "@" + (name || "someone")));
      at = TOKEN.lastIndex;
    }
    if (at < text.length) container.appendChild(document.createTextNode(text.slice(at)));
    return container;
  }

  Band.RoomText = { parseJSON: parseJSON, pretty: pretty, clock: clock, richText: richText };
})();
