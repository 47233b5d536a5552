"""What an agent adds to ACP, per agent: its extension methods (``_<name>``) and
notifications, handled by a profile the collecting client calls.

:class:`NoopACPClientProfile` answers every method with ``{}`` and ignores notifications.
:class:`CursorACPClientProfile` handles Cursor's: ``cursor/ask_question`` and
``cursor/create_plan`` go to ``resolve_method`` (without one, each question gets its first
option and a plan is accepted); ``cursor/update_todos`` (replacing the checklist, or
merging into it with ``merge: true``), ``cursor/task`` and ``cursor/generate_image`` become
``plan`` chunks for the room.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from band.integrations.acp.types import ChunkType, CollectedChunk

__all__ = [
    "CURSOR_ASK_QUESTION_METHOD",
    "CURSOR_CREATE_PLAN_METHOD",
    "CURSOR_PROFILE_NAME",
    "ACPClientProfile",
    "CursorACPClientProfile",
    "CursorMethodResolver",
    "CursorQuestion",
    "NoopACPClientProfile",
    "parse_cursor_questions",
    "resolve_acp_client_profile",
]

logger = logging.getLogger(__name__)

CursorMethodResolver = Callable[[str, dict[str, object]], Awaitable[dict[str, object]]]
CURSOR_ASK_QUESTION_METHOD = "cursor/ask_question"
CURSOR_CREATE_PLAN_METHOD = "cursor/create_plan"
CURSOR_UPDATE_TODOS_METHOD = "cursor/update_todos"
CURSOR_TASK_METHOD = "cursor/task"
CURSOR_GENERATE_IMAGE_METHOD = "cursor/generate_image"
CURSOR_PROFILE_NAME = "cursor"
_TODO_MARKS = {"completed": "x", "in_progress": "~", "cancelled": "-", "pending": " "}


@dataclass(frozen=True)
class CursorQuestion:
    """One question of ``cursor/ask_question``; ``options`` are ``(option id, label)``."""

    id: str
    prompt: str
    options: tuple[tuple[str, str], ...]
    allow_multiple: bool


def _question(raw: Mapping[str, object]) -> CursorQuestion:
    options: list[tuple[str, str]] = []
    listed = raw.get("options")
    for option in listed if isinstance(listed, list) else ():
        if isinstance(option, Mapping) and isinstance(option_id := option.get("id"), str):
            label = option.get("label")
            options.append((option_id, label if isinstance(label, str) else option_id))
    question_id = str(raw["id"])
    prompt = raw.get("prompt")
    return CursorQuestion(
        id=question_id,
        prompt=prompt if isinstance(prompt, str) and prompt else question_id,
        options=tuple(options),
        allow_multiple=raw.get("allowMultiple") is True,
    )


def parse_cursor_questions(params: Mapping[str, object]) -> tuple[CursorQuestion, ...]:
    """The questions of a ``cursor/ask_question`` payload, in order.

    A question without an id is skipped; one without usable options keeps its place (with
    no options), so a caller can tell it is unanswerable; a repeated id keeps the first.
    """
    listed = params.get("questions")
    if not isinstance(listed, list):
        return ()
    found: dict[str, CursorQuestion] = {}
    for raw in listed:
        if not isinstance(raw, Mapping) or not isinstance(raw.get("id"), str):
            continue
        if raw["id"] in found:
            logger.warning("Cursor repeated question id %s; the first is kept", raw["id"])
            continue
        found[str(raw["id"])] = _question(raw)
    return tuple(found.values())


class ACPClientProfile(Protocol):
    """An agent's ACP extensions, as the collecting client calls them."""

    @property
    def extension_session_id(self) -> str | None:
        """The session a notification without a session id belongs to, if known."""
        ...

    def forget_session(self, session_id: str) -> None:
        """Drop what the profile keeps for a session that was closed."""
        ...

    async def ext_method(self, method: str, params: dict[str, object]) -> dict[str, object]: ...

    async def ext_notification(
        self, method: str, params: dict[str, object]
    ) -> list[CollectedChunk]: ...


