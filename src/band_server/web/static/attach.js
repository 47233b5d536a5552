// The composer's files: chosen with the Attach button, dropped on the room or pasted, each
// uploaded to the room at once (with its progress), then sent with the message that names
// them. Oversized and empty files are refused before a byte is sent; the server enforces the
// same limit (413). Names are only ever shown with textContent.
(function () {
  "use strict";
  var Band = (window.Band = window.Band || {});
  var el = Band.el;


  Band.formatBytes = function (n) {
    if (n < 1024) return n + " B";
    if (n < 1024 * 1024) return (n / 1024).toFixed(1).replace(/\.0$/, "") + " KB";
    return (n / 1024 / 1024).toFixed(1).replace(/\.0$/, "") + " MB";
  };

  function hasFiles(event) {
    var types = (event.dataTransfer && event.dataTransfer.types) || [];
    return Array.prototype.indexOf.call(types, "Files") >= 0;
  }

  // options: {url, tray, input, button, zone, overlay, paste, maxBytes, maxFiles, refuse(text)}
  Band.Attachments = function (options) {
    var items = [];
    var tray = options.tray;

    function refuse(text) {
      options.refuse(text);
    }

    function setState(item, state, text) {
      item.state = state;
      item.node.setAttribute("data-state", state);
      item.status.textContent = text;
      item.retry.hidden = state !== "failed";
      item.bar.hidden = state !== "uploading";
    }

    function failure(item, xhr) {
      var data = null;
      try {
        data = JSON.parse(xhr.responseText);
      } catch (e) {
        data = null;
      }
      var error = data && data.error;
      if (xhr.status === 413) return "Too large: files can be at most " + Band.formatBytes(options.maxBytes) + ".";
      if (xhr.status === 0) return "The upload was interrupted. Check your connection and retry.";
      if (xhr.status === 401) return "Your session ended. Sign in again.";
      return (error && error.message) || "The upload failed (" + xhr.status + ").";
    }

    function upload(item) {
      var xhr = new XMLHttpRequest();
      item.xhr = xhr;
      item.bar.value = 0;
      setState(item, "uploading", "Uploading…");
      item.done = new Promise(function (resolve) {
        xhr.open("POST", options.url);
        xhr.setRequestHeader("Accept", "application/json");
        xhr.setRequestHeader("X-CSRF-Token", Band.csrf());
        xhr.setRequestHeader("X-File-Name", encodeURIComponent(item.file.name));
        xhr.upload.addEventListener("progress", function (event) {
          if (event.lengthComputable) item.bar.value = Math.round((event.loaded / event.total) * 100);
        });
        xhr.addEventListener("load", function () {
          var data = null;
          try {
            data = JSON.parse(xhr.responseText);
          } catch (e) {
            data = null;
          }
          if ((xhr.status === 200 || xhr.status === 201) && data && data.data && data.data.id) {
            item.id = data.data.id;
            item.bar.value = 100;
            setState(item, "ready", "Ready");
          } else {
            setState(item, "failed", failure(item, xhr));
          }
          resolve();
        });
        xhr.addEventListener("error", function () {
          setState(item, "failed", failure(item, xhr));
          resolve();
        });
        xhr.addEventListener("abort", function () { resolve(); });
        xhr.send(item.file);
      });
    }

    function remove(item) {
      if (item.xhr && item.state === "uploading") item.xhr.abort();
      var hadFocus = item.node.contains(document.activeElement);
      items = items.filter(function (other) { return other !== item; });
      item.node.remove();
      tray.hidden = !items.length;
      if (hadFocus) options.button.focus(); // the removed row took the focus with it
    }

    function add(file) {
      if (items.length >= options.maxFiles) {
        refuse("A message can carry at most " + options.maxFiles + " files.");
        return;
      }
      if (file.size > options.maxBytes) {
        var size = Band.formatBytes(file.size);
        var limit = Band.formatBytes(options.maxBytes);
        if (size === limit) {
          size = file.size + " bytes";
          limit = options.maxBytes + " bytes";
        }
        refuse(file.name + " is too large (" + size + "): files can be at most " + limit + ".");
        return;
      }
      if (!file.size) {
        refuse(file.name + " is empty.");
        return;
      }
      var node = el("li", "attachment");
      var item = { file: file, node: node, id: null, state: "", xhr: null, done: null };
      var main = el("div", "attachment-main");
      main.appendChild(el("span", "attachment-name", file.name));
      main.appendChild(el("span", "attachment-size", Band.formatBytes(file.size)));
      node.appendChild(main);
      item.bar = el("progress", "attachment-progress");
      item.bar.max = 100;
      item.bar.setAttribute("aria-label", "Uploading " + file.name);
      node.appendChild(item.bar);
      item.status = el("span", "attachment-status");
      node.appendChild(item.status);
      item.retry = el("button", "link", "Retry");
      item.retry.type = "button";
      item.retry.setAttribute("aria-label", "Retry " + file.name);
      item.retry.addEventListener("click", function () { upload(item); });
      node.appendChild(item.retry);
      var drop = el("button", "icon", "×");
      drop.type = "button";
      drop.setAttribute("aria-label", "Remove " + file.name);
      drop.addEventListener("click", function () { remove(item); });
      node.appendChild(drop);
      items.push(item);
      tray.appendChild(node);
      tray.hidden = false;
      upload(item);
    }

    function addAll(list) {
      Array.prototype.forEach.call(list || [], add);
    }

    options.button.addEventListener("click", function () { options.input.click(); });
    options.input.addEventListener("change", function () {
      addAll(options.input.files);
      options.input.value = "";
    });

    // Dropping files anywhere on the page never navigates away from the room.
    document.addEventListener("dragover", function (event) {
      if (hasFiles(event)) event.preventDefault();
    });
    document.addEventListener("drop", function (event) {
      if (hasFiles(event)) event.preventDefault();
    });
    var depth = 0;
    options.zone.addEventListener("dragenter", function (event) {
      if (!hasFiles(event)) return;
      depth += 1;
      options.overlay.hidden = false;
    });
    options.zone.addEventListener("dragleave", function (event) {
      if (!hasFiles(event)) return;
      depth = Math.max(0, depth - 1);
      if (!depth) options.overlay.hidden = true;
    });
    options.zone.addEventListener("dragover", function (event) {
      if (!hasFiles(event)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = "copy";
    });
    options.zone.addEventListener("drop", function (event) {
      if (!hasFiles(event)) return;
      event.preventDefault();
      depth = 0;
      options.overlay.hidden = true;
      addAll(event.dataTransfer.files);
    });
    options.paste.addEventListener("paste", function (event) {
      var files = event.clipboardData && event.clipboardData.files;
      if (!files || !files.length) return;
      if (!event.clipboardData.getData("text/plain")) event.preventDefault();
      addAll(files);
    });

    // A message being sent claims the files in the tray at that moment; files added while it
    // is on its way wait for the next one.
    return {
      unclaimed: function () {
        return items.filter(function (item) { return !item.claimed; }).length;
      },
      claim: function () {
        var mine = items.filter(function (item) { return !item.claimed; });
        mine.forEach(function (item) {
          item.claimed = true;
          item.node.setAttribute("data-claimed", "");
        });
        return mine;
      },
      // Resolves once the claimed uploads are over: the ready files' ids and names, and how
      // many failed (the message then waits for the person to retry or remove them).
      settle: function (mine) {
        return Promise.all(mine.map(function (item) { return item.done; })).then(function () {
          var kept = mine.filter(function (item) { return items.indexOf(item) >= 0; });
          var ready = kept.filter(function (item) { return item.state === "ready"; });
          return {
            ids: ready.map(function (item) { return item.id; }),
            names: ready.map(function (item) { return item.file.name; }),
            failed: kept.length - ready.length,
          };
        });
      },
      release: function (mine) {
        mine.forEach(function (item) {
          item.claimed = false;
          item.node.removeAttribute("data-claimed");
        });
      },
      drop: function (mine) {
        mine.forEach(function (item) { item.node.remove(); });
        items = items.filter(function (item) { return mine.indexOf(item) < 0; });
        tray.hidden = !items.length;
      },
    };
  };
})();
