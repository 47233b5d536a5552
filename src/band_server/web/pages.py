"""Whole pages, built from ``string.Template`` with every substituted value escaped first."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from string import Template

from band.protocol import ChatMessage

from ..services.principals import Principal
from ..services.rooms import Member
from ..store.models import Room
from .timeline import render_participants, render_timeline

LAYOUT = Template("""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>$title · Band</title>
<link rel="stylesheet" href="/static/app.css">
</head>
<body>
<header><a class="brand" href="/">Band</a>$nav</header>
<main>
$body
</main>
$scripts
</body>
</html>
""")

NAV = Template("""<nav><span class="me">$name <span class="handle">@$handle</span></span>
<form method="post" action="/logout" class="inline">$csrf<button type="submit">Sign out</button>
</form></nav>""")

LOGIN = Template("""<section class="card">
<h1>Sign in</h1>
<p>Paste your personal API key (it starts with <code>band_u_</code>).</p>
$error
<form method="post" action="/login">$csrf
<label for="api_key">API key</label>
<input id="api_key" name="api_key" type="password" autocomplete="off" required autofocus>
<button type="submit">Sign in</button>
</form>
</section>""")

ROOM = Template("""<div class="room">
<section class="timeline-pane">
<h1>$title</h1>
$timeline
<form method="post" action="/rooms/$room_id/messages" class="post">$csrf
<textarea name="content" rows="3" required placeholder="Message (@handle to mention)"></textarea>
<button type="submit">Send</button>
</form>
<p id="live-status" class="status">offline</p>
</section>
<aside><h2>Participants</h2>$participants</aside>
</div>""")


def csrf_field(token: str) -> str:
    """The hidden field every form carries."""
    return f'<input type="hidden" name="csrf" value="{escape(token)}">'


def layout(title: str, body: str, person: Principal | None, csrf: str, script: bool = False) -> str:
    nav = ""
    if person is not None:
        nav = NAV.substitute(
            name=escape(person.name), handle=escape(person.handle), csrf=csrf_field(csrf)
        )
    scripts = '<script src="/static/app.js" defer></script>' if script else ""
    return LAYOUT.substitute(title=escape(title), nav=nav, body=body, scripts=scripts)


def login_page(csrf: str, error: str | None = None) -> str:
    err = f'<p class="error" role="alert">{escape(error)}</p>' if error else ""
    return layout("Sign in", LOGIN.substitute(csrf=csrf_field(csrf), error=err), None, csrf)


def room_title(room: Room) -> str:
    return room.title or room.task_id or f"Room {room.id[:8]}"


def rooms_page(person: Principal, csrf: str, rooms: Sequence[Room]) -> str:
    rows = "".join(
        f'<li><a href="/rooms/{escape(r.id)}">{escape(room_title(r))}</a></li>' for r in rooms
    )
    listing = f'<ul class="rooms">{rows}</ul>' if rooms else "<p>You are not in any room yet.</p>"
    return layout("Rooms", f"<h1>Your rooms</h1>{listing}", person, csrf)


def room_page(
    person: Principal,
    csrf: str,
    room: Room,
    items: Sequence[ChatMessage],
    roster: Sequence[Member],
) -> str:
    body = ROOM.substitute(
        title=escape(room_title(room)),
        timeline=render_timeline(items, roster, room.id),
        room_id=escape(room.id),
        csrf=csrf_field(csrf),
        participants=render_participants(roster),
    )
    return layout(room_title(room), body, person, csrf, script=True)


def error_page(status: int, message: str, person: Principal | None, csrf: str) -> str:
    body = (
        f'<section class="card"><h1>{status}</h1><p>{escape(message)}</p>'
        '<p><a href="/">Back to your rooms</a></p></section>'
    )
    return layout(str(status), body, person, csrf)
