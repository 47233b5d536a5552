"""CPU of one presence reload on a node: other nodes' hashes as Redis returns them, decoded
and counted into the node's mirror (``ClusterPresence``'s step after its HGETALLs).

Each other node holds ``--fields`` principals; between two reloads ``--changed`` more connect
on each. Prints the CPU milliseconds of each reload (no Redis: the hashes are built here).

    .venv/bin/python -m bench.presence_reload [--nodes 2] [--fields 17000] [--changed 100]
"""

from __future__ import annotations

import argparse
import time
import uuid

from band_server.realtime.hub import Hub
from band_server.realtime.redis_presence import ClusterPresence, _node_hash, _NodeView


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--nodes", type=int, default=2, help="other nodes")
    parser.add_argument("--fields", type=int, default=17_000, help="principals on each")
    parser.add_argument("--changed", type=int, default=100, help="new on each per reload")
    parser.add_argument("--reloads", type=int, default=5)
    args = parser.parse_args()
    raws = {
        f"n{i}": {uuid.uuid4().hex.encode(): b"1" for _ in range(args.fields)}
        for i in range(args.nodes)
    }
    presence = ClusterPresence(Hub(), "redis://127.0.0.1:1/0")

    def reload() -> float:
        started = time.process_time()
        for node, raw in raws.items():
            view = presence._others.setdefault(node, _NodeView())
            view.version, held = _node_hash(raw)
            presence._hold(view, held)
        return 1000 * (time.process_time() - started)

    reload()
    spent = []
    for _ in range(args.reloads):
        for raw in raws.values():
            raw.update({uuid.uuid4().hex.encode(): b"1" for _ in range(args.changed)})
        spent.append(round(reload(), 2))
    print(f"{args.nodes} nodes x ~{args.fields} principals: reload CPU ms {spent}")


if __name__ == "__main__":
    main()
