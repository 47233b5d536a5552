"""A deployment in real processes: `band serve` nodes on PostgreSQL and Redis, and agents.

- PostgreSQL and Redis are the throwaway servers of `tests/scale/real_services.py`.
- Each node is `band serve` in its own process (`NodeProcess`, the compat harness's
  `ServerProcess` with the CLI as its command and the database and Redis in its environment).
- Each agent is a process running `tests/compat/agents/echo_agent.py`: with the compat venv's
  interpreter it runs on the official band-sdk 6.0.1, with the project's on our SDK (the same
  source runs on both). It reaches the platform through its own `Balancer`, whose preference
  order names its home node first: the agent lives on its home node until that node is gone,
  then on the next live one.
- The world (people, agents, rooms) is written through our services before any node starts.
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from compat.compat_harness import (
    AgentCreds,
    AgentProcess,
    Person,
    Seeder,
    ServerProcess,
    start_agent,
    tail,
    wait_for,
)
from scale.real_services import PostgresServer, RedisServer

from .proxy import Balancer

ECHO_AGENT = "echo_agent.py"
# Turns here take well under a second (a few on a loaded machine) and both SDKs report
# activity while one runs, so an attempt silent this long is dead: a dropped head costs a
# band-sdk room this long, not the 300 s default (docs/decisions.md, "Faults (issue 12)").
DELIVERY_LEASE = 15.0
PROJECT_PYTHON = Path(sys.executable)
BAND_CLI = PROJECT_PYTHON.parent / "band"


@dataclass
class NodeProcess(ServerProcess):
    """One `band serve` process; the shared database and Redis come from `env` (none: SQLite
    in its data folder); `options` are more of `band serve`'s (``--log-level debug``)."""

    name: str = "node"
    options: list[str] = field(default_factory=list)

    def _argv(self) -> list[str]:
        serve = ["serve", "--host", "127.0.0.1", "--port", str(self.port)]
        return [str(BAND_CLI), *serve, "--data", str(self.data_dir), *self.options]

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


@dataclass(frozen=True)
class World:
    """Two people and the agents; each scenario makes its own rooms (`Cluster.new_rooms`)."""

    people: tuple[Person, ...]
    agents: tuple[AgentCreds, ...]

    def poster(self, room_index: int) -> Person:
        return self.people[room_index % len(self.people)]


async def seed_world(database_url: str, agent_names: list[str]) -> World:
    """Migrate the database and write the people and agents, before any node starts."""
    from band_server.store.db import Database
    from band_server.store.migrate import upgrade
    from band_server.store.models import Contact

    db = Database(database_url)
    try:
        await upgrade(db.engine)
        seeder = Seeder(db)
        alice = await seeder.person("alice", "Alice")
        bob = await seeder.person("bob", "Bob")
        agents = [await seeder.agent(alice, name) for name in agent_names]
        async with db.write() as session:  # contacts, so Alice may add Bob to her rooms
            for owner, other in ((alice, bob), (bob, alice)):
                edge = Contact(owner_id=owner.id, owner_type="User", contact_id=other.id)
                edge.contact_type = "User"
                session.add(edge)
        return World((alice, bob), tuple(agents))
    finally:
        await db.dispose()


@dataclass
class AgentSpec:
    """One agent of the world: which SDK runs it and which node is its home."""

    creds: AgentCreds
    sdk: str  # "ours" or "official"
    home: int
    turn_seconds: float = 0.0
    failover: bool = True  # False: its balancer knows the home node only (down while it is)


