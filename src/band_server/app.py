"""The ASGI application: wiring only."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from starlette.types import ASGIApp, Receive, Scope, Send

from band_protocol import tracing

from . import __version__
from .api import agent as agent_api
from .api import delegation
from .api import human as human_api
from .api.admin import router as admin_router
from .api.agent import router as agent_router
from .api.human import router as human_router
from .config import DEFAULT_DEPENDENCY_WAIT, Settings
from .context import Platform
from .fanout.bus import Broadcast, Bus, GapLedger, InProcessBus, PlainDeliver
from .gc_policy import FrozenSurvivors
from .http import errors, health, openapi
from .http.admission import Admission
from .http.fast_lane import FastLane, Lane, lanes_of
from .http.front import Front
from .http.idempotency import IdempotencyMiddleware, claimed_in_unit
from .http.metrics import metrics
from .observability import Metrics
from .realtime.hub import Hub
from .realtime.presence import Presence
from .realtime.socket import is_socket_upgrade, serve_socket
from .realtime.socket import router as socket_router
from .server_stack import steady_heap
from .services.fanout_gaps import GapRows
from .startup import GiveUp, NodeStart, ReadyHook
from .store.db import Database
from .store.group_commit import InFlight
from .tracing import TracedBus, TracedHttp, traced_delivery
from .web import router as web_router
from .web import static_files


def make_presence(
    settings: Settings, hub: Hub, *, node_id: str | None = None, gaps: GapLedger | None = None
) -> Presence | None:
    """Cluster-wide presence when nodes share Redis; None: the hub alone judges. ``node_id``:
    the node's bus's too; ``gaps``: where it reads the unannounced gap of a node found dead."""
    if not settings.redis_url:
        return None
    from .realtime.redis_presence import ClusterPresence

    return ClusterPresence(
        hub,
        settings.redis_url,
        ttl=settings.presence_ttl,
        interval=settings.presence_interval,
        stall=settings.presence_stall,
        node_id=node_id,
        gaps=gaps,
    )


def make_bus(
    settings: Settings, *, node_id: str | None = None, gaps: GapLedger | None = None
) -> Bus:
    """Redis pub/sub when nodes share Redis (``gaps``: where it records a gap it has not
    announced yet), else in-process."""
    if settings.redis_url:
        from .fanout.redis_bus import RedisBus

        bus: Bus = RedisBus(settings.redis_url, node_id=node_id, gaps=gaps)
        return bus
    return InProcessBus()


def api_lanes() -> list[Lane]:
    """Every route of both REST surfaces as the fast lane sees it (``Lane.simple``: it serves
    that route itself)."""
    return [*lanes_of("/api/v1/agent", agent_api), *lanes_of("/api/v1/me", human_api)]


class BandApp(FastAPI):
    """FastAPI, behind the platform's own layers.

    - The socket upgrade goes straight to its endpoint. A socket lives for hours, and each ASGI
      layer on its way (Starlette's error middleware, FastAPI's own layers, our HTTP
      middlewares, the router) keeps a frame alive for all that time, a large part of an idle
      socket's memory (docs/decisions.md, "Idle sockets: memory, handshakes, the collector").
    - An HTTP request crosses ``http_stack`` first (``http.front.Front``: metrics, the body
      limit and the guard in one layer; then idempotency, the fast lane), and FastAPI's own
      stack (its telemetry check, Starlette's error middleware, FastAPI's exception and
      exit-stack layers, the router) only when the fast lane hands it on (``routed``): an
      agent's call the lane serves crosses five layers fewer. The front gives a crash in our
      layers the error envelope, as Starlette's error middleware did when it sat outside them.
    """

    http_stack: ASGIApp | None = None
    starting: NodeStart | None = None  # set at start-up; until it is ready, every answer is 503

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        starting = self.starting
        if starting is not None and not starting.ready and scope["type"] != "lifespan":
            await starting.answer(scope, receive, send)
            return
        if scope["type"] == "http" and self.http_stack is not None:
            scope["app"] = self
            await self.http_stack(scope, receive, send)
            return
        if is_socket_upgrade(scope):
            scope["app"] = self
            await serve_socket(scope, receive, send)
            return
        await super().__call__(scope, receive, send)

    async def routed(self, scope: Scope, receive: Receive, send: Send) -> None:
        """FastAPI's own stack and router: what the fast lane does not serve."""
        await super().__call__(scope, receive, send)


