"""Socket errors, timing knobs and the reconnect policy of the Phoenix client.

Kept apart from the client so the policy (backoff, rapid-disconnect accounting, close-code
rules) is readable on its own and unit-testable without a network.
"""

from __future__ import annotations

import random
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from .phoenix import UpgradeRejection

__all__ = [
    "CLOSE_POLICY",
    "CLOSE_WATCHDOG",
    "JoinError",
    "ReconnectPolicy",
    "SocketError",
    "SocketTerminated",
    "SocketTimings",
    "UpgradeRejected",
    "build_socket_url",
    "equal_jitter",
]

CLOSE_WATCHDOG = 4000
CLOSE_POLICY = 1008
_STRIPPED_PARAMS = {"vsn", "api_key", "token"}


class SocketError(Exception):
    """The socket cannot do what was asked (not connected, gave up, ...)."""


class JoinError(SocketError):
    """A ``phx_join`` was refused or timed out."""

    def __init__(self, topic: str, reason: str) -> None:
        super().__init__(f"join {topic} failed: {reason}")
        self.topic = topic
        self.reason = reason


class UpgradeRejected(SocketError):
    """The server answered the upgrade with an HTTP error."""

    def __init__(self, rejection: UpgradeRejection) -> None:
        super().__init__(str(rejection))
        self.rejection = rejection


class SocketTerminated(SocketError):
    """The client stopped for good (1008, too many rapid disconnects, refused reconnect)."""

    def __init__(self, reason: str, code: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


@dataclass(frozen=True, slots=True)
class SocketTimings:
    """Every timing knob; the defaults are the wire contract, tests shrink them."""

    heartbeat_interval: float = 30.0
    heartbeat_timeout: float = 60.0
    join_timeout: float = 10.0
    leave_timeout: float = 5.0
    open_timeout: float = 10.0
    backoff_base: float = 0.5
    backoff_cap: float = 30.0
    stable_after: float = 60.0
    rapid_lifetime: float = 5.0
    rapid_floors: tuple[float, ...] = (2.0, 10.0)
    rapid_limit: int = 10
    rapid_window: float = 60.0
    initial_retry_delays: tuple[float, ...] = (1, 5, 10, 20, 30, 40, 50, 60, 60)


def build_socket_url(ws_url: str, params: Mapping[str, str]) -> str:
    """``ws_url`` with ``vsn=2.0.0`` then ``params``; stale vsn/api_key/token are dropped."""
    parts = urlsplit(ws_url)
    kept = [(k, v) for k, v in parse_qsl(parts.query) if k not in _STRIPPED_PARAMS]
    kept = [(k, v) for k, v in kept if k not in params]
    query = urlencode([("vsn", "2.0.0"), *params.items(), *kept])
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, parts.fragment))


def equal_jitter(base: float, attempt: int, cap: float) -> float:
    """Half the capped exponential delay ``base * 2**attempt`` plus a random half."""
    delay = float(min(cap, base * (2 ** min(attempt, 30))))
    return delay / 2 + random.uniform(0, delay / 2)  # nosec B311 # backoff jitter, not a secret


class ReconnectPolicy:
    """Decides the delay before each reconnect attempt, and when to give up.

    Exponential backoff with equal jitter; the attempt counter resets after a connection
    that stayed up ``stable_after`` seconds. Connections that lived under ``rapid_lifetime``
    raise the floor (2 s, 10 s, then 60 s + 30 s per extra, capped at 300 s); ``rapid_limit``
    of them within ``rapid_window`` is terminal. 1012 waits 1-5 s, 1013 waits 30-60 s.
    """

    def __init__(self, timings: SocketTimings) -> None:
        self.timings = timings
        self.attempt = 0
        self._rapid: deque[float] = deque()
        self._streak = 0
        self._override: float | None = None

    def connection_ended(self, code: int | None, lived: float) -> bool:
        """Account for a lost connection; False means stop reconnecting for good."""
        t = self.timings
        now = time.monotonic()
        if lived >= t.stable_after:
            self.attempt = 0
        if lived < t.rapid_lifetime:
            self._streak += 1
            self._rapid.append(now)
            while self._rapid and now - self._rapid[0] > t.rapid_window:
                self._rapid.popleft()
            if len(self._rapid) >= t.rapid_limit:
                return False
        else:
            self._streak = 0
        if code == 1012:  # service restart
            self._override = random.uniform(1.0, 5.0)  # nosec B311 # reconnect delay jitter, not a secret
        elif code == 1013:  # try again later
            self._override = random.uniform(30.0, 60.0)  # nosec B311 # reconnect delay jitter, not a secret
        return True

    def retry_after(self, seconds: float | None) -> None:
        """Use the server's ``retry_after`` for the next attempt."""
        self._override = seconds

    def next_delay(self) -> float:
        """Delay before the next attempt (and count the attempt)."""
        t = self.timings
        delay = equal_jitter(t.backoff_base, self.attempt, t.backoff_cap)
        if self._streak:
            delay = max(delay, self._floor())
        if self._override is not None:
            delay, self._override = self._override, None
        self.attempt += 1
        return delay

    def _floor(self) -> float:
        floors = self.timings.rapid_floors
        if self._streak <= len(floors):
            return floors[self._streak - 1]
        extra = self._streak - len(floors) - 1
        return float(min(300.0, 60.0 + 30.0 * extra))
