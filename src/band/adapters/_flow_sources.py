"""Where ``CrewAIFlowAdapter`` reads its runs' ``task`` events from (a state source).

:class:`RestCrewAIFlowStateSource` (the default) pages through the room's context over REST
(``tools.fetch_room_context``), keeps the task events under the adapter's namespace, and
caches them per room (least recently used rooms evicted): a later load scans the pages again
but keeps only events it has not seen. :class:`HistoryCrewAIFlowStateSource` reads the
turn's history instead, which the runtime fills on a room's first turn only: for tests and
deployments that never need more, so it must be acknowledged.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar, runtime_checkable

from band.converters.crewai_flow import CrewAIFlowSessionState, event_order
from band.converters.helpers import task_metadata
from band.core.exceptions import BandConfigError, BandToolError
from band.core.protocols import AgentToolsProtocol

Result = TypeVar("Result")


def room_context(tools: AgentToolsProtocol) -> Any:
    """The tools' ``fetch_room_context`` (the room's context over REST, page by page)."""
    fetch = getattr(tools, "fetch_room_context", None)
    if fetch is None:
        raise BandToolError("these room tools cannot read the room's context")
    return fetch


async def with_retries(
    call: Callable[[], Awaitable[Result]],
    retry_attempts: int,
    failure: Callable[[int, Exception], str],
) -> Result:
    """``call()``, tried again up to ``retry_attempts`` times (0.1 s, 0.2 s ... apart); then
    ``BandToolError(failure(tries, last_error))``."""
    for attempt in range(retry_attempts + 1):
        try:
            return await call()
        except Exception as exc:
            if attempt == retry_attempts:
                raise BandToolError(failure(attempt + 1, exc)) from exc
            await asyncio.sleep(0.1 * (attempt + 1))
    raise AssertionError("unreachable")  # pragma: no cover


__all__ = [
    "CrewAIFlowStateSource",
    "HistoryCrewAIFlowStateSource",
    "RestCrewAIFlowStateSource",
    "RoomCacheEntry",
    "room_context",
    "with_retries",
]

logger = logging.getLogger("band.adapters.crewai_flow")
_PAGE_SIZE = 100
_CACHE_SIZE = 32


@runtime_checkable
class CrewAIFlowStateSource(Protocol):
    """Loads a room's task events under ``metadata_namespace``, oldest first."""

    async def load_task_events(
        self,
        *,
        room_id: str,
        metadata_namespace: str,
        tools: AgentToolsProtocol,
        history: Any,
    ) -> list[dict[str, Any]]: ...


def _is_record(item: Any, namespace: str) -> bool:
    metadata = task_metadata(item)
    return metadata is not None and metadata.get(namespace) is not None


def _identity(event: dict[str, Any]) -> str:
    """A task event's identity: its id, else what it says and when."""
    event_id = event.get("id") or event.get("message_id")
    if event_id:
        return f"id:{event_id}"
    return f"anon:{event.get('inserted_at')}:{event.get('content')}:{event.get('metadata')!r}"


class RoomCacheEntry:
    """One room's cached task events, the newest one's time, and the ids seen."""

    __slots__ = ("events", "latest_inserted_at", "seen_event_ids")

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.latest_inserted_at: datetime | None = None
        self.seen_event_ids: set[str] = set()


class RestCrewAIFlowStateSource:
    """The room's task events over REST, cached per ``(room, namespace)``.

    ``page_size`` 1 to 100 (the platform's limit); ``cache_size`` rooms kept;
    ``retry_attempts`` retries of a failed page before ``BandToolError``.
    """

    def __init__(
        self, *, page_size: int = _PAGE_SIZE, cache_size: int = _CACHE_SIZE, retry_attempts: int = 1
    ) -> None:
        if not 1 <= page_size <= 100:
            raise BandConfigError("page_size must be between 1 and 100 (the platform's limit)")
        if cache_size < 1:
            raise BandConfigError("cache_size must be at least 1")
        self.page_size = page_size
        self.cache_size = cache_size
        self.retry_attempts = max(0, retry_attempts)
        self._rooms: OrderedDict[tuple[str, str], RoomCacheEntry] = OrderedDict()

    async def load_task_events(
        self,
        *,
        room_id: str,
        metadata_namespace: str,
        tools: AgentToolsProtocol,
        history: Any,
    ) -> list[dict[str, Any]]:
        key = (room_id, metadata_namespace)
        entry = self._rooms.get(key)
        if entry is None:
            entry = self._rooms[key] = RoomCacheEntry()
            while len(self._rooms) > self.cache_size:
                self._rooms.popitem(last=False)
        else:
            self._rooms.move_to_end(key)
        fresh = [
            item
            for item in await self._scan(room_id, tools)
            if _is_record(item, metadata_namespace) and _identity(item) not in entry.seen_event_ids
        ]
        if fresh:
            entry.events = sorted(entry.events + fresh, key=event_order)
            entry.seen_event_ids.update(_identity(item) for item in fresh)
            entry.latest_inserted_at = event_order(entry.events[-1])[0]
        return list(entry.events)

    def clear_room(self, room_id: str, metadata_namespace: str | None = None) -> None:
        """Forget a room's cache (every namespace when None)."""
        for key in [k for k in self._rooms if k[0] == room_id]:
            if metadata_namespace is None or key[1] == metadata_namespace:
                del self._rooms[key]

    async def _scan(self, room_id: str, tools: AgentToolsProtocol) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        page = 1
        while True:
            data = (await self._page(room_id, page, tools)).get("data") or []
            items.extend(item for item in data if isinstance(item, dict))
            if len(data) < self.page_size:
                return items
            page += 1

    async def _page(self, room_id: str, page: int, tools: AgentToolsProtocol) -> dict[str, Any]:
        async def load() -> dict[str, Any]:
            result: dict[str, Any] = await room_context(tools)(
                room_id=room_id, page=page, page_size=self.page_size
            )
            return result

        return await with_retries(
            load,
            self.retry_attempts,
            lambda _, exc: f"could not load the room context of {room_id}: {exc}",
        )


class HistoryCrewAIFlowStateSource:
    """The task events of the turn's history (filled on a room's first turn only)."""

    def __init__(self, *, acknowledge_test_only: bool = False) -> None:
        if acknowledge_test_only is not True:
            raise BandConfigError(
                "HistoryCrewAIFlowStateSource only sees a room's history on its first turn: "
                "pass acknowledge_test_only=True to use it (tests, bootstrap-only agents); "
                "otherwise use RestCrewAIFlowStateSource"
            )
        self._warned = False

    async def load_task_events(
        self,
        *,
        room_id: str,
        metadata_namespace: str,
        tools: AgentToolsProtocol,
        history: Any,
    ) -> list[dict[str, Any]]:
        if isinstance(history, CrewAIFlowSessionState):
            now = datetime.now(UTC).isoformat()
            return [
                {
                    "id": f"history:{run_id}",
                    "message_type": "task",
                    "inserted_at": now,
                    "metadata": {metadata_namespace: run.model_dump(mode="json")},
                }
                for run_id, run in history.runs.items()
            ]
        raw = history if isinstance(history, list) else _listed(history)
        if not raw and not self._warned:
            self._warned = True
            logger.warning(
                "HistoryCrewAIFlowStateSource got no history in room %s: runs are not "
                "restored (use RestCrewAIFlowStateSource)",
                room_id,
            )
        return [item for item in raw if _is_record(item, metadata_namespace)]


def _listed(history: Any) -> list[Any]:
    for name in ("raw", "messages", "items"):
        value = getattr(history, name, None)
        if isinstance(value, list):
            return value
    return []
