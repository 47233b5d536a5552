"""``GET /metrics`` on every node: Prometheus text, via ``prometheus-client``.

How it works: docs/internals/server.md, "Metrics".

All metrics are per node; each app has its own registry, so several apps in one process
never collide.
"""

from __future__ import annotations

import asyncio
import time
from bisect import bisect_left
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol

from prometheus_client import (
    CollectorRegistry,
    Gauge,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector
from sqlalchemy import func, select
from starlette.types import Scope

from .fanout.bus import Broadcast
from .store.group_commit import InFlight
from .store.models import Delivery
from .store.sqlite_memory import sqlite_memory_bytes

if TYPE_CHECKING:
    from .realtime.hub import Hub
    from .realtime.presence import Presence
    from .store.db import Database

DELIVERY_STATES = ("delivered", "processing", "processed", "failed")
_LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
_BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
ROUTE_TEMPLATE = "band.route"
"""``scope[ROUTE_TEMPLATE]``: the request's full route template, set by whoever matched it
with its prefix known (the fast lane); else :func:`route_template` works it out from
``scope["route"]``."""


class Scraped(Protocol):
    """What a scrape reads of the platform: its database, sockets, presence and registry."""

    @property
    def db(self) -> Database: ...

    @property
    def hub(self) -> Hub: ...

    @property
    def presence(self) -> Presence: ...

    @property
    def metrics(self) -> Metrics: ...


class Metrics:
    """The node's Prometheus registry and the instruments the platform updates."""

    def __init__(self, in_flight: InFlight | None = None) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.in_flight = in_flight or InFlight()  # the app's requests under way (api.front)
        r = self.registry
        ProcessCollector(registry=r)
        self.http = RequestStats(r)
        self.deliveries = Gauge(
            "band_deliveries", "Deliveries by state (all rooms)", ["state"], registry=r
        )
        self.sockets = Gauge("band_sockets", "Live sockets on this node", ["kind"], registry=r)
        self.tasks = Gauge("band_asyncio_tasks", "Tasks of this node's event loop", registry=r)
        self.requests_in_flight = Gauge(
            "band_http_requests_in_flight", "HTTP requests under way on this node", registry=r
        )
        self._sqlite: Gauge | None = None  # made on a SQLite node only
        self._presence: tuple[Gauge, Gauge, Gauge] | None = None  # made on a cluster only
        self.fanout_lag = LoopHistogram(
            "band_fanout_lag_seconds",
            "From a broadcast's publication to this node pushing it to its sockets",
            _LATENCY_BUCKETS,
            r,
        )
        self.batch_units = LoopHistogram(
            "band_db_commit_batch_units",
            "Units of work committed together by one SQLite group commit",
            _BATCH_BUCKETS,
            r,
        )

    def observe_broadcast(self, broadcast: Broadcast) -> None:
        lag = time.time() - broadcast.published_at
        self.fanout_lag.observe(lag if lag > 0.0 else 0.0)

    async def render(self, platform: Scraped) -> bytes:
        """Refresh the scrape-time gauges, then the Prometheus text."""
        async with platform.db.read() as session:
            rows = await session.execute(
                select(Delivery.status, func.count()).group_by(Delivery.status)
            )
            counts = {str(status): int(n) for status, n in rows}
        for state in DELIVERY_STATES:
            self.deliveries.labels(state).set(counts.get(state, 0))
        self.tasks.set(len(asyncio.all_tasks()))
        self.requests_in_flight.set(self.in_flight.count)
        held = sqlite_memory_bytes() if platform.db.is_sqlite else None
        if held is not None:
            if self._sqlite is None:
                doc = "Bytes SQLite holds in this process (page caches above all)"
                self._sqlite = Gauge("band_sqlite_memory_bytes", doc, registry=self.registry)
            self._sqlite.set(held)
        by_kind = platform.hub.count_by_kind()
        for kind in ("agent", "user"):
            self.sockets.labels(kind).set(by_kind.get(kind, 0))
        view = platform.presence.cluster_view()
        if view is not None:
            nodes, remote, age = self._presence_gauges()
            nodes.set(view.other_nodes)
            remote.set(view.remote_principals)
            age.set(round(view.sync_age, 3))
        return generate_latest(self.registry)

    def _presence_gauges(self) -> tuple[Gauge, Gauge, Gauge]:
        if self._presence is None:
            r = self.registry
            self._presence = (
                Gauge("band_presence_other_nodes", "Live nodes seen besides this one", registry=r),
                Gauge(
                    "band_presence_remote_principals",
                    "Principals online only through other nodes' sockets",
                    registry=r,
                ),
                Gauge(
                    "band_presence_sync_age_seconds",
                    "Seconds since this node's presence last reached Redis",
                    registry=r,
                ),
            )
        return self._presence


class RequestStats(Collector):
    """``band_http_requests_total{method,route,status}`` and
    ``band_http_request_duration_seconds{method,route}`` as plain numbers.

    prometheus-client's labelled children take a lock on every update (a histogram's observe
    updates its sum and a bucket), and every request made both. Requests are timed on the loop's
    thread and scrapes render on it too, so plain numbers need no lock; the two families are
    built when scraped, the same samples as the library's own counter and histogram give
    (``_total``, ``_bucket`` cumulative, ``_count``, ``_sum``, ``_created``).
    """

    def __init__(self, registry: CollectorRegistry) -> None:
        self._counts: dict[tuple[str, str, int], list[float]] = {}  # [count, created]
        self._timings: dict[tuple[str, str], list[float]] = {}  # per bucket, +Inf, sum, created
        registry.register(self)

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        counted = self._counts.get((method, route, status))
        if counted is None:
            counted = self._counts[(method, route, status)] = [0.0, time.time()]
        counted[0] += 1
        timed = self._timings.get((method, route))
        if timed is None:
            timed = self._timings[(method, route)] = [0.0] * (len(_LATENCY_BUCKETS) + 2)
            timed.append(time.time())
        timed[bisect_left(_LATENCY_BUCKETS, seconds)] += 1  # `le`: at most the bound
        timed[-2] += seconds

    def collect(self) -> Iterator[Metric]:
        total = Metric("band_http_requests", "HTTP requests answered", "counter")
        for (method, route, status), (count, created) in self._counts.items():
            labels = {"method": method, "route": route, "status": str(status)}
            total.add_sample("band_http_requests_total", labels, count)
            total.add_sample("band_http_requests_created", labels, created)
        yield total
        name = "band_http_request_duration_seconds"
        doc = "Time from the request's arrival to the end of its answer"
        latency = Metric(name, doc, "histogram")
        bounds = _bound_labels(_LATENCY_BUCKETS)
        for (method, route), timed in self._timings.items():
            labels = {"method": method, "route": route}
            _add_histogram(latency, labels, bounds, timed[:-2], timed[-2], timed[-1])
        yield latency


def _bound_labels(buckets: tuple[float, ...]) -> list[str]:
    """A histogram's ``le`` labels, as prometheus-client writes them."""
    return [*(str(float(b)) for b in buckets), "+Inf"]


def _add_histogram(
    family: Metric,
    labels: dict[str, str],
    bounds: list[str],
    counts: list[float],
    total: float,
    created: float,
) -> None:
    """One histogram's samples, as the library's own: ``_bucket`` cumulative (``counts``: per
    bucket, then +Inf), ``_count``, ``_sum``, ``_created``."""
    name = family.name
    below = 0.0
    for bound, count in zip(bounds, counts, strict=True):
        below += count
        family.add_sample(f"{name}_bucket", {**labels, "le": bound}, below)
    family.add_sample(f"{name}_count", labels, below)
    family.add_sample(f"{name}_sum", labels, total)
    family.add_sample(f"{name}_created", labels, created)


class LoopHistogram(Collector):
    """An unlabelled histogram as plain numbers, observed on the loop's thread only (every
    broadcast a node pushes, each group commit's units as its batch settles):
    prometheus-client's ``Histogram.observe`` takes a lock for its sum and again for a
    bucket, besides two checks, on every observation. Scraped as the
    library's own histogram (``_bucket`` cumulative, ``_count``, ``_sum``, ``_created``), as
    :class:`RequestStats` is."""

    def __init__(
        self, name: str, documentation: str, buckets: tuple[float, ...], registry: CollectorRegistry
    ) -> None:
        self._name = name
        self._documentation = documentation
        self._bounds = buckets
        self._labels = _bound_labels(buckets)
        self._counts = [0.0] * (len(buckets) + 1)  # per bucket, then +Inf
        self._sum = 0.0
        self._created = time.time()
        registry.register(self)

    def observe(self, value: float) -> None:
        self._counts[bisect_left(self._bounds, value)] += 1  # `le`: at most the bound
        self._sum += value

    def collect(self) -> Iterator[Metric]:
        family = Metric(self._name, self._documentation, "histogram")
        _add_histogram(family, {}, self._labels, self._counts, self._sum, self._created)
        yield family


def route_template(scope: Scope) -> str:
    """The full route template of the request, whatever router prefixes it sits under
    (``unmatched`` when no route took it)."""
    known: str | None = scope.get(ROUTE_TEMPLATE)
    if known:
        return known
    route: Any = scope.get("route")
    local = getattr(route, "path", None)
    if not local:
        return "unmatched"
    local_format = str(getattr(route, "path_format", local))
    try:
        concrete = local_format.format(**scope.get("path_params", {}))
    except (KeyError, IndexError, ValueError):
        return str(local)
    path = str(scope.get("path", ""))
    # The route only knows its own part; the rest of the path is the static prefix of the
    # routers it was included in (``/api/v1/agent``).
    prefix = path[: -len(concrete)] if concrete and path.endswith(concrete) else ""
    return prefix + str(local)
