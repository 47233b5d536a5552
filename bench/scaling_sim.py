"""What a workload needs from a cluster, computed from the costs the benchmarks measure.

A capacity model, not a load test: each resource's demand is the workload times a measured
constant, and its supply is what one unit of it sustains. A *node* is one server process (one
asyncio loop: one core); a machine with C cores runs C nodes. Resources and their constants:

- nodes' CPU: server CPU per delivered mention on one node (PostgreSQL), times the cluster's
  ratio (N nodes / one node, ``bench.mention_latency --nodes 3``), plus the idle sockets'
  heartbeats (``bench.idle_sockets``), plus each node's presence cycle: a node reloads the
  other nodes' presence hashes when they change (7.4 ms per 10,000 entries with hiredis,
  docs/decisions.md "Presence across nodes");
- nodes' memory: KiB per idle agent socket (``bench.idle_sockets``) plus the kernel's ~4.7 KiB
  per TCP socket (/work/shared/reference/websocket-memory.md), against a memory budget per node;
- PostgreSQL: commits, rows and WAL bytes per mention (``bench.cluster_costs``) against the
  durable commits a second one primary sustains (``pgbench`` on the same machine);
- Redis: PUBLISH per mention (``bench.cluster_costs``), each delivered to every node holding a
  subscriber of the topic, against the PUBLISH a second one Redis sustains
  (``redis-benchmark``); channels are one per topic some node holds.

Constants come from ``bench/results/*.json`` when present (``--results DIR``), else from the
measured defaults recorded in docs/decisions.md and docs/scaling.md (with their commands);
each printed constant says where it came from. ``--utilisation`` is the share of a unit's
capacity planned for (headroom for the tail).

    .venv/bin/python -m bench.scaling_sim [--agents 100000] [--rooms 1000000]
        [--mentions 20000] [--scale 1,10] [--results bench/results] [--out FILE]

Prints a table per scale and writes bench/results/scaling_sim.json.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"
HEARTBEAT_SECONDS = 30.0
KERNEL_KIB_PER_SOCKET = 4.7  # TCP socket slab outside RSS (reference/websocket-memory.md)
OWN_TOPICS = 3  # agent_control, agent_rooms, agent_contacts


@dataclass
class Constant:
    value: float
    source: str


# Measured defaults (docs/scaling.md lists each with its command and load).
DEFAULTS: dict[str, Constant] = {
    "cpu_ms_per_msg": Constant(1.95, "default: one node, PostgreSQL, 100/s, load ~4 (scaling.md)"),
    "cluster_cpu_ratio": Constant(1.14, "default: 3 nodes / 1 node at 100/s (scaling.md)"),
    "kib_per_socket": Constant(17.6, "default: idle_sockets, 19,000 sockets (scaling.md)"),
    "idle_cpu_pct_per_10k": Constant(6.3, "default: idle_sockets, 19,000 sockets (scaling.md)"),
    "connect_cpu_ms": Constant(0.77, "default: idle_sockets paced (scaling.md)"),
    "pg_commits_per_msg": Constant(1.02, "default: cluster_costs (scaling.md)"),
    "pg_rows_per_msg": Constant(4.03, "default: cluster_costs (scaling.md)"),
    "wal_bytes_per_msg": Constant(2541.0, "default: cluster_costs (scaling.md)"),
    "redis_publish_per_msg": Constant(1.0, "default: cluster_costs (scaling.md)"),
    "pg_commits_capacity": Constant(2123.0, "default: pgbench -N, 8 clients, here (scaling.md)"),
    "redis_publish_capacity": Constant(1_257_000.0, "default: redis-benchmark -P 16 (scaling.md)"),
    "presence_us_per_entry": Constant(0.74, "decisions.md: 7.4 ms per 10,000 entries"),
}


def _read(results: Path, name: str) -> dict[str, Any] | None:
    path = results / name
    if not path.is_file():
        return None
    try:
        data: dict[str, Any] = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data


def _cpu_pair(summary: dict[str, Any], one: str, several: str) -> tuple[str, float, float] | None:
    """CPU per message of both targets at the highest rate neither fell behind (else the
    highest rate measured): a saturated run's CPU per message is another measurement."""

    def kept_up(row: dict[str, Any], rate: str) -> bool:
        return float(row.get("achieved_rate") or 0) >= 0.97 * float(rate)

    rows_one, rows_several = summary.get(one) or {}, summary.get(several) or {}
    rates = sorted(set(rows_one) & set(rows_several), key=float)
    usable = [
        r
        for r in rates
        if rows_one[r].get("server_cpu_ms_per_msg") and rows_several[r].get("server_cpu_ms_per_msg")
    ]
    calm = [r for r in usable if kept_up(rows_one[r], r) and kept_up(rows_several[r], r)]
    chosen = (calm or usable or [None])[-1]
    if chosen is None:
        return None
    a, b = rows_one[chosen]["server_cpu_ms_per_msg"], rows_several[chosen]["server_cpu_ms_per_msg"]
    return chosen, float(a), float(b)


