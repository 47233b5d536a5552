// The room's composer: @mention completion from the room's participants, files (attach.js),
// and sending (Enter sends, Shift+Enter adds a line). Messages are never drawn here: they
// arrive over the socket like every other.
(function () {
  "use strict";
  var Band = (window.Band = window.Band || {});
  var el = Band.el;

  // options: {root, roomId, me, people() -> {id: participant}, sent()}
  Band.Composer = function (options) {
    var root = options.root;
    var roomId = options.roomId;
    var me = options.me;
    var people = options.people;
    var composer = document.getElementById("composer");
    var textarea = document.getElementById("composer-text");
    var mentionList = document.getElementById("mention-list");

    var suggestions = [];
    var active = -1;
    var trigger = null; // {start, end} of "@query" in the textarea

    function mentionText(p) {
      var name = p.name || p.handle;
      var shared = Object.keys(people()).some(function (id) {
        var other = people()[id];
        return id !== p.id && (other.name || "").toLowerCase() === name.toLowerCase();
      });
      return "@" + (shared ? p.handle : name) + " ";
    }

    function closeSuggestions() {
      suggestions = [];
      active = -1;
      trigger = null;
      mentionList.hidden = true;
      mentionList.textContent = "";
      textarea.removeAttribute("aria-activedescendant");
    }

    function showSuggestions() {
      var caret = textarea.selectionStart;
      var before = textarea.value.slice(0, caret);
      var match = /(^|[\s(])@([^@\n]{0,40})$/.exec(before);
      if (!match || textarea.selectionEnd !== caret) return closeSuggestions();
      var query = match[2].toLowerCase();
      suggestions = Object.keys(people())
        .map(function (id) { return people()[id]; })
        .filter(function (p) {
          if (p.id === me) return false;
          var name = (p.name || "").toLowerCase();
          var handle = (p.handle || "").toLowerCase();
          return name.indexOf(query) === 0 || handle.indexOf(query) === 0 || handle.indexOf("/" + query) >= 0;
        })
        .slice(0, 8);
      if (!suggestions.length) return closeSuggestions();
      trigger = { start: caret - match[2].length - 1, end: caret };
      active = 0;
      mentionList.textContent = "";
      suggestions.forEach(function (p, i) {
        var option = el("li", "mention-option");
        option.id = "mention-option-" + i;
        option.setAttribute("role", "option");
        option.appendChild(el("span", "who", p.name || p.handle));
        option.appendChild(el("span", "handle", "@" + p.handle));
        option.addEventListener("mousedown", function (event) {
          event.preventDefault();
          choose(i);
        });
        mentionList.appendChild(option);
      });
      mentionList.hidden = false;
      highlight();
    }

    function highlight() {
      Array.prototype.forEach.call(mentionList.children, function (option, i) {
        option.setAttribute("aria-selected", i === active ? "true" : "false");
      });
      textarea.setAttribute("aria-activedescendant", "mention-option-" + active);
    }

    function choose(i) {
      var p = suggestions[i];
      if (!p || !trigger) return;
      var text = mentionText(p);
      var value = textarea.value;
      textarea.value = value.slice(0, trigger.start) + text + value.slice(trigger.end);
      var caret = trigger.start + text.length;
      textarea.setSelectionRange(caret, caret);
      closeSuggestions();
      textarea.focus();
    }

    textarea.addEventListener("input", showSuggestions);
    // The participants came (or changed) while an "@..." is being typed: offer them now, not
    // at the next key (the first catch-up may land after the first keys on a slow page).
    root.addEventListener("band:people", function () {
      if (document.activeElement === textarea) showSuggestions();
    });
    textarea.addEventListener("blur", function () { setTimeout(closeSuggestions, 100); });
    textarea.addEventListener("keydown", function (event) {
      if (!mentionList.hidden && suggestions.length) {
        if (event.key === "ArrowDown" || event.key === "ArrowUp") {
          event.preventDefault();
          active = (active + (event.key === "ArrowDown" ? 1 : -1) + suggestions.length) % suggestions.length;
          highlight();
          return;
        }
        if (event.key === "Enter" || event.key === "Tab") {
          event.preventDefault();
          choose(active);
          return;
        }
        if (event.key === "Escape") {
          event.preventDefault();
          closeSuggestions();
          return;
        }
      }
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        composer.requestSubmit();
      }
    });

    var composerError = composer.querySelector("[data-form-error]");
    function composerSays(text) {
      composerError.textContent = text;
      composerError.hidden = !text;
    }

    var files = Band.Attachments({
      url: "/rooms/" + roomId + "/files",
      tray: document.getElementById("attachments"),
      input: document.getElementById("attach-input"),
      button: document.getElementById("attach-button"),
      zone: document.getElementById("drop-zone"),
      overlay: document.getElementById("drop-overlay"),
      paste: textarea,
      maxBytes: Number(root.getAttribute("data-max-file-bytes")) || 25 * 1024 * 1024,
      maxFiles: Number(root.getAttribute("data-max-attachments")) || 10,
      refuse: composerSays,
    });

    function sharedText(names) {
      return names.length === 1 ? "Shared a file: " + names[0] : "Shared " + names.length + " files: " + names.join(", ");
    }

    // Sending never loses what is typed next: the text leaves the box at once, messages go out
    // one after another in the order sent, and a refused one comes back with its files.
    var sending = Promise.resolve();

    function giveBack(text, claimed, why) {
      files.release(claimed);
      if (!textarea.value.trim()) textarea.value = text;
      else if (text.trim()) textarea.value = text + "\n" + textarea.value;
      composerSays(why);
    }

    function send(text, claimed) {
      return files.settle(claimed).then(function (uploaded) {
        if (uploaded.failed) {
          giveBack(text, claimed, "A file could not be uploaded: retry it or remove it, then send again.");
          return null;
        }
        if (!text.trim() && !uploaded.ids.length) {
          files.release(claimed);
          return null;
        }
        var body = new URLSearchParams({ csrf: Band.csrf(), content: text.trim() ? text : sharedText(uploaded.names) });
        uploaded.ids.forEach(function (id) { body.append("attachment", id); });
        return Band.post(composer.action, body).then(function (result) {
          if (!result.ok) {
            giveBack(text, claimed, Band.errorMessage(result));
            return;
          }
          files.drop(claimed);
          options.sent();
        });
      });
    }

    composer.addEventListener("submit", function (event) {
      event.preventDefault();
      composerSays("");
      var text = textarea.value;
      if (!text.trim() && !files.unclaimed()) return;
      var claimed = files.claim();
      textarea.value = "";
      textarea.focus();
      sending = sending.then(function () { return send(text, claimed); });
    });
  };
})();
