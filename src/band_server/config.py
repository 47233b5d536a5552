"""Server settings, read from the environment and the command line."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_MAX_FILE_BYTES = 25 * 1024 * 1024
DEFAULT_MAX_IN_FLIGHT = 256  # requests under way before a new one is answered 503 (http.admission)
DEFAULT_DEPENDENCY_WAIT = 180.0  # seconds `band serve` waits for the database and Redis at start


def default_data_dir() -> Path:
    return Path(os.environ.get("BAND_DATA_DIR", "./band-data")).resolve()


def default_max_file_bytes() -> int:
    """``BAND_MAX_FILE_BYTES`` (a positive integer), else 25 MiB."""
    raw = os.environ.get("BAND_MAX_FILE_BYTES", "").strip()
    if not raw:
        return DEFAULT_MAX_FILE_BYTES
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(
            f"BAND_MAX_FILE_BYTES must be a whole number of bytes, not {raw!r}"
        ) from None
    if value < 1:
        raise ValueError("BAND_MAX_FILE_BYTES must be at least 1")
    return value


def _switch(name: str, default: bool) -> bool:
    """An on/off setting from the environment variable ``name`` (``1``/``0``, ``on``/``off``,
    ``true``/``false``), else ``default``."""
    raw = os.environ.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in ("1", "on", "true", "yes"):
        return True
    if raw in ("0", "off", "false", "no"):
        return False
    raise ValueError(f"{name} must be 1 or 0 (on or off), not {raw!r}")


def _count(name: str, default: int) -> int:
    """A whole number of at least 0 from the environment variable ``name``, else ``default``."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if not raw.isascii() or not raw.isdigit():
        raise ValueError(f"{name} must be a whole number (0 or more), not {raw!r}")
    return int(raw)


def _seconds(name: str, default: float) -> float:
    """A positive number of seconds from the environment variable ``name``, else ``default``."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number of seconds, not {raw!r}") from None
    if not value > 0:
        raise ValueError(f"{name} must be more than 0")
    return value


@dataclass(frozen=True)
class Settings:
    """Everything the platform needs to start. Defaults give a one-laptop SQLite node."""

    data_dir: Path = field(default_factory=default_data_dir)
    database_url: str | None = field(default_factory=lambda: os.environ.get("BAND_DATABASE_URL"))
    redis_url: str | None = field(default_factory=lambda: os.environ.get("BAND_REDIS_URL"))
    host: str = "127.0.0.1"
    port: int = 8080
    heartbeat_timeout: float = 60.0
    # Nodes sharing Redis: a node's sockets count as online elsewhere until `presence_ttl`
    # seconds after its last refresh; it refreshes every `presence_interval` seconds.
    presence_ttl: float = field(default_factory=lambda: _seconds("BAND_PRESENCE_TTL", 10.0))
    presence_interval: float = field(
        default_factory=lambda: _seconds("BAND_PRESENCE_INTERVAL", 1.0)
    )
    # A thread renews the node's lease while its event loop comes round within this many
    # seconds: a slow node keeps its sockets counted, a wedged or killed one lets them lapse.
    presence_stall: float = field(default_factory=lambda: _seconds("BAND_PRESENCE_STALL", 60.0))
    # A `processing` attempt with no sign of life (a mark, an activity report, a post by the
    # agent in the room) for this long has expired: `/next` serves it after the room's other
    # open messages and the lease sweep records it `failed` (docs/decisions.md, "`/next`
    # passes over heads that will not run; an attempt holds a lease").
    delivery_lease: float = field(default_factory=lambda: _seconds("BAND_DELIVERY_LEASE", 300.0))
    agent_loop_limit: int = 50
    # Requests under way past which a new one is answered 503 `overloaded` with Retry-After
    # (http.admission; 0: no limit): a saturated node's queue, and its memory, stay bounded.
    max_in_flight: int = field(
        default_factory=lambda: _count("BAND_MAX_IN_FLIGHT", DEFAULT_MAX_IN_FLIGHT)
    )
    max_file_bytes: int = field(default_factory=default_max_file_bytes)  # per uploaded file
    # Delegated-token exchange (docs/delegation.md): how long after the person asked an agent
    # may redeem the message, how long a token lives, how many tokens one message yields, and
    # how often one agent may call the exchange.
    delegation_window: float = 600.0
    delegation_token_ttl: float = 300.0
    delegation_exchanges_per_message: int = 3
    delegation_exchange_rate: str = "30/minute"
    # Failed web sign-ins per client address (``limits`` notation); one more gets 429.
    sign_in_failures: str = field(
        default_factory=lambda: os.environ.get("BAND_SIGN_IN_FAILURES", "10/minute")
    )
    # Where the web app links a message's trace (with tracing on): a URL with "{trace_id}",
    # e.g. a Jaeger UI's http://localhost:16686/trace/{trace_id}; unset shows the id.
    trace_url: str | None = field(default_factory=lambda: os.environ.get("BAND_TRACE_URL") or None)
    # The fast lane (http.fast_lane) serves simple routes without FastAPI's per-request work;
    # off, FastAPI serves every request. Both answer alike (tests/server/http/test_lane_equal.py).
    fast_lane: bool = field(default_factory=lambda: _switch("BAND_FAST_LANE", True))
    # Accounts (services.identity.account_links, services.identity.mailer): invitation and
    # reset links are mailed through BAND_SMTP_URL (smtp://[user:pass@]host[:port], smtps://
    # for TLS) when it is set, from BAND_SMTP_FROM; links start with BAND_WEB_URL (else the
    # address the request came to); BAND_MEMBERS_MAY_INVITE lets every person invite, not
    # only admins.
    smtp_url: str | None = field(default_factory=lambda: os.environ.get("BAND_SMTP_URL") or None)
    smtp_from: str = field(
        default_factory=lambda: os.environ.get("BAND_SMTP_FROM", "band@localhost")
    )
    web_url: str | None = field(default_factory=lambda: os.environ.get("BAND_WEB_URL") or None)
    members_may_invite: bool = field(
        default_factory=lambda: _switch("BAND_MEMBERS_MAY_INVITE", False)
    )
    # Single sign-on with OpenID Connect (services.identity.oidc): the provider's issuer URL, this
    # platform's client id and secret there, the email domains allowed (comma list; empty: any)
    # and whether a first sign-in with an unknown (verified) email creates a person.
    oidc_issuer: str | None = field(
        default_factory=lambda: os.environ.get("BAND_OIDC_ISSUER") or None
    )
    oidc_client_id: str = field(default_factory=lambda: os.environ.get("BAND_OIDC_CLIENT_ID", ""))
    oidc_client_secret: str = field(
        default_factory=lambda: os.environ.get("BAND_OIDC_CLIENT_SECRET", "")
    )
    oidc_allowed_domains: str = field(
        default_factory=lambda: os.environ.get("BAND_OIDC_ALLOWED_DOMAINS", "")
    )
    oidc_create_users: bool = field(
        default_factory=lambda: _switch("BAND_OIDC_CREATE_USERS", False)
    )

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite+aiosqlite:///{self.data_dir / 'band.db'}"

    @property
    def public_url(self) -> str:
        return f"http://{self.host}:{self.port}"
