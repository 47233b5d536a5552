"""The ``band`` command: run the platform, and administer it from the shell.

How it works: docs/internals/server.md, "The band command".

Admin commands open the database directly; they do not need a running server.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import getpass
import hmac
import logging.config
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from . import admin, admin_accounts
from .backup import BackupError
from .config import DEFAULT_DEPENDENCY_WAIT, Settings
from .logs import LEVELS, logging_config
from .services.identity.accounts import slug


def _seconds(text: str) -> float:
    """A number of seconds, 0 or more (argparse's ``type`` for ``--wait-for-dependencies``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds, not {text!r}")
    return value


def _settings(args: argparse.Namespace) -> Settings:
    data: str | None = getattr(args, "data", None)
    return Settings() if data is None else Settings(data_dir=Path(data).resolve())


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from .app import create_app
    from .context import Platform
    from .server_stack import uvicorn_options

    # One readable line per event, secrets masked on every handler (uvicorn's included).
    log_config = logging_config(args.log_level)
    logging.config.dictConfig(log_config)
    settings = dataclasses.replace(_settings(args), host=args.host, port=args.port)
    gave_up: list[str] = []

    async def first_person(platform: Platform) -> None:
        first = await admin.ensure_admin(platform, args.admin_email)
        if first is not None:
            print("Created the first person, @admin. Their API key (shown once, keep it safe):")
            print(f"  {first.api_key}", flush=True)

    def give_up(reason: str) -> None:
        gave_up.append(reason)
        server.should_exit = True

    app = create_app(
        settings,
        wait_for_dependencies=args.wait_for_dependencies,
        on_give_up=give_up,
        on_ready=first_person,
    )
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level=args.log_level,
        log_config=log_config,
        access_log=args.access_log,
        ssl_certfile=args.ssl_certfile,
        ssl_keyfile=args.ssl_keyfile,
        forwarded_allow_ips=args.forwarded_allow_ips,
        **uvicorn_options(),
    )
    server = uvicorn.Server(config)
    print(f"Band is running at {settings.public_url}  (data: {settings.data_dir})", flush=True)
    server.run()
    if gave_up:  # the last line of the output says why
        print(f"band serve: {gave_up[0]}", file=sys.stderr, flush=True)
        return 1
    return 0 if server.started else 3  # 3: the app failed to start (uvicorn's own status)


def _users_create(args: argparse.Namespace) -> int:
    password = _ask_password() if args.password_prompt else None
    created = asyncio.run(admin.create_user(_settings(args), args.name, args.handle, args.email))
    print(f"id:      {created.id}")
    print(f"handle:  {created.handle}")
    print(f"role:    {created.role}")
    print(f"api_key: {created.api_key}")
    print("The API key is shown once; it is stored only as a hash.")
    if password is not None:
        asyncio.run(admin_accounts.set_password(_settings(args), created.id, password))
        print(f"password: set (sign in at the web app with {args.email})")
    return 0


def _ask_password() -> str:
    """A new password, typed twice without echo (or one line from a pipe)."""
    if not sys.stdin.isatty():
        password = sys.stdin.readline().rstrip("\n")
    else:
        password = getpass.getpass("Password: ")
        again = getpass.getpass("Password again: ")
        if not hmac.compare_digest(again.encode(), password.encode()):
            raise admin.AdminError("the two passwords differ")
    admin_accounts.check_policy(password)  # before the person is created
    return password


def _users_invite(args: argparse.Namespace) -> int:
    link = asyncio.run(admin_accounts.invite(_settings(args), args.email))
    print(f"invite_link: {link}")
    print("The link is shown once and works once, for 7 days (set BAND_WEB_URL for its address).")
    return 0


def _agents_create(args: argparse.Namespace) -> int:
    created = asyncio.run(
        admin.create_agent(_settings(args), args.name, args.owner, args.description)
    )
    print(f"agent_id: {created.id}")
    print(f"handle:   {created.handle}")
    print(f"api_key:  {created.api_key}")
    print("The API key is shown once; it is stored only as a hash.")
    if args.write_config:
        key = args.config_key or slug(args.name).replace("-", "_")
        path = Path(args.write_config)
        admin.write_agent_config(path, key, created.id, created.api_key)
        print(f"Wrote '{key}' to {path} (use Agent.from_config({key!r}, ...)).")
    return 0