def load_constants(results: Path) -> dict[str, Constant]:
    """The defaults, overridden by whatever the benchmarks left in ``results``."""
    c = dict(DEFAULTS)
    for nodes in (3, 2):
        data = _read(results, f"mention_latency-postgres-{nodes}nodes.json")
        if data is None:
            continue
        pair = _cpu_pair(data["summary"], "band 1 node", f"band {nodes} nodes")
        if pair:
            rate, one, several = pair
            where = f"mention_latency-postgres-{nodes}nodes.json @{rate}/s"
            c["cpu_ms_per_msg"] = Constant(one, f"{where} (one node)")
            c["cluster_cpu_ratio"] = Constant(
                round(several / one, 3), f"{where} ({nodes} nodes / one)"
            )
        break
    sockets = _read(results, "idle_sockets.json")
    for row in (sockets or {}).get("rows", []):
        if row.get("target") == "band" and row.get("phase") == "paced":
            where = f"idle_sockets.json, {row['connected']} sockets"
            if row.get("kib_per_socket"):
                c["kib_per_socket"] = Constant(row["kib_per_socket"], where)
            if row.get("idle_cpu_pct_of_core") is not None and row.get("connected"):
                per_10k = row["idle_cpu_pct_of_core"] * 10_000 / row["connected"]
                c["idle_cpu_pct_per_10k"] = Constant(round(per_10k, 2), where)
            if row.get("server_cpu_ms_per_connect"):
                c["connect_cpu_ms"] = Constant(row["server_cpu_ms_per_connect"], where)
    costs = _read(results, "cluster_costs.json")
    if costs is not None:
        pg = costs["band"]["pg_per_msg"]
        c["pg_commits_per_msg"] = Constant(pg["xact_commit"], "cluster_costs.json")
        rows = pg["tup_inserted"] + pg["tup_updated"] + pg["tup_deleted"]
        c["pg_rows_per_msg"] = Constant(round(rows, 2), "cluster_costs.json")
        c["wal_bytes_per_msg"] = Constant(pg["wal"], "cluster_costs.json")
        publish = costs["band"].get("redis_per_msg", {}).get("publish")
        if publish:
            c["redis_publish_per_msg"] = Constant(publish, "cluster_costs.json")
        capacity = costs.get("capacity") or {}
        if capacity.get("pg_durable_commits_per_s"):
            c["pg_commits_capacity"] = Constant(
                capacity["pg_durable_commits_per_s"], "cluster_costs.json (pgbench here)"
            )
        if capacity.get("redis_publish_per_s"):
            c["redis_publish_capacity"] = Constant(
                capacity["redis_publish_per_s"], "cluster_costs.json (redis-benchmark here)"
            )
    return c


@dataclass
class Workload:
    agents: int
    rooms: int
    mentions_per_s: float
    people_online: int  # people's sockets (they also hold the room topics they watch)
    watchers_per_room: float  # other nodes' sockets on a busy room's topic, on average


@dataclass
class Plan:
    nodes: int
    feasible: bool  # False: presence mirroring alone fills the nodes
    nodes_for_cpu: int
    nodes_for_memory: int
    sockets_per_node: int
    node_cpu_share: float  # of one core, at the planned node count
    node_memory_mib: float
    presence_ms_per_s: float  # per node, when every other node's hash changes each second
    pg_commits_per_s: float
    pg_rows_per_s: float
    wal_mib_per_s: float
    pg_primaries: int
    redis_publish_per_s: float
    redis_deliveries_per_s: float
    redis_channels: int
    redis_instances: int
    heartbeats_per_s: float
    reconnect_storm_s: float  # every socket reconnecting at once, all nodes' CPU
    first_bottleneck: str
    pressure: dict[str, float]  # demand over one unit's planned capacity


