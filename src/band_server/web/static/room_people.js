// The room's side panel: who is in it (presence, remove or leave), the form to add someone,
// the "working" line fed by agent activity, and the toggle that shows the panel on a narrow
// screen. Band.Participants(room) returns { render(participants, addable), setWorking(id, on),
// showWorking() }; `room` gives root, roomId, meId, state, nameOf and refresh() (a catch-up).
(function () {
  "use strict";
  var Band = (window.Band = window.Band || {});
  var el = Band.el;

  Band.Participants = function (room) {
    var state = room.state;
    var meId = room.meId;
    var panel = document.getElementById("side-panel");
    var list = document.getElementById("participants");
    var addForm = document.getElementById("add-participant");
    var addSelect = document.getElementById("add-who");
    var workingNode = document.getElementById("working");
    var toggle = document.querySelector("[data-toggle-panel]");

    function showWorking() {
      var names = Object.keys(state.working)
        .filter(function (id) { return state.working[id]; })
        .map(function (id) { return room.nameOf(id) || "An agent"; });
      workingNode.textContent = "";
      if (!names.length) {
        workingNode.hidden = true;
        return;
      }
      workingNode.appendChild(el("span", "dots", ""));
      workingNode.appendChild(document.createTextNode(names.join(", ") + (names.length > 1 ? " are" : " is") + " working…"));
      workingNode.hidden = false;
    }

    function setWorking(agentId, working) {
      if (!!state.working[agentId] === working) return;
      state.working[agentId] = working;
      showWorking();
    }

    function remove(p, button) {
      var question = p.id === meId ? "Leave this room?" : "Remove " + (p.name || p.handle) + " from this room?";
      if (button.getAttribute("aria-disabled") === "true" || !window.confirm(question)) return;
      // aria-disabled, not disabled: a disabled button would drop the keyboard focus.
      button.setAttribute("aria-disabled", "true");
      var body = new URLSearchParams({ csrf: Band.csrf() });
      var url = "/rooms/" + room.roomId + "/participants/" + encodeURIComponent(p.id) + "/remove";
      Band.post(url, body).then(function (result) {
        button.removeAttribute("aria-disabled");
        if (!result.ok) {
          window.alert(Band.errorMessage(result));
          return;
        }
        if (p.id === meId) window.location.assign("/rooms");
        else room.refresh();
      });
    }

    function row(p) {
      var li = el("li", "person");
      var who = el("div", "person-main");
      var dot = el("span", "presence-dot " + (p.online ? "online" : "offline"));
      dot.title = p.online ? "Online" : "Offline";
      who.appendChild(dot);
      var name = el("span", "who", p.name || p.handle);
      name.title = p.name || p.handle; // the full name when it is cut short
      who.appendChild(name);
      if (p.id === meId) who.appendChild(el("span", "pill", "you"));
      else if (p.type === "Agent") who.appendChild(el("span", "pill agent-pill", "Agent"));
      li.appendChild(who);
      li.appendChild(el("div", "handle", "@" + p.handle + (p.role === "owner" ? " · owner" : "")));
      if (p.removable) {
        var button = el("button", "link danger-text", p.id === meId ? "Leave" : "Remove");
        button.type = "button";
        button.setAttribute("aria-label", p.id === meId ? "Leave the room" : "Remove " + (p.name || p.handle));
        button.addEventListener("click", function () { remove(p, button); });
        li.appendChild(button);
      }
      return li;
    }

    function render(participants, addable) {
      // A focus on a row that is drawn again (or on a control that hides) goes to the panel's
      // heading, not to the start of the page.
      var hadFocus = panel.contains(document.activeElement);
      state.people = {};
      list.textContent = "";
      participants.forEach(function (p) {
        state.people[p.id] = p;
        list.appendChild(row(p));
      });
      addSelect.textContent = "";
      addable.forEach(function (p) {
        var option = el("option", "", (p.name || p.handle) + " (@" + p.handle + ")");
        option.value = p.id;
        addSelect.appendChild(option);
      });
      var none = !addable.length;
      addForm.querySelector(".inline-form").hidden = none;
      addForm.querySelector("[data-nobody]").hidden = !none;
      showWorking();
      // The composer offers @mentions from these: one typed before they arrived is offered now.
      room.root.dispatchEvent(new CustomEvent("band:people"));
      var at = document.activeElement;
      if (hadFocus && (!panel.contains(at) || !at.getClientRects().length)) {
        document.getElementById("participants-title").focus();
      }
    }

    addForm.addEventListener("submit", function (event) {
      event.preventDefault();
      var error = addForm.querySelector("[data-form-error]");
      error.hidden = true;
      Band.post(addForm.action, new URLSearchParams(new FormData(addForm))).then(function (result) {
        if (!result.ok) {
          error.textContent = Band.errorMessage(result);
          error.hidden = false;
          return;
        }
        room.refresh();
      });
    });

    // On a narrow screen the side panel covers the timeline: the toggle opens it, and the
    // toggle again or Escape closes it, back on the toggle.
    function showPanel(open) {
      room.root.classList.toggle("show-panel", open);
      toggle.setAttribute("aria-expanded", open ? "true" : "false");
    }
    toggle.addEventListener("click", function () {
      showPanel(!room.root.classList.contains("show-panel"));
    });
    panel.addEventListener("keydown", function (event) {
      if (event.key !== "Escape" || !room.root.classList.contains("show-panel")) return;
      showPanel(false);
      toggle.focus();
    });

    return { render: render, setWorking: setWorking, showWorking: showWorking };
  };
})();
