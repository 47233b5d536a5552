"""The per-process platform: database, bus, realtime hub and services, wired once at start."""

from __future__ import annotations

from dataclasses import InitVar, dataclass, field
from typing import TYPE_CHECKING

from band_protocol import topic

from .config import Settings
from .files import FileStore, LocalFileStore
from .observability import Metrics
from .services.delegation.rate_limits import RateLimit
from .services.deliveries.leases import LeaseClock, LeaseSweeper
from .services.deliveries.passing_over import ServedHeads
from .services.deliveries.working import ActivityBoard
from .services.identity.accounts import authenticate_key
from .services.identity.auth_cache import AuthCache
from .services.identity.principals import Principal
from .services.jobs.bulk_deletions import JobRunner
from .services.rooms.roster_cache import RosterCache
from .store.db import Database

if TYPE_CHECKING:
    from .fanout.bus import Bus
    from .realtime.hub import Hub
    from .realtime.presence import Presence


@dataclass
class Platform:
    settings: Settings
    db: Database
    bus: Bus
    hub: Hub
    started: bool = field(default=False)
    activity: ActivityBoard = field(default_factory=ActivityBoard)  # agents' "working" flags
    auth: AuthCache = field(default_factory=AuthCache)  # key -> principal, seconds-long
    rosters: RosterCache = field(default_factory=RosterCache)  # rooms and members, hot paths
    jobs: JobRunner = field(default_factory=JobRunner)  # background jobs of this node
    leases: LeaseSweeper = field(default_factory=LeaseSweeper)  # expires dead attempts
    served_heads: ServedHeads = field(default_factory=ServedHeads)  # what /next served here
    metrics: Metrics = field(default_factory=Metrics)  # this node's Prometheus registry
    file_store: InitVar[FileStore | None] = None  # default: the data folder
    cluster: InitVar[Presence | None] = None  # default: this node's hub alone
    files: FileStore = field(init=False)
    presence: Presence = field(init=False)  # who is online, on any node
    exchange_limit: RateLimit = field(init=False)  # delegated-token exchanges per agent
    sign_in_limit: RateLimit = field(init=False)  # failed web sign-ins per client address
    lease_clock: LeaseClock = field(init=False)  # signs of life written, thinned per node

    def __post_init__(self, file_store: FileStore | None, cluster: Presence | None) -> None:
        from .realtime.presence import LocalPresence

        self.files = file_store or LocalFileStore(self.settings.data_dir / "files")
        self.presence = cluster or LocalPresence(self.hub)
        self.exchange_limit = RateLimit("delegation", self.settings.delegation_exchange_rate)
        self.sign_in_limit = RateLimit("sign-in", self.settings.sign_in_failures)
        self.lease_clock = LeaseClock(every=self.settings.delivery_lease / 4)

    def claim_on_push(self, agent_id: str, room_id: str) -> str | None:
        """The ``claim_on_push`` mode of the agent's socket on this node that holds the room's
        topic, else None (``services.deliveries.push_claims``)."""
        return self.hub.claim_on_push(agent_id, topic("chat_room", room_id))

    async def authenticate(self, key: str | None) -> Principal:
        """The principal behind an API key (cached for seconds), or raise 401."""
        if not key:
            return await authenticate_key(self.db, key)  # 401
        principal = self.auth.get(key)
        if principal is None:
            principal = await self.auth.read_through(key, lambda: authenticate_key(self.db, key))
        return principal