def _rooms_create(args: argparse.Namespace) -> int:
    room_id = asyncio.run(admin.create_room(_settings(args), args.owner, args.title, args.add))
    print(f"room_id: {room_id}")
    return 0


def _send(args: argparse.Namespace) -> int:
    if args.key:
        # Through the running server: its fan-out pushes the mention to connected agents now.
        sent = admin.send_http(args.url, args.key, args.room, args.text)
    elif args.sender:
        sent = asyncio.run(admin.send(_settings(args), args.room, args.sender, args.text))
        print(
            "note: written straight to the database; a running server's agents pick it up "
            "on their next resync. Pass --key (or BAND_API_KEY) to post through the server.",
            file=sys.stderr,
        )
    else:
        raise SystemExit("band send: give --key (post through the server) or --as HANDLE")
    handles = ", ".join(f"@{r.handle}" for r in sent.recipients) or "nobody"
    print(f"message_id: {sent.id}  (mentions: {handles})")
    return 0


def _backup(args: argparse.Namespace) -> int:
    from .backup import backup

    done = backup(_settings(args), Path(args.dest).resolve(), say=_progress)
    print(f"Backed up {done.database} and {done.files} files into {done.path} ({done.bytes} bytes)")
    return 0


def _restore(args: argparse.Namespace) -> int:
    from .backup import restore

    done = restore(_settings(args), Path(args.source).resolve(), force=args.force, say=_progress)
    print(f"Restored {done.database} and {done.files} files into {done.path}")
    return 0


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _demo(argv: Sequence[str]) -> int:
    try:
        from .demo import main as demo_main
    except ImportError as exc:
        print(f"band demo is not available in this build ({exc})", file=sys.stderr)
        return 1
    return int(demo_main(list(argv)) or 0)


def _data_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data", metavar="DIR", help="data folder (default: $BAND_DATA_DIR or ./band-data)"
    )


if TYPE_CHECKING:  # argparse's own type of a parser's subcommands (generic in typeshed only)
    Commands = argparse._SubParsersAction[argparse.ArgumentParser]


def _actions(sub: Commands, command: str, about: str) -> Commands:
    """A ``band <command> ACTION`` group: its subparsers, one per action."""
    return sub.add_parser(command, help=about).add_subparsers(
        dest="action", required=True, metavar="ACTION"
    )


