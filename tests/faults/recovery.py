"""Issue 27's figures: per agent, what a burst left in the rooms, and how soon rooms answered
again once the agent was back.

- **acknowledged / lost / duplicated**: the posts mentioning the agent that were answered 2xx;
  of those, how many are missing from their room; and mentions that are in a room more than
  once (the same token in two messages: a retried post written twice);
- **unanswered / answered twice / failed**: mentions with no reply (in brackets: of those, the
  ones band-sdk gave up for the life of its process, ``given_up``); with more than one reply;
  whose delivery is ``failed`` (answered or not: an SDK that gave up its ``/processed`` leaves
  an answered message open, and the platform records it failed once the agent goes past it);
- **reconnect**: seconds from the last fault (node B's kill) to the agent's first WebSocket on
  B again, seen at its balancer;
- **room resumed**: the worst room, of those with a mention of the agent still unanswered at
  the reconnect: seconds from the reconnect to the agent's first reply in that room after it;
- **last answer**: seconds from the last fault to the agent's last reply.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from .checker import RESULTS_DIR, TOKEN
from .load import BurstResult
from .proxy import Balancer


def _at(message: dict[str, Any]) -> float:
    """A message's ``inserted_at`` as a Unix time (the nodes run on this machine's clock)."""
    return datetime.fromisoformat(str(message["inserted_at"]).replace("Z", "+00:00")).timestamp()


@dataclass
class SocketWatch:
    """When an agent's WebSocket through ``balancer`` reached ``port``, polled every 50 ms."""

    balancer: Balancer
    port: int
    opened: list[float] = field(default_factory=list)  # Unix times a socket appeared
    _task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    def first_after(self, moment: float) -> float | None:
        return next((t for t in self.opened if t >= moment), None)

    async def _run(self) -> None:
        up = self.balancer.on_backend(self.port, websocket=True) > 0
        while True:
            await asyncio.sleep(0.05)
            now_up = self.balancer.on_backend(self.port, websocket=True) > 0
            if now_up and not up:
                self.opened.append(time.time())
            up = now_up


@dataclass
class AgentRecovery:
    """One agent's row of the table (see the module's docstring)."""

    agent: str
    sdk: str
    acknowledged: int = 0
    lost: int = 0
    duplicated: int = 0
    unanswered: int = 0
    answered_twice: int = 0
    failed: int = 0
    reconnect_s: float | None = None
    room_resumed_s: float | None = None  # worst room
    last_answer_s: float | None = None
    rooms_waiting: int = 0  # rooms with a mention unanswered at the reconnect
    given_up: int = 0  # of the unanswered: given up by the SDK itself (set by the caller)
    unanswered_ids: list[str] = field(default_factory=list)  # message ids

    def line(self) -> str:
        def s(value: float | None) -> str:
            return "-" if value is None else f"{value:.1f}"

        return (
            f"| {self.sdk} ({self.agent}) | {self.acknowledged} | {self.lost} | "
            f"{self.duplicated} | {self.unanswered} ({self.given_up}) | {self.answered_twice} | "
            f"{self.failed} | "
            f"{s(self.reconnect_s)} | {s(self.room_resumed_s)} ({self.rooms_waiting} rooms) | "
            f"{s(self.last_answer_s)} |"
        )


TABLE_HEAD = (
    "| SDK (agent) | acknowledged | lost | duplicated | unanswered (SDK gave up) "
    "| answered twice | failed "
    "| reconnect s | room resumed s | last answer s |\n"
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
)


def agent_recovery(
    agent: str,
    sdk: str,
    agent_id: str,
    burst: BurstResult,
    histories: dict[str, list[dict[str, Any]]],
    last_fault: float,
    reconnect: float | None,
) -> AgentRecovery:
    """The agent's row, from the burst's acknowledgements and the rooms' timelines."""
    row = AgentRecovery(agent, sdk)
    if reconnect is not None:
        row.reconnect_s = reconnect - last_fault
    acks = [a for a in burst.acks if a.agent_id == agent_id]
    row.acknowledged = len(acks)
    in_rooms = {m["id"] for messages in histories.values() for m in messages}
    row.lost = sum(1 for a in acks if a.message_id not in in_rooms)
    worst: float | None = None
    last: float | None = None
    for messages in histories.values():
        mentions: dict[str, dict[str, Any]] = {}
        posted: Counter[str] = Counter()
        replies: dict[str, list[float]] = {}
        for m in messages:
            tokens = TOKEN.findall(str(m.get("content") or ""))
            if m.get("message_type") != "text" or not tokens:
                continue
            if m.get("sender_id") == agent_id:
                replies.setdefault(tokens[-1], []).append(_at(m))
            elif m.get("sender_type") != "Agent" and _mentions(m, agent_id):
                posted[tokens[-1]] += 1
                mentions.setdefault(tokens[-1], m)
        row.duplicated += sum(1 for n in posted.values() if n > 1)
        for token, m in mentions.items():
            status = ((m.get("metadata") or {}).get("delivery_status") or {}).get(agent_id) or {}
            answers = replies.get(token, [])
            row.answered_twice += len(answers) > 1
            row.failed += status.get("status") == "failed"
            if not answers:
                row.unanswered_ids.append(str(m["id"]))
        times = sorted(t for answers in replies.values() for t in answers)
        if times:
            last = max(last or times[-1], times[-1])
        if reconnect is None:
            continue
        waiting = any(
            _at(m) < reconnect and not [t for t in replies.get(token, []) if t < reconnect]
            for token, m in mentions.items()
        )
        if waiting:
            row.rooms_waiting += 1
            after = [t for t in times if t >= reconnect]
            resumed = after[0] - reconnect if after else float("inf")
            worst = resumed if worst is None else max(worst, resumed)
    row.unanswered = len(row.unanswered_ids)
    row.room_resumed_s = worst
    row.last_answer_s = None if last is None else last - last_fault
    return row


GAVE_UP = re.compile(r"Message (\S+) (?:exceeded max retries|marked as permanently failed)")


def given_up(log: Path) -> set[str]:
    """The messages band-sdk's log says it gave up for the life of its process."""
    return set(GAVE_UP.findall(log.read_text(encoding="utf-8", errors="replace")))


def _mentions(message: dict[str, Any], agent_id: str) -> bool:
    named = (message.get("metadata") or {}).get("mentions") or []
    return any(isinstance(x, dict) and x.get("id") == agent_id for x in named)


@dataclass
class RecoveryReport:
    scenario: str
    rows: list[AgentRecovery]
    faults: dict[str, float]  # fault -> seconds after the burst began
    notes: dict[str, Any] = field(default_factory=dict)

    def table(self) -> str:
        return "\n".join([TABLE_HEAD, *(row.line() for row in self.rows)])

    def write(self, directory: Path = RESULTS_DIR) -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"faults-{self.scenario}.json"
        path.write_text(json.dumps(asdict(self), indent=2) + "\n", encoding="utf-8")
        return path
