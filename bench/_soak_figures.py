"""The soak's figures (bench-only): samples of the node, the table, and the targets judged.

A :class:`Sample` is the node once: its RSS and open descriptors (psutil), and from its
``/metrics`` its event loop's tasks and requests under way, its sockets, what SQLite holds, the
5xx answers it gave, the requests it answered by latency bucket and the mentions still open
(delivered or claimed).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import psutil  # type: ignore[import-untyped]
from prometheus_client.parser import text_string_to_metric_families

from faults.checker import TOKEN, Report

FLAT = (0.02, 10)  # a flat figure moves by at most 2% (or 10) over the run after the warm-up
RSS_GROWTH = 0.05


@dataclass
class Sample:
    """The node, once: ``t`` seconds after the load began (negative: before it)."""

    t: float
    rss_mib: float
    sqlite_mib: float  # of the RSS: what SQLite holds (its page caches, bounded)
    fds: int
    tasks: int
    requests_in_flight: int  # one task each: the tasks beyond them are what a leak would grow
    agent_sockets: int
    db_mib: float  # the SQLite file
    wal_mib: float  # its write-ahead log (a log that never shrinks: checkpoints starved)
    open_mentions: int  # deliveries delivered or processing
    answers_5xx: int
    requests: int
    buckets: dict[float, float]  # cumulative request counts by latency bound (all routes)
    routes: dict[str, tuple[float, float]]  # "METHOD route" -> (requests, seconds), cumulative
    route_buckets: dict[str, dict[float, float]]  # "METHOD route" -> cumulative buckets
    cpu_s: float  # the node's CPU time so far (user + system)
    acknowledged: int


async def scrape(url: str) -> dict[str, Any]:
    """The figures of the node's ``/metrics`` a sample keeps."""
    async with httpx.AsyncClient(timeout=60) as http:
        text = (await http.get(f"{url}/metrics")).text
    out: dict[str, Any] = {"tasks": 0, "in_flight": 0, "sockets": 0, "sqlite": 0.0, "open": 0}
    out["5xx"] = 0
    out["requests"], out["buckets"], out["routes"], out["route_buckets"] = 0, {}, {}, {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == "band_asyncio_tasks":
                out["tasks"] = int(s.value)
            elif s.name == "band_http_requests_in_flight":
                out["in_flight"] = int(s.value)
            elif s.name == "band_sqlite_memory_bytes":
                out["sqlite"] = s.value
            elif s.name == "band_sockets" and s.labels.get("kind") == "agent":
                out["sockets"] = int(s.value)
            elif s.name == "band_deliveries" and s.labels["state"] in ("delivered", "processing"):
                out["open"] += int(s.value)
            elif s.name == "band_http_requests_total":
                out["requests"] += int(s.value)
                out["5xx"] += int(s.value) if s.labels["status"].startswith("5") else 0
            elif s.name == "band_http_request_duration_seconds_bucket":
                bound = float(s.labels["le"])
                out["buckets"][bound] = out["buckets"].get(bound, 0.0) + s.value
                route = f"{s.labels['method']} {s.labels['route']}"
                out["route_buckets"].setdefault(route, {})[bound] = s.value
            elif s.name.startswith("band_http_request_duration_seconds_"):
                route = f"{s.labels['method']} {s.labels['route']}"
                count, seconds = out["routes"].get(route, (0.0, 0.0))
                if s.name.endswith("_count"):
                    out["routes"][route] = (s.value, seconds)
                elif s.name.endswith("_sum"):
                    out["routes"][route] = (count, s.value)
    return out


def file_mib(path: Path) -> float:
    return round(path.stat().st_size / 2**20, 1) if path.exists() else 0.0


async def take_sample(pid: int, url: str, data: Path, t: float, acknowledged: int) -> Sample:
    proc = psutil.Process(pid)
    rss, fds, cpu = proc.memory_info().rss, proc.num_fds(), proc.cpu_times()
    scraped = await scrape(url)
    return Sample(
        t=round(t, 1),
        rss_mib=round(rss / 2**20, 1),
        sqlite_mib=round(scraped["sqlite"] / 2**20, 1),
        fds=fds,
        tasks=scraped["tasks"],
        requests_in_flight=scraped["in_flight"],
        agent_sockets=scraped["sockets"],
        db_mib=file_mib(data / "band.db"),
        wal_mib=file_mib(data / "band.db-wal"),
        open_mentions=scraped["open"],
        answers_5xx=scraped["5xx"],
        requests=scraped["requests"],
        buckets=scraped["buckets"],
        routes=scraped["routes"],
        route_buckets=scraped["route_buckets"],
        cpu_s=round(cpu.user + cpu.system, 2),
        acknowledged=acknowledged,
    )


def window_quantile_ms(
    before: dict[float, float], after: dict[float, float], q: float = 0.99
) -> float | None:
    """The ``q`` quantile of the requests answered between two scrapes, interpolated in its
    bucket as Prometheus' ``histogram_quantile`` does."""
    bounds = sorted(after)
    counts = [after[b] - before.get(b, 0.0) for b in bounds]
    total = counts[-1] if counts else 0
    if total <= 0:
        return None
    rank, lower, below = q * total, 0.0, 0.0
    for bound, count in zip(bounds, counts, strict=True):
        if count >= rank:
            if math.isinf(bound):
                return round(lower * 1000, 1)
            share = (rank - below) / max(count - below, 1e-9)
            return round((lower + (bound - lower) * share) * 1000, 1)
        lower, below = bound, count
    return None


def window_p99_ms(before: dict[float, float], after: dict[float, float]) -> float | None:
    """The p99 of the requests answered between two scrapes (all routes)."""
    return window_quantile_ms(before, after, 0.99)


def p99(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))], 1)