def build_parser() -> argparse.ArgumentParser:
    """The ``band`` argument parser (every subcommand sets ``func``)."""
    parser = argparse.ArgumentParser(prog="band", description="An open, self-hostable Band.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = sub.add_parser("serve", help="run the platform")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8080, help="port to listen on")
    serve.add_argument(
        "--ssl-certfile", metavar="PEM", help="serve HTTPS/WSS with this certificate"
    )
    serve.add_argument("--ssl-keyfile", metavar="PEM", help="private key of --ssl-certfile")
    serve.add_argument(
        "--access-log",
        action="store_true",
        help="log one line per HTTP request (off by default: /metrics counts them)",
    )
    serve.add_argument(
        "--log-level",
        choices=LEVELS,
        default="info",
        help="the least severe events logged, for every logger (secrets are masked at any level)",
    )
    serve.add_argument(
        "--forwarded-allow-ips",
        metavar="ADDRESSES",
        help="comma-separated addresses of proxies whose X-Forwarded-For and X-Forwarded-Proto "
        "are trusted: the client address (sign-in limits) and https (secure cookies) come from "
        "them ('*' for any; default: $FORWARDED_ALLOW_IPS or 127.0.0.1,::1)",
    )
    serve.add_argument(
        "--admin-email",
        metavar="ADDRESS",
        help="email of the @admin person created on first start (default admin@localhost)",
    )
    serve.add_argument(
        "--wait-for-dependencies",
        type=_seconds,
        default=DEFAULT_DEPENDENCY_WAIT,
        metavar="S",
        help="when the database or Redis is out of reach at start, keep trying for S seconds "
        "(answering 503 meanwhile), then exit with status 1; 0 exits at once "
        f"(default {DEFAULT_DEPENDENCY_WAIT:g})",
    )
    _data_option(serve)
    serve.set_defaults(func=_serve)

    users = _actions(sub, "users", "manage people")
    uc = users.add_parser("create", help="create a person and print their API key once")
    uc.add_argument("name", help="display name")
    uc.add_argument("--handle", required=True, help="permanent handle (lowercase, 2-40 chars)")
    uc.add_argument("--email", required=True, metavar="ADDRESS", help="the person's email")
    uc.add_argument(
        "--password-prompt",
        action="store_true",
        help="ask for a password (typed twice, or one line on stdin) to sign in with email",
    )
    _data_option(uc)
    uc.set_defaults(func=_users_create)
    ui = users.add_parser("invite", help="print an invitation link for an email, once")
    ui.add_argument("--email", required=True, metavar="ADDRESS", help="whom to invite")
    _data_option(ui)
    ui.set_defaults(func=_users_invite)

    agents = _actions(sub, "agents", "manage agents")
    ac = agents.add_parser("create", help="create an agent and print its API key once")
    ac.add_argument("name", help="display name")
    ac.add_argument(
        "--owner", required=True, metavar="HANDLE", help="handle of the person who owns it"
    )
    ac.add_argument("--description", required=True, help="what the agent does, shown to people")
    ac.add_argument("--write-config", metavar="PATH", help="merge the credentials into this YAML")
    ac.add_argument("--config-key", metavar="KEY", help="entry name (default: from the name)")
    _data_option(ac)
    ac.set_defaults(func=_agents_create)

    rooms = _actions(sub, "rooms", "manage rooms")
    rc = rooms.add_parser("create", help="create a room")
    rc.add_argument(
        "--owner", required=True, metavar="HANDLE", help="handle of the person who owns it"
    )
    rc.add_argument(
        "--title", help="the room's title (default: named after its people, as in the web app)"
    )
    rc.add_argument("--add", nargs="+", default=[], metavar="HANDLE", help="participants")
    _data_option(rc)
    rc.set_defaults(func=_rooms_create)

    send = sub.add_parser("send", help="post a message as a person")
    send.add_argument("--room", required=True, metavar="ID", help="id of the room to post in")
    send.add_argument("--as", dest="sender", metavar="HANDLE", help="post as this person (no key)")
    send.add_argument(
        "--key", default=os.environ.get("BAND_API_KEY"), help="a person's API key (BAND_API_KEY)"
    )
    send.add_argument(
        "--url", default=os.environ.get("BAND_URL", "http://127.0.0.1:8080"), help="server URL"
    )
    send.add_argument("text", help="the message; @handle mentions someone")
    _data_option(send)
    send.set_defaults(func=_send)

    bk = sub.add_parser(
        "backup", help="copy this deployment (database and files) consistently, while it runs"
    )
    bk.add_argument("dest", help="a new folder, or a .tar file, to write the backup to")
    _data_option(bk)
    bk.set_defaults(func=_backup)
    rs = sub.add_parser("restore", help="restore a backup into a (stopped) deployment")
    rs.add_argument("source", help="the backup folder or .tar file")
    rs.add_argument("--force", action="store_true", help="replace an existing SQLite database")
    _data_option(rs)
    rs.set_defaults(func=_restore)

    # Listed for --help only: main() hands everything after "demo" to the demo's own parser.
    sub.add_parser("demo", help="a person, a room and two agents, in one process")
    # Handled by band.cli before this parser (they need only the SDK); listed for --help.
    sub.add_parser("bridge", help="forward every agent event to a runtime (band bridge --help)")
    sub.add_parser("runtime", help="serve an adapter per invocation (band runtime --help)")
    sub.add_parser("export", help="copy rooms, messages, files... into an archive (--help)")
    sub.add_parser("import", help="import an archive into this deployment (--help)")
    sub.add_parser("replay", help="ask an exported room's mentions again of an adapter (--help)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``band`` console script; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["demo"]:
        return _demo(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        status: int = args.func(args)
    except admin.AdminError as exc:
        print(f"band: error: {exc}", file=sys.stderr)
        return 1
    except BackupError as exc:
        print(f"band {args.command}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return status


if __name__ == "__main__":
    raise SystemExit(main())
