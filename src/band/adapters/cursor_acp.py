"""``CursorACPAdapter``: Cursor's CLI agent over ACP (``agent acp``), one process per room.

Cursor adds ACP extensions, handled here: ``cursor/create_plan`` (a plan to accept or
reject: ``plan_mode``), ``cursor/ask_question`` (multiple-choice questions:
``question_mode``) and ``cursor/update_todos`` (its checklist, posted as a ``task`` event).
``manual`` plans and permission requests are decided by the room (``/approve <id>``,
``/decline <id>``); a ``manual`` question is posted to the room and Cursor's turn ends
(Band hands a room one message at a time, so the answer is the room's next message).
``api_key`` / ``auth_token`` set ``CURSOR_API_KEY`` / ``CURSOR_AUTH_TOKEN`` unless ``env``
does.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, PositiveFloat, PositiveInt, model_validator

from band.adapters._coding import approvals
from band.adapters._coding.approvals import ApprovalModeName as ApprovalMode
from band.adapters._coding.approvals import ApprovalRequest, Decision
from band.adapters.acp import ACPClientAdapterConfig
from band.adapters.acp.client import RoomClient, band_tool_name
from band.adapters.acp.preset import ACPPresetAdapter
from band.integrations.acp.cursor import canonicalize_cursor_tool_name

__all__ = [
    "ASK_QUESTION",
    "CREATE_PLAN",
    "DEFAULT_CURSOR_ACP_COMMAND",
    "ApprovalMode",
    "CursorACPAdapter",
    "CursorACPAdapterConfig",
]

DEFAULT_CURSOR_ACP_COMMAND: tuple[str, ...] = ("agent", "acp")
ASK_QUESTION = "cursor/ask_question"
CREATE_PLAN = "cursor/create_plan"
UPDATE_TODOS = "cursor/update_todos"
QuestionMode = Literal["manual", "auto_first", "auto_cancel"]
PlanMode = Literal["manual", "auto_accept", "auto_decline"]


class CursorACPAdapterConfig(ACPClientAdapterConfig):
    """``ACPClientAdapterConfig`` for ``agent acp``: credentials and Cursor's decisions.

    ``approval_mode`` (default ``manual``), ``plan_mode`` and ``question_mode`` say who
    decides; ``decision_timeout_s`` bounds a manual decision and must stay below
    ``turn_timeout_s`` (default 900 s). At most ``max_pending_decisions`` wait per room (one
    more declines the oldest); with ``decision_authorized_senders`` only those sender ids may
    ``/approve`` or ``/decline`` (None: anyone in the room).
    """

    command: tuple[str, ...] = DEFAULT_CURSOR_ACP_COMMAND
    api_key: str | None = Field(default=None, repr=False)
    auth_token: str | None = Field(default=None, repr=False)
    approval_mode: approvals.ApprovalMode = approvals.ApprovalMode.MANUAL
    question_mode: QuestionMode = "manual"
    plan_mode: PlanMode = "manual"
    decision_timeout_s: PositiveFloat = 300.0
    turn_timeout_s: PositiveFloat = 900.0
    max_pending_decisions: PositiveInt = 10
    decision_authorized_senders: frozenset[str] | None = None

    @model_validator(mode="after")
    def _check(self) -> CursorACPAdapterConfig:
        if self.api_key and self.auth_token:
            raise ValueError("set either api_key or auth_token, not both")
        if self.decision_timeout_s >= self.turn_timeout_s:
            raise ValueError("decision_timeout_s must be less than turn_timeout_s")
        return self


def _questions(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Cursor's questions that have an id, in order; options as ``{id, label}``."""
    found = []
    for raw in params.get("questions") or []:
        if isinstance(raw, dict) and isinstance(raw.get("id"), str):
            options = [o for o in raw.get("options") or [] if isinstance(o, dict) and o.get("id")]
            found.append({**raw, "options": options})
    return found


class CursorACPAdapter(ACPPresetAdapter[CursorACPAdapterConfig]):
    """Band rooms on ``agent acp``, with Cursor's plans, questions and todos."""

    PROVIDER = "cursor_acp"
    LABEL = "Cursor agent"

    def prepared(self, config: CursorACPAdapterConfig | None) -> CursorACPAdapterConfig:
        config = config or CursorACPAdapterConfig()
        env = dict(config.env or {})
        if config.api_key:
            env.setdefault("CURSOR_API_KEY", config.api_key)
        if config.auth_token:
            env.setdefault("CURSOR_AUTH_TOKEN", config.auth_token)
        return config.model_copy(
            update={"env": env, "approval_wait_timeout_s": config.decision_timeout_s}
        )

    def preset_profile(self) -> CursorACPAdapter:
        return self

    def room_client(self, room_id: str) -> RoomClient:
        """A room's client reading Cursor's titles of Band's tools (``band-x: x``) as ``x``."""
        return RoomClient(self, room_id, canonicalize_tool_name=self._tool_name)

    def _tool_name(self, name: str) -> str:
        return band_tool_name(canonicalize_cursor_tool_name(name, self.own_tool_names))

    # -- Cursor's extensions (ACPClientProfile) ---------------------------------------------------

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return {}

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    async def room_ext_method(self, client: Any, method: str, params: dict[str, Any]) -> Any:
        if method == CREATE_PLAN:
            return {"outcome": {"outcome": await self._plan(client, params)}}
        if method == ASK_QUESTION:
            return {"outcome": await self._ask(client, params)}
        return {}

    async def room_ext_notification(self, client: Any, method: str, params: dict[str, Any]) -> None:
        reporter = client.reporter
        if method != UPDATE_TODOS or reporter is None:
            return
        todos = [t for t in params.get("todos") or [] if isinstance(t, dict)]
        marks = {"completed": "x", "in_progress": "~", "cancelled": "-"}
        lines = [f"- [{marks.get(str(t.get('status')), ' ')}] {t.get('content')}" for t in todos]
        await reporter.task("Todos\n" + "\n".join(lines), {"cursor_todos": todos})

    async def _plan(self, client: Any, params: dict[str, Any]) -> str:
        mode = self.config.plan_mode
        if mode != "manual":
            return "accepted" if mode == "auto_accept" else "rejected"
        prompt = client.prompt
        if prompt is None:
            return "rejected"
        plan = str(params.get("plan") or params.get("name") or "a plan")
        request = ApprovalRequest("plan", plan[:300], "plan")
        decision = await self.relay.request(
            client.room_id, prompt.reporter, request, on_wait=prompt.turn.release
        )
        return "rejected" if decision is Decision.DECLINE else "accepted"

    async def _ask(self, client: Any, params: dict[str, Any]) -> dict[str, Any]:
        questions = _questions(params)
        answerable = [q for q in questions if q["options"]]
        mode = self.config.question_mode
        if mode == "auto_first" and answerable:
            answers = [
                {"questionId": q["id"], "selectedOptionIds": [q["options"][0]["id"]]}
                for q in answerable
            ]
            return {"outcome": "answered", "answers": answers}
        if mode == "manual" and client.reporter is not None and questions:
            lines = ["Cursor asks (answer in your next message):"]
            for q in questions:
                labels = ", ".join(f"`{o.get('label') or o['id']}`" for o in q["options"])
                lines.append(f"- {q.get('prompt') or q['id']}" + (f" ({labels})" if labels else ""))
            await client.reporter.notice("\n".join(lines))
            client.prompt.tools.turn.settle()
        return {"outcome": "cancelled"}