def reply_latency(
    rooms: dict[str, list[dict[str, Any]]], *, started_at: float, window: float
) -> dict[int, float | None]:
    """p99 of mention to reply (the server's ``inserted_at`` of each), by the window the
    mention was posted in."""
    asked: dict[str, float] = {}
    answered: dict[str, float] = {}
    for messages in rooms.values():
        for m in messages:
            tokens = TOKEN.findall(str(m.get("content") or ""))
            if m.get("message_type") != "text" or not tokens:
                continue
            at = datetime.fromisoformat(str(m["inserted_at"]).replace("Z", "+00:00")).timestamp()
            (answered if m.get("sender_type") == "Agent" else asked).setdefault(tokens[-1], at)
    by_window: dict[int, list[float]] = {}
    for token, at in asked.items():
        if token in answered:
            w = int((at - started_at) // window)
            by_window.setdefault(w, []).append((answered[token] - at) * 1000)
    return {w: p99(v) for w, v in sorted(by_window.items())}


def trend(points: list[tuple[float, float]]) -> float:
    """The least-squares slope of ``(t, value)`` points, per second."""
    n = len(points)
    if n < 2:
        return 0.0
    mt = sum(t for t, _ in points) / n
    mv = sum(v for _, v in points) / n
    spread = sum((t - mt) ** 2 for t, _ in points)
    return sum((t - mt) * (v - mv) for t, v in points) / spread if spread else 0.0


def flat(
    name: str, value: Callable[[Sample], float], loaded: list[Sample], rest: tuple[Sample, Sample]
) -> dict[str, Any]:
    """Flat: its trend over the loaded samples moves it by at most 2% (or 10) over their span,
    and at rest after the load it is back where it was at rest before it (same margin)."""
    points = [(s.t, value(s)) for s in loaded]
    mean = sum(v for _, v in points) / len(points)
    margin = max(FLAT[0] * mean, FLAT[1])
    change = trend(points) * (points[-1][0] - points[0][0])
    before, after = value(rest[0]), value(rest[1])
    return {
        "figure": name,
        "mean": round(mean, 1),
        "low": min(v for _, v in points),
        "high": max(v for _, v in points),
        "trend_change": round(change, 1),
        "at_rest_before": before,
        "at_rest_after": after,
        "met": abs(change) <= margin and abs(after - before) <= margin,
    }


def judge(
    samples: list[Sample], rest: tuple[Sample, Sample], warm_up: float, report: Report
) -> dict[str, Any]:
    """The targets, each with what was measured: after the warm-up, RSS grows under 5% and
    descriptors and tasks stay flat; no 5xx at all; nothing acknowledged lost. Beside them, as a
    figure: the RSS less what SQLite holds (its page caches fill as the database grows)."""
    loaded = [s for s in samples if s.t >= warm_up] or samples[-1:]
    warm, middle, last = loaded[0], loaded[len(loaded) // 2], loaded[-1]
    growth = (last.rss_mib - warm.rss_mib) / warm.rss_mib
    rest_of = [s.rss_mib - s.sqlite_mib for s in (warm, last)]
    return {
        "rss": {
            "after_warm_up": warm.rss_mib,
            "end": last.rss_mib,
            "growth": round(growth, 4),
            "met": growth < RSS_GROWTH,
        },
        "rss_less_sqlite": {  # a figure, not a target
            "after_warm_up": round(rest_of[0], 1),
            "end": round(rest_of[1], 1),
            "growth": round((rest_of[1] - rest_of[0]) / rest_of[0], 4),
        },
        # A figure: bounded things (caches, requests queued up to the clients' concurrency)
        # fill early and then stay; a leak keeps growing in the second half as in the first.
        "rss_second_half": {
            "middle": middle.rss_mib,
            "end": last.rss_mib,
            "growth": round((last.rss_mib - middle.rss_mib) / middle.rss_mib, 4),
        },
        "fds": flat("open descriptors", lambda s: s.fds, loaded, rest),
        # A request under way is a task: what would grow with a leak is the rest.
        "tasks": flat(
            "tasks beyond requests in flight",
            lambda s: s.tasks - s.requests_in_flight,
            loaded,
            rest,
        ),
        "no_5xx": {"answers_5xx": rest[1].answers_5xx, "met": rest[1].answers_5xx == 0},
        "nothing_lost": {"problems": report.problems, "met": report.ok},
    }


def table(
    samples: list[Sample], reply_p99: dict[int, float | None], window: float
) -> list[dict[str, Any]]:
    """One row per sample taken under load: the node then, and the window before it."""
    rows = []
    for before, s in itertools.pairwise(samples):
        span = max(s.t - before.t, 1e-9)
        rows.append(
            {
                "min": round(s.t / 60, 1),
                "rss MiB": s.rss_mib,
                "sqlite MiB": s.sqlite_mib,
                "fds": s.fds,
                "tasks": s.tasks,
                "in flight": s.requests_in_flight,
                "sockets": s.agent_sockets,
                "db MiB": s.db_mib,
                "wal MiB": s.wal_mib,
                "open": s.open_mentions,
                "mentions/s": round((s.acknowledged - before.acknowledged) / span, 1),
                "req/s": round((s.requests - before.requests) / span),
                "cpu %": round(100 * (s.cpu_s - before.cpu_s) / span),
                "cpu ms/req": round(
                    1000 * (s.cpu_s - before.cpu_s) / max(s.requests - before.requests, 1), 2
                ),
                "p99 ms": window_p99_ms(before.buckets, s.buckets),
                "reply p99 ms": reply_p99.get(int(max(before.t, 0) // window)),
                "5xx": s.answers_5xx - before.answers_5xx,
            }
        )
    return rows


def progress(sample: Sample, before: Sample) -> str:
    return (
        f"  t={sample.t:6.0f}s rss={sample.rss_mib}MiB (sqlite {sample.sqlite_mib}) "
        f"fds={sample.fds} tasks={sample.tasks} (in flight {sample.requests_in_flight}) "
        f"sockets={sample.agent_sockets} "
        f"db={sample.db_mib}+{sample.wal_mib}MiB open={sample.open_mentions} "
        f"acked={sample.acknowledged} "
        f"5xx={sample.answers_5xx} p99={window_p99_ms(before.buckets, sample.buckets)}ms"
    )


def route_times(first: tuple[Sample, Sample], last: tuple[Sample, Sample]) -> list[dict[str, Any]]:
    """Mean, p50 and p99 milliseconds per request of each route in two windows (the first after
    the warm-up and the last), the routes that took most of the node's time in the last one
    first: which request got slower as the data grew, or only waited longer for a busy
    machine."""

    def window(pair: tuple[Sample, Sample]) -> dict[str, tuple[float, float]]:
        before, after = pair
        out = {}
        for route, (count, seconds) in after.routes.items():
            was_count, was_seconds = before.routes.get(route, (0.0, 0.0))
            if count > was_count:
                out[route] = (count - was_count, seconds - was_seconds)
        return out

    early, late = window(first), window(last)

    def quantile(pair: tuple[Sample, Sample], route: str, q: float) -> float | None:
        before, after = pair
        return window_quantile_ms(
            before.route_buckets.get(route, {}), after.route_buckets.get(route, {}), q
        )

    rows = [
        {
            "route": route,
            "requests_last": int(count),
            "share_last": round(seconds / max(sum(s for _, s in late.values()), 1e-9), 3),
            "mean_ms_first": round(1000 * early[route][1] / early[route][0], 1)
            if route in early
            else None,
            "mean_ms_last": round(1000 * seconds / count, 1),
            "p50_ms_first": quantile(first, route, 0.5),
            "p99_ms_first": quantile(first, route, 0.99),
            "p50_ms_last": quantile(last, route, 0.5),
            "p99_ms_last": quantile(last, route, 0.99),
        }
        for route, (count, seconds) in late.items()
    ]
    return sorted(rows, key=lambda r: -r["share_last"])[:12]
