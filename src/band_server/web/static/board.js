// The room's board in the side panel: the goal and the active tasks with their statuses (and
// who is on each). The timeline's task events say *that* the board changed; the panel then asks
// the server for it. Hidden while the room has neither a goal nor a task.
(function () {
  "use strict";
  var Band = (window.Band = window.Band || {});
  var el = Band.el;

  var LABELS = {
    pending: "Pending",
    in_progress: "In progress",
    blocked: "Blocked",
    in_review: "In review",
    failed: "Failed",
    completed: "Done",
    cancelled: "Cancelled",
    superseded: "Superseded",
    archived: "Archived",
  };

  Band.statusLabel = function (status) {
    return LABELS[status] || String(status || "");
  };

  Band.statusPill = function (status) {
    var kind = String(status || "").replace(/[^a-z_]/g, "");
    return el("span", "status is-" + kind, Band.statusLabel(kind));
  };

  function assignee(a) {
    var who = (a.assignee && (a.assignee.name || a.assignee.handle)) || "Someone";
    var line = who + " · " + Band.statusLabel(a.status).toLowerCase();
    if (a.active_form && a.status === "in_progress") line += " · " + a.active_form;
    return el("li", "", line);
  }

  function task(t) {
    var li = el("li", "task status-" + String(t.overall_status).replace(/[^a-z_]/g, ""));
    li.setAttribute("data-task", String(t.number));
    var head = el("div", "task-head");
    head.appendChild(el("span", "task-number", "#" + t.number));
    head.appendChild(el("span", "task-subject", t.subject));
    head.appendChild(Band.statusPill(t.overall_status));
    li.appendChild(head);
    if (t.detail) {
      li.title = t.detail;
    }
    var people = t.assignments || [];
    if (people.length) {
      var list = el("ul", "task-assignees");
      list.setAttribute("aria-label", "Working on #" + t.number);
      people.forEach(function (a) { list.appendChild(assignee(a)); });
      li.appendChild(list);
    }
    return li;
  }

  Band.Board = function (section, roomId) {
    var goal = section.querySelector("[data-goal]");
    var tasks = section.querySelector("[data-tasks]");
    var progress = section.querySelector("[data-progress]");
    var more = section.querySelector("[data-more]");

    function render(data) {
      var board = data.board || {};
      var items = data.tasks || [];
      goal.hidden = !board.goal_title && !board.goal_summary;
      section.querySelector("[data-goal-title]").textContent = board.goal_title || "";
      section.querySelector("[data-goal-summary]").textContent = board.goal_summary || "";
      tasks.replaceChildren.apply(tasks, items.map(task));
      var finished = items.filter(function (t) { return t.overall_status === "completed"; }).length;
      progress.textContent = items.length ? finished + " of " + items.length + " tasks done" : "";
      progress.hidden = !items.length;
      more.hidden = !data.has_more;
      section.hidden = goal.hidden && !items.length;
    }

    // A burst of task events (an agent working through its list) is one question.
    return { refresh: Band.follower("/rooms/" + encodeURIComponent(roomId) + "/board", render, 200) };
  };
})();