class NoopACPClientProfile:
    """No extensions: every method answers ``{}``, every notification is ignored."""

    @property
    def extension_session_id(self) -> None:
        return None

    def forget_session(self, session_id: str) -> None:
        return None

    async def ext_method(self, method: str, params: dict[str, object]) -> dict[str, object]:
        return {}

    async def ext_notification(
        self, method: str, params: dict[str, object]
    ) -> list[CollectedChunk]:
        return []


def _plan(text: str, **metadata: object) -> list[CollectedChunk]:
    return [CollectedChunk(ChunkType.PLAN, text, dict(metadata))]


class CursorACPClientProfile:
    """Cursor's extensions. ``active_session`` names the session of notifications that
    carry none (without it they are dropped)."""

    def __init__(
        self,
        resolve_method: CursorMethodResolver | None = None,
        *,
        active_session: Callable[[], str | None] | None = None,
    ) -> None:
        self._resolve_method = resolve_method
        self._active_session = active_session
        self._todos: dict[str, dict[str, tuple[str, str]]] = {}

    @property
    def extension_session_id(self) -> str | None:
        return self._active_session() if self._active_session is not None else None

    def forget_session(self, session_id: str) -> None:
        self._todos.pop(session_id, None)

    async def ext_method(self, method: str, params: dict[str, object]) -> dict[str, object]:
        if method not in (CURSOR_ASK_QUESTION_METHOD, CURSOR_CREATE_PLAN_METHOD):
            return {}
        if self._resolve_method is not None:
            return await self._resolve_method(method, params)
        if method == CURSOR_CREATE_PLAN_METHOD:  # nobody to ask: accepted unattended
            return {"outcome": {"outcome": "accepted"}}
        answers = [
            {"questionId": q.id, "selectedOptionIds": [q.options[0][0]]}
            for q in parse_cursor_questions(params)
            if q.options
        ]
        if not answers:
            return {"outcome": {"outcome": "cancelled"}}
        return {"outcome": {"outcome": "answered", "answers": answers}}

    async def ext_notification(
        self, method: str, params: dict[str, object]
    ) -> list[CollectedChunk]:
        if method == CURSOR_UPDATE_TODOS_METHOD:
            return self._todo_chunks(params)
        description = params.get("description")
        if not isinstance(description, str) or not description:
            return []
        if method == CURSOR_TASK_METHOD:
            kind = params.get("subagentType", "unspecified")
            model = params.get("model")
            text = f"[Cursor {kind} task] {description}"
            return _plan(f"{text} ({model})" if isinstance(model, str) and model else text)
        if method == CURSOR_GENERATE_IMAGE_METHOD:
            path = params.get("filePath")  # named only: the file is never read
            where = f" → {path}" if isinstance(path, str) and path else ""
            return _plan(f"[Cursor generated image] {description}{where}")
        return []

    def _todo_chunks(self, params: dict[str, object]) -> list[CollectedChunk]:
        todos = params.get("todos")
        session_id = params.get("sessionId") or params.get("session_id")
        session_id = session_id or self.extension_session_id
        if not isinstance(todos, list) or not isinstance(session_id, str):
            return []
        update: dict[str, tuple[str, str]] = {}
        for todo in todos:
            if not isinstance(todo, dict):
                continue
            todo_id, content, status = todo.get("id"), todo.get("content"), todo.get("status")
            if isinstance(todo_id, str) and isinstance(content, str) and isinstance(status, str):
                update[todo_id] = (content, status)
        if params.get("merge") is True:
            self._todos.setdefault(session_id, {}).update(update)
        else:
            self._todos[session_id] = update
        current = self._todos[session_id]
        if not current:  # a cleared list still replaces the checklist the room shows
            return _plan("(no todos)", cursor_todos=True)
        lines = [f"- [{_TODO_MARKS.get(s, ' ')}] {c}" for c, s in current.values()]
        return _plan("\n".join(lines), cursor_todos=True)


def resolve_acp_client_profile(profile_name: str) -> ACPClientProfile | None:
    """The profile a configured name stands for (``cursor``), None for none or unknown."""
    if profile_name.strip().lower() == CURSOR_PROFILE_NAME:
        return CursorACPClientProfile()
    return None