def create_app(
    settings: Settings | None = None,
    *,
    wait_for_dependencies: float = DEFAULT_DEPENDENCY_WAIT,
    on_give_up: GiveUp | None = None,
    on_ready: ReadyHook | None = None,
) -> FastAPI:
    """The platform's ASGI app. A dependency out of reach at start is waited for while the
    app answers 503 (``startup.NodeStart``); with ``on_give_up``, only for
    ``wait_for_dependencies`` seconds, then it is told why. ``on_ready`` runs once the
    database and Redis answer, before the node serves (``band serve`` makes the first person
    there)."""
    settings = settings or Settings()
    tracing.configure("band-server")  # on only when OTEL_EXPORTER_OTLP_ENDPOINT is set
    in_flight = InFlight()  # this node's HTTP requests under way: Front counts them
    node_metrics = Metrics(in_flight)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if settings.database_url is None:
            settings.data_dir.mkdir(parents=True, exist_ok=True)
        db = Database(settings.resolved_database_url, in_flight=in_flight)
        hub = Hub()
        # One id for the node's bus (its broadcasts' origin) and presence (its lease), so the
        # gap its bus leaves unannounced is found by the node that finds its lease expired.
        node_id, gaps = secrets.token_hex(8), GapRows(db)
        bus = make_bus(settings, node_id=node_id, gaps=gaps)
        if tracing.TRACING.on:
            bus = TracedBus(bus)
        platform = Platform(
            settings=settings,
            db=db,
            bus=bus,
            hub=hub,
            started=True,
            metrics=node_metrics,
            cluster=make_presence(settings, hub, node_id=node_id, gaps=gaps),
        )
        db.batches.listeners.append(node_metrics.batch_units.observe)
        hub.on_left = bus.forget  # the last socket of a topic on this node: stop hearing it

        def deliver_now(broadcast: Broadcast) -> None:
            node_metrics.observe_broadcast(broadcast)
            platform.auth.observe(broadcast)
            platform.rosters.observe(broadcast)
            hub.push(broadcast)

        deliver = PlainDeliver(deliver_now)  # nothing awaits: the in-process bus calls it

        app.state.platform = platform
        start = NodeStart(
            platform,
            traced_delivery(deliver) if tracing.TRACING.on else deliver,
            on_ready=on_ready,
        )
        app.starting = start
        try:
            await start.begin(wait_for_dependencies, on_give_up)
        except BaseException:
            await start.close()
            raise
        heap = FrozenSurvivors()  # thousands of long-lived sockets: see gc_policy
        heap.install()
        try:
            with steady_heap():
                yield
        finally:
            heap.uninstall()
            await start.close()
            tracing.shutdown()  # the spans still buffered go out (a no-op when off)

    app = BandApp(
        title="Band (open platform)",
        version=__version__,
        lifespan=lifespan,
        docs_url="/docs",
        openapi_url="/openapi.json",
    )
    errors.install(app)
    # Innermost first: the fast lane serves simple routes inside the idempotency middleware,
    # and hands everything else to FastAPI's own stack.
    lanes = api_lanes()
    unit_claimed = [
        lane.pattern
        for lane in lanes
        if "POST" in (lane.route.methods or ()) and claimed_in_unit(lane.route.endpoint)
    ]
    stack: ASGIApp = FastLane(app.routed, lanes=lanes) if settings.fast_lane else app.routed
    stack = IdempotencyMiddleware(stack, unit_claimed=unit_claimed)
    # Outer: times every request (the idempotency replays included), refuses an oversized body
    # before idempotency buffers it, answers a crash or a database out of reach in the envelope.
    app.http_stack = Front(
        stack,
        metrics=node_metrics,
        in_flight=in_flight,
        admission=Admission(settings.max_in_flight),
    )
    if tracing.TRACING.on:
        app.http_stack = TracedHttp(app.http_stack)
    app.include_router(agent_router, prefix="/api/v1/agent")
    app.include_router(human_router, prefix="/api/v1/me")
    app.include_router(admin_router, prefix="/api/v1/admin")
    app.include_router(delegation.router, prefix="/api/v1/delegation")
    app.include_router(socket_router, prefix="/api/v1/socket")
    app.include_router(health.router)
    app.include_router(web_router)
    app.add_route("/metrics", metrics, include_in_schema=False)
    app.mount("/static", static_files(), name="static")

    openapi.install(app)

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    return app
