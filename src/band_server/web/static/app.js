// Shared behaviour of every page: dialogs, menus, forms sent by script, copy buttons, times.
// Text from the server is only ever set with textContent or value, never parsed as HTML.
(function () {
  "use strict";

  var Band = (window.Band = window.Band || {});

  // An element with a class and a text (never HTML).
  Band.el = function (tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  };

  Band.csrf = function () {
    var main = document.getElementById("main");
    return (main && main.getAttribute("data-csrf")) || "";
  };

  // POST a form body (URLSearchParams) and answer {ok, status, data}; never throws.
  // keepalive: the request outlives the page (a read marker sent while leaving it).
  Band.post = function (url, body, keepalive) {
    return fetch(url, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      keepalive: !!keepalive,
      headers: { Accept: "application/json", "X-CSRF-Token": Band.csrf() },
    }).then(
      function (response) {
        return response.json().then(
          function (data) { return { ok: response.ok, status: response.status, data: data }; },
          function () { return { ok: response.ok, status: response.status, data: null }; }
        );
      },
      function () { return { ok: false, status: 0, data: null }; }
    );
  };

  Band.errorMessage = function (result) {
    if (result.status === 0) return "The platform can't be reached. Check your connection and try again.";
    if (result.status === 401) return "Your session ended. Sign in again.";
    var error = result.data && result.data.error;
    return (error && error.message) || "Something went wrong (" + result.status + ").";
  };

  // -- dialogs ---------------------------------------------------------------------------

  // Where the focus goes back when a dialog closes: what opened it, or, for an item of a menu
  // (which closes as the dialog opens), the menu's button.
  var openers = new WeakMap();

  function openDialog(dialog) {
    if (!dialog || dialog.open) return;
    var from = document.activeElement;
    var menu = from && from.closest && from.closest("[role=menu]");
    if (menu) from = document.querySelector('[aria-controls="' + menu.id + '"]');
    if (from && from !== document.body) openers.set(dialog, from);
    dialog.showModal();
    var first = dialog.querySelector("input:not([type=hidden]):not([readonly]), textarea:not([readonly]), select");
    if (first) first.focus();
  }
  Band.openDialog = openDialog;

  // The sidebar's Menu button (on narrow screens the sidebar folds behind it).
  document.addEventListener("click", function (event) {
    var toggle = event.target.closest && event.target.closest("[data-toggle-menu]");
    if (!toggle) return;
    var bar = toggle.closest(".sidebar");
    var open = !bar.classList.contains("menu-open");
    bar.classList.toggle("menu-open", open);
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
  });

  function returnFocus(dialog) {
    var to = openers.get(dialog);
    openers.delete(dialog);
    if (to && to.isConnected && to.getClientRects().length) to.focus();
  }

  function clearErrors(form) {
    form.querySelectorAll("[data-error-for]").forEach(function (node) {
      node.hidden = true;
      node.textContent = "";
    });
    form.querySelectorAll("[aria-invalid]").forEach(function (node) { node.removeAttribute("aria-invalid"); });
    form.querySelectorAll("[data-form-error]").forEach(function (node) {
      node.hidden = true;
      node.textContent = "";
    });
  }

  // Show the server's 422 details next to their fields; anything else above the buttons.
  Band.showErrors = function (form, result) {
    var details = (result.data && result.data.error && result.data.error.details) || {};
    var placed = false;
    var firstInvalid = null;
    Object.keys(details).forEach(function (pointer) {
      var slot = form.querySelector('[data-error-for="' + pointer.replace(/"/g, "") + '"]');
      if (!slot) return;
      var messages = details[pointer];
      slot.textContent = Array.isArray(messages) ? messages.join("; ") : String(messages);
      slot.hidden = false;
      placed = true;
      var input = slot.parentNode.querySelector("input, textarea, select");
      if (input) {
        input.setAttribute("aria-invalid", "true");
        if (!firstInvalid) firstInvalid = input;
      }
    });
    var summary = form.querySelector("[data-form-error]");
    if (summary && !placed) {
      summary.textContent = Band.errorMessage(result);
      summary.hidden = false;
    }
    if (firstInvalid) firstInvalid.focus();
  };

  function fillKeyDialog(dialog, values) {
    dialog.querySelectorAll("[data-slot]").forEach(function (node) {
      var value = values[node.getAttribute("data-slot")] || "";
      if ("value" in node) node.value = value;
      else node.textContent = value;
    });
  }

  function onSubmit(event) {
    var form = event.target;
    if (!form.matches || !form.matches("form[data-script-form]")) return;
    event.preventDefault();
    clearErrors(form);
    var button = form.querySelector("[type=submit]");
    if (button) button.disabled = true;
    Band.post(form.action, new URLSearchParams(new FormData(form))).then(function (result) {
      if (button) button.disabled = false;
      if (!result.ok) {
        Band.showErrors(form, result);
        return;
      }
      var keyDialog = form.getAttribute("data-show-key");
      if (keyDialog) {
        var own = form.closest("dialog");
        if (own) own.close();
        form.reset();
        var shown = document.getElementById(keyDialog);
        fillKeyDialog(shown, result.data || {});
        openDialog(shown);
      } else if (form.hasAttribute("data-follow") && result.data && result.data.url) {
        window.location.assign(result.data.url);
      } else {
        window.location.reload();
      }
    });
  }

  function onClick(event) {
    var target = event.target.closest("[data-open-dialog], [data-close], [data-copy], [data-menu]");
    closeMenus(event.target.closest(".menu-wrap"));
    if (!target) return;
    if (target.hasAttribute("data-open-dialog")) {
      closeMenus();
      openDialog(document.getElementById(target.getAttribute("data-open-dialog")));
    } else if (target.hasAttribute("data-close")) {
      var dialog = target.closest("dialog");
      if (dialog) dialog.close();
    } else if (target.hasAttribute("data-copy")) {
      copy(target);
    } else if (target.hasAttribute("data-menu")) {
      toggleMenu(target);
    }
  }

  // A key dialog forgets its values when it closes, and the page reloads to list what changed.
  function onClose(event) {
    var dialog = event.target;
    if (!dialog.hasAttribute || dialog.tagName !== "DIALOG") return;
    if (!dialog.hasAttribute("data-key-dialog")) {
      returnFocus(dialog);
      return;
    }
    fillKeyDialog(dialog, {});
    window.location.reload();
  }

  // -- menus -----------------------------------------------------------------------------

  function closeMenus(except) {
    document.querySelectorAll("[data-menu][aria-expanded=true]").forEach(function (button) {
      if (except && except.contains(button)) return;
      button.setAttribute("aria-expanded", "false");
      document.getElementById(button.getAttribute("aria-controls")).hidden = true;
    });
  }

  function toggleMenu(button, focusLast) {
    var menu = document.getElementById(button.getAttribute("aria-controls"));
    var opening = menu.hidden;
    closeMenus();
    if (!opening) return;
    menu.hidden = false;
    button.setAttribute("aria-expanded", "true");
    var items = menu.querySelectorAll("[role=menuitem]");
    if (items.length) items[focusLast ? items.length - 1 : 0].focus();
  }

  // Tab and Shift+Tab go round inside an open dialog instead of leaving the page.
  var FOCUSABLE = "a[href], button:not([disabled]), input:not([type=hidden]):not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex='-1'])";

  function trapTab(event) {
    var dialog = event.target.closest && event.target.closest("dialog[open]");
    if (event.key !== "Tab" || !dialog) return false;
    var all = Array.prototype.filter.call(dialog.querySelectorAll(FOCUSABLE), function (node) {
      return node.getClientRects().length > 0;
    });
    if (!all.length) return false;
    var first = all[0];
    var last = all[all.length - 1];
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
      return true;
    }
    if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
      return true;
    }
    return false;
  }

  function onKeydown(event) {
    if (trapTab(event)) return;
    var item = event.target.closest && event.target.closest("[role=menuitem]");
    var trigger = event.target.closest && event.target.closest("[data-menu]");
    if (trigger && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
      event.preventDefault();
      if (trigger.getAttribute("aria-expanded") !== "true") toggleMenu(trigger, event.key === "ArrowUp");
      return;
    }
    if (!item) return;
    var menu = item.closest("[role=menu]");
    var items = Array.prototype.slice.call(menu.querySelectorAll("[role=menuitem]"));
    var at = items.indexOf(item);
    var button = document.querySelector('[aria-controls="' + menu.id + '"]');
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      var step = event.key === "ArrowDown" ? 1 : -1;
      items[(at + step + items.length) % items.length].focus();
    } else if (event.key === "Escape" || event.key === "Tab") {
      closeMenus();
      if (event.key === "Escape" && button) button.focus();
    }
  }

  // -- copy ------------------------------------------------------------------------------

  function copy(button) {
    var source = document.getElementById(button.getAttribute("data-copy"));
    if (!source) return;
    var text = source.value;
    var done = function () {
      var label = button.textContent;
      button.textContent = "Copied";
      setTimeout(function () { button.textContent = label; }, 1500);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { legacyCopy(source, done); });
    } else {
      legacyCopy(source, done);
    }
  }

  function legacyCopy(source, done) {
    source.focus();
    source.select();
    try {
      if (document.execCommand("copy")) done();
    } catch (e) {
      /* the text stays selected for a manual copy */
    }
  }

  // -- handle from name ------------------------------------------------------------------

  Band.slug = function (text) {
    return String(text).toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40);
  };

  function onInput(event) {
    var input = event.target;
    var targetId = input.getAttribute && input.getAttribute("data-handle-source");
    if (targetId) {
      var handle = document.getElementById(targetId);
      if (handle && !handle.hasAttribute("data-edited")) handle.value = Band.slug(input.value);
    } else if (input.id && document.querySelector('[data-handle-source="' + input.id + '"]')) {
      if (input.value) input.setAttribute("data-edited", "");
      else input.removeAttribute("data-edited");
    }
  }

  // -- times -----------------------------------------------------------------------------

  Band.relative = function (iso) {
    var then = new Date(iso);
    if (isNaN(then.getTime())) return "";
    var seconds = Math.round((Date.now() - then.getTime()) / 1000);
    if (seconds < 45) return "just now";
    var minutes = Math.round(seconds / 60);
    if (minutes < 60) return minutes + " min ago";
    var hours = Math.round(minutes / 60);
    if (hours < 24) return hours + " h ago";
    var days = Math.round(hours / 24);
    if (days < 7) return days + " d ago";
    return then.toLocaleDateString();
  };

  // Keeps a view in step with the server: call the returned function whenever the socket
  // says something changed; a burst within `delay` ms is one GET of `url` (JSON), and a
  // change while that request runs asks once more after it. `show` gets the answer.
  Band.follower = function (url, show, delay) {
    var timer = null;
    var asking = false;
    var again = false;
    function ask() {
      if (asking) {
        again = true;
        return;
      }
      asking = true;
      fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (data) { if (data) show(data); })
        .catch(function () { /* the next change or the next join asks again */ })
        .then(function () {
          asking = false;
          if (again) {
            again = false;
            ask();
          }
        });
    }
    return function changed() {
      if (timer) return;
      timer = setTimeout(function () {
        timer = null;
        ask();
      }, delay);
    };
  };

  // The page's one realtime socket (the vendored Phoenix client), signed in by the session
  // cookie and shared by every script of the page (notify.js joins the person's own topic on
  // it, the room pages their rooms). It reconnects and rejoins its channels by itself; pages
  // fetch what they missed on each join.
  var shared = null;
  Band.socket = function () {
    if (!shared) {
      shared = new window.Phoenix.Socket("/api/v1/socket", {
        reconnectAfterMs: function (tries) { return [250, 500, 1000, 2000][tries - 1] || 3000; },
        rejoinAfterMs: function (tries) { return [500, 1000, 2000][tries - 1] || 3000; },
      });
    }
    return shared;
  };

  function refreshTimes() {
    document.querySelectorAll("time[data-relative]").forEach(function (node) {
      var iso = node.getAttribute("datetime");
      node.title = new Date(iso).toLocaleString();
      node.textContent = Band.relative(iso);
    });
  }

  document.addEventListener("submit", onSubmit);
  document.addEventListener("click", onClick);
  document.addEventListener("keydown", onKeydown);
  document.addEventListener("input", onInput);
  document.addEventListener("close", onClose, true);
  Band.refreshTimes = refreshTimes;

  document.addEventListener("DOMContentLoaded", function () {
    refreshTimes();
    setInterval(refreshTimes, 30000);
  });
})();