def plan(
    w: Workload,
    c: dict[str, Constant],
    *,
    utilisation: float,
    node_mib: float,
    presence_lookup: bool = False,
) -> Plan:
    """Size every resource for the workload; name the shared unit that runs out first.

    ``presence_lookup``: presence asked of Redis when needed (one lookup per mention) instead
    of mirrored on every node (the design today)."""
    sockets = w.agents + w.people_online
    # Nodes for CPU: a fixed point, since the presence cost per node grows with the nodes.
    msg_cores = w.mentions_per_s * c["cpu_ms_per_msg"].value * c["cluster_cpu_ratio"].value / 1e3
    idle_cores = sockets / 10_000 * c["idle_cpu_pct_per_10k"].value / 100
    per_entry = 0.0 if presence_lookup else c["presence_us_per_entry"].value / 1e6
    nodes_cpu = max(1, math.ceil((msg_cores + idle_cores) / utilisation))
    feasible = True
    for _ in range(50):
        presence = per_entry * sockets * (nodes_cpu - 1) / nodes_cpu  # the others' entries
        if presence >= utilisation / 2:
            # Mirroring every other node's presence takes half a node or more by itself:
            # more nodes cannot help; presence has to be looked up, not mirrored.
            feasible = False
            break
        need = max(1, math.ceil((msg_cores + idle_cores) / (utilisation - presence)))
        if need == nodes_cpu:
            break
        nodes_cpu = need
    kib = c["kib_per_socket"].value + KERNEL_KIB_PER_SOCKET
    nodes_mem = max(1, math.ceil(sockets * kib / 1024 / (node_mib * utilisation)))
    nodes = max(nodes_cpu, nodes_mem)
    per_node = math.ceil(sockets / nodes)
    presence = per_entry * sockets * (nodes - 1) / nodes
    node_cpu = (msg_cores + idle_cores) / nodes + presence

    commits = w.mentions_per_s * c["pg_commits_per_msg"].value
    primaries = max(1, math.ceil(commits / (c["pg_commits_capacity"].value * utilisation)))
    publishes = w.mentions_per_s * c["redis_publish_per_msg"].value
    lookups = w.mentions_per_s if presence_lookup else 0.0
    # A publish reaches every node holding the topic: the agent's node, plus watchers' nodes.
    reach = min(nodes, 1 + w.watchers_per_room)
    deliveries = publishes * reach
    redis_load = publishes + deliveries + lookups
    redis_instances = max(
        1, math.ceil(redis_load / (c["redis_publish_capacity"].value * utilisation))
    )
    channels = w.agents * OWN_TOPICS + min(w.rooms, sockets * 10)
    # Nodes scale out; what does not: one PostgreSQL primary, one Redis, and the presence
    # mirror each node keeps (it grows with the cluster, not the node).
    pressure = {
        "PostgreSQL commits (one primary)": commits
        / (c["pg_commits_capacity"].value * utilisation),
        "Redis publish+fan-out (one instance)": redis_load
        / (c["redis_publish_capacity"].value * utilisation),
        "presence mirror (per node, of half a node)": presence / (utilisation / 2),
    }
    first = max(pressure, key=lambda k: pressure[k])
    if not feasible:
        first = "presence mirror (per node): more nodes cannot help"
    storm = sockets * c["connect_cpu_ms"].value / 1e3 / max(1, nodes)
    return Plan(
        nodes=nodes,
        feasible=feasible,
        nodes_for_cpu=nodes_cpu,
        nodes_for_memory=nodes_mem,
        sockets_per_node=per_node,
        node_cpu_share=round(node_cpu, 3),
        node_memory_mib=round(per_node * kib / 1024, 1),
        presence_ms_per_s=round(presence * 1e3, 1),
        pg_commits_per_s=round(commits),
        pg_rows_per_s=round(w.mentions_per_s * c["pg_rows_per_msg"].value),
        wal_mib_per_s=round(w.mentions_per_s * c["wal_bytes_per_msg"].value / 2**20, 1),
        pg_primaries=primaries,
        redis_publish_per_s=round(publishes),
        redis_deliveries_per_s=round(deliveries),
        redis_channels=int(channels),
        redis_instances=redis_instances,
        heartbeats_per_s=round(sockets / HEARTBEAT_SECONDS),
        reconnect_storm_s=round(storm, 1),
        first_bottleneck=first,
        pressure={k: round(v, 2) for k, v in pressure.items()},
    )