@dataclass
class Cluster:
    root: Path
    pg: PostgresServer
    redis: RedisServer
    database_url: str
    world: World
    compat_python: Path | None
    lease: float | None = DELIVERY_LEASE  # None: the platform's default (300 s)
    nodes: list[NodeProcess] = field(default_factory=list)
    balancers: dict[str, Balancer] = field(default_factory=dict)
    processes: list[AgentProcess] = field(default_factory=list)  # every run, restarts too
    running: dict[str, AgentProcess] = field(default_factory=dict)
    specs: dict[str, AgentSpec] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)  # set-up phases, seconds

    # -- nodes ---------------------------------------------------------------------------

    def _node(self) -> NodeProcess:
        index = len(self.nodes)
        env = {"BAND_DATABASE_URL": self.database_url, "BAND_REDIS_URL": self.redis.url}
        if self.lease is not None:
            env["BAND_DELIVERY_LEASE"] = str(self.lease)
        node = NodeProcess(
            data_dir=self.root / f"node{index}" / "data",
            log_dir=self.root / f"node{index}" / "logs",
            env=env,
            name=f"node{index}",
        )
        self.nodes.append(node)
        for name, balancer in self.balancers.items():
            if self.specs[name].failover:
                balancer.backends.append(node.port)  # a fallback for every agent
        return node

    async def start_nodes(self, count: int) -> list[NodeProcess]:
        """Start ``count`` more nodes at once (the database is migrated already)."""
        started = [self._node() for _ in range(count)]
        await asyncio.gather(*(node.start(within=90) for node in started))
        return started

    def live_nodes(self) -> list[NodeProcess]:
        return [node for node in self.nodes if node.alive]

    def node_urls(self) -> list[str]:
        return [node.url for node in self.live_nodes()]

    async def new_rooms(self, count: int) -> tuple[str, ...]:
        """``count`` rooms made by Alice over REST, with Bob and every agent in them (the
        agents hear ``room_added`` and join, as in any deployment)."""
        alice, bob = self.world.people[0], self.world.people[1]
        members = [bob.id, *(a.id for a in self.world.agents)]
        headers = {"X-API-Key": alice.key}
        url = self.node_urls()[0]
        made: list[str] = []
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=30) as http:
            for index in range(count):
                r = await http.post("/api/v1/me/chats", json={"chat": {"title": f"Faults {index}"}})
                assert r.status_code == 201, r.text
                room_id = str(r.json()["data"]["id"])
                for member in members:
                    body = {"participant": {"participant_id": member, "role": "member"}}
                    added = await http.post(f"/api/v1/me/chats/{room_id}/participants", json=body)
                    assert added.status_code in (200, 201), added.text
                made.append(room_id)
        return tuple(made)

    # -- agents --------------------------------------------------------------------------

    def _python(self, sdk: str) -> Path:
        if sdk == "ours":
            return PROJECT_PYTHON
        assert self.compat_python is not None, "the official SDK needs the compat venv"
        return self.compat_python

    async def start_agent(self, spec: AgentSpec, *, ready_within: float = 60) -> AgentProcess:
        """Run ``spec``'s agent (again) behind its balancer and wait until it is connected."""
        name = spec.creds.name.lower()
        self.specs[name] = spec
        balancer = self.balancers.get(name)
        if balancer is None:
            ports = [self.nodes[spec.home].port]
            if spec.failover:
                ports += [n.port for i, n in enumerate(self.nodes) if i != spec.home]
            balancer = Balancer(name, ports)
            await balancer.start()
            self.balancers[name] = balancer
        run = sum(1 for p in self.processes if p.name.startswith(f"{name}."))
        proc = start_agent(
            self._python(spec.sdk),
            ECHO_AGENT,
            name=f"{name}.{run}",
            server=balancer,
            agent_id=spec.creds.id,
            api_key=spec.creds.key,
            workdir=self.root / "agents",
            extra_env={"COMPAT_TURN_SECONDS": str(spec.turn_seconds)},
        )
        self.processes.append(proc)
        self.running[name] = proc
        await proc.wait_event("ready", within=ready_within)
        return proc

    async def restart_agent(self, name: str, *, turn_seconds: float) -> AgentProcess:
        """Stop ``name``'s process (if it still runs) and start it again with slower or
        faster turns."""
        self.running[name].stop()
        spec = self.specs[name]
        spec.turn_seconds = turn_seconds
        return await self.start_agent(spec)

    async def restore(self) -> None:
        """Back to the starting line: Redis and every node up, every agent running and its
        WebSocket on its home node (a failed-over agent is cut loose, so it reconnects home)."""
        if self.redis.process is None:
            self.redis.start()
        dead = [node for node in self.nodes if not node.alive]
        await asyncio.gather(*(node.start(within=90) for node in dead))
        await wait_healthy(self.nodes)
        for name, spec in self.specs.items():
            if self.running[name].proc.poll() is not None:
                await self.start_agent(spec)
        for name, balancer in self.balancers.items():
            balancer.cut_away_from(self.nodes[self.specs[name].home].port)

        async def home() -> bool:
            return all(
                b.on_backend(self.nodes[self.specs[name].home].port, websocket=True) > 0
                for name, b in self.balancers.items()
            )

        await wait_for(home, within=60, what="every agent's socket on its home node")

    def turns(self) -> list[dict[str, object]]:
        """Every turn any agent process began (its `turn` observations), all runs."""
        return [e for p in self.processes for e in p.events("turn")]

    # -- the end -------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Agents first, then nodes; each group stopped at once (each waits out its shutdown)."""
        await asyncio.gather(*(asyncio.to_thread(proc.stop) for proc in self.processes))
        await asyncio.gather(*(asyncio.to_thread(node.stop) for node in self.nodes))
        for balancer in self.balancers.values():
            await balancer.stop()

    def diagnostics(self) -> str:
        """Tails of every agent's and node's log, and where the whole logs are (the test's
        tmp_path: ``scripts/suite.py`` keeps it when a group fails; pytest keeps the last
        three runs' by default)."""
        where = f"[logs] agents: {self.root / 'agents'}; nodes: {self.root}/node*/logs"
        parts = [where, *(p.diagnostics() for p in self.processes)]
        parts += [f"[{n.name}]\n{tail(n.log_path, 40)}" for n in self.nodes]
        return "\n".join(parts)


async def node_health(node: NodeProcess) -> int | None:
    """The status code of the node's ``/health`` (None when it does not answer)."""
    try:
        async with httpx.AsyncClient(timeout=5) as client:
            return (await client.get(f"{node.url}/health")).status_code
    except httpx.HTTPError:
        return None


async def wait_healthy(nodes: list[NodeProcess], within: float = 60) -> None:
    async def all_ok() -> bool:
        codes = await asyncio.gather(*(node_health(n) for n in nodes))
        return all(code == 200 for code in codes)

    await wait_for(all_ok, within=within, what="every node's /health to answer 200")