ROWS = [
    ("nodes (one core each)", "nodes"),
    ("  for CPU / for memory", None),
    ("sockets per node", "sockets_per_node"),
    ("CPU per node (cores)", "node_cpu_share"),
    ("memory per node (MiB)", "node_memory_mib"),
    ("presence reload ms/s/node", "presence_ms_per_s"),
    ("heartbeats/s (cluster)", "heartbeats_per_s"),
    ("PostgreSQL commits/s", "pg_commits_per_s"),
    ("PostgreSQL rows/s", "pg_rows_per_s"),
    ("WAL MiB/s", "wal_mib_per_s"),
    ("PostgreSQL primaries", "pg_primaries"),
    ("Redis PUBLISH/s", "redis_publish_per_s"),
    ("Redis deliveries/s", "redis_deliveries_per_s"),
    ("Redis channels", "redis_channels"),
    ("Redis instances", "redis_instances"),
    ("reconnect storm (s)", "reconnect_storm_s"),
    ("feasible as designed", "feasible"),
    ("first shared bottleneck", "first_bottleneck"),
]


def render(workloads: list[tuple[str, Workload, Plan]]) -> str:
    head = f"{'':>28} | " + " | ".join(f"{name:>36}" for name, _, _ in workloads)
    lines = [head, "-" * len(head)]
    for title, key in ROWS:
        cells = []
        for _, _, p in workloads:
            if key is None:
                value: object = f"{p.nodes_for_cpu} / {p.nodes_for_memory}"
            else:
                value = getattr(p, key)
                if isinstance(value, float | int) and not isinstance(value, bool):
                    value = f"{value:,}"
            cells.append(f"{value!s:>36}")
        lines.append(f"{title:>28} | " + " | ".join(cells))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--agents", type=int, default=100_000, help="connected agents")
    parser.add_argument("--rooms", type=int, default=1_000_000, help="rooms")
    parser.add_argument("--mentions", type=float, default=20_000, help="mentions a second")
    parser.add_argument("--people", type=int, default=10_000, help="people's sockets online")
    parser.add_argument(
        "--watchers", type=float, default=1.0, help="other nodes watching a busy room's topic"
    )
    parser.add_argument("--scale", default="1,10", help="comma-separated workload multiples")
    parser.add_argument("--utilisation", type=float, default=0.6, help="share of capacity used")
    parser.add_argument("--node-mib", type=float, default=4096, help="memory budget per node")
    parser.add_argument("--results", type=Path, default=RESULTS, help="benchmarks' JSON")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override a constant (what-if: e.g. pg_commits_capacity=20000)",
    )
    parser.add_argument(
        "--presence-lookup",
        action="store_true",
        help="presence looked up in Redis per mention instead of mirrored on every node",
    )
    parser.add_argument("--out", type=Path, help="JSON file (default: RESULTS/scaling_sim.json)")
    args = parser.parse_args(argv)
    constants = load_constants(args.results)
    for item in args.set:
        name, _, value = item.partition("=")
        if name not in constants:
            parser.error(f"--set {item}: no constant {name!r} ({', '.join(constants)})")
        constants[name] = Constant(float(value), "--set")
    print("constants:")
    for name, const in constants.items():
        print(f"  {name:>24} = {const.value:<10g} {const.source}")
    runs: list[tuple[str, Workload, Plan]] = []
    for factor in (float(s) for s in args.scale.split(",")):
        w = Workload(
            agents=int(args.agents * factor),
            rooms=int(args.rooms * factor),
            mentions_per_s=args.mentions * factor,
            people_online=int(args.people * factor),
            watchers_per_room=args.watchers,
        )
        name = f"x{factor:g}: {w.agents:,} agents, {w.mentions_per_s:,.0f}/s"
        sized = plan(
            w,
            constants,
            utilisation=args.utilisation,
            node_mib=args.node_mib,
            presence_lookup=args.presence_lookup,
        )
        runs.append((name, w, sized))
    print()
    print(render(runs))
    for name, _, p in runs:
        print(f"{name}: shared units' demand over one unit's planned capacity {p.pressure}")
    out = {
        "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "constants": {k: asdict(v) for k, v in constants.items()},
        "runs": [{"name": n, "workload": asdict(w), "plan": asdict(p)} for n, w, p in runs],
    }
    path = args.out or args.results / "scaling_sim.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=2))
    print(f"wrote {path}")
    return out


if __name__ == "__main__":
    main()
