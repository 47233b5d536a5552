"""Stand-ins for ACP agents that cannot run here (Cursor's ``agent acp`` ships from Cursor's
own site, not a registry; OMP needs the Bun runtime and an account-backed model catalogue):
the scripted agent plus each agent's documented extensions, checked message by message.

``cursor``: a prompt saying "make a plan" sends ``_cursor/create_plan`` and then
``_cursor/update_todos``; "ask me" sends ``_cursor/ask_question``. Each answer must have
the documented shape (``{"outcome": {"outcome": "accepted" | "rejected"}}``;
``{"outcome": {"outcome": "answered", "answers": [{"questionId", "selectedOptionIds"}]}}``
or ``cancelled``), else the prompt fails with the reason. An accepted plan writes
``plan.txt``. ``omp``: records its argv and which provider key it got in ``launch.json``;
"use the form" asks for approval through OMP's ``Approve``/``Deny`` elicitation form and
writes the answer (``Approve``, or the declined action) to ``form.txt``.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import acp
from acp import PromptResponse, RequestError
from acp.schema import ElicitationFormSessionMode

sys.path.insert(0, str(Path(__file__).parent))
from scripted_agent import ScriptedAgent

PROFILE = os.environ.get("BAND_STANDIN", "cursor")
QUESTION = {
    "id": "q1",
    "prompt": "Which file should I touch?",
    "options": [{"id": "a", "label": "README.md"}, {"id": "b", "label": "setup.py"}],
    "allowMultiple": False,
}


class StandIn(ScriptedAgent):
    async def new_session(self, cwd: str, mcp_servers: list[Any] | None = None, **kw: Any) -> Any:
        if PROFILE == "omp":
            launch = {"argv": sys.argv[1:], "openai_key": bool(os.environ.get("OPENAI_API_KEY"))}
            (Path(cwd) / "launch.json").write_text(json.dumps(launch))
        return await super().new_session(cwd, mcp_servers, **kw)

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        text = " ".join(getattr(b, "text", "") for b in prompt)
        cwd = Path(self.sessions[session_id]["cwd"])
        if PROFILE == "cursor" and "make a plan" in text:
            answer = await self.conn.ext_method(
                "cursor/create_plan", {"sessionId": session_id, "plan": "1. write plan.txt"}
            )
            outcome = _checked(answer, ("accepted", "rejected"))
            todos = [{"id": "t1", "content": "write plan.txt", "status": "in_progress"}]
            await self.conn.ext_notification(
                "cursor/update_todos", {"sessionId": session_id, "todos": todos}
            )
            if outcome == "accepted":
                (cwd / "plan.txt").write_text("planned\n")
            return PromptResponse(stop_reason="end_turn")
        if PROFILE == "cursor" and "ask me" in text:
            answer = await self.conn.ext_method(
                "cursor/ask_question", {"sessionId": session_id, "questions": [QUESTION]}
            )
            if _checked(answer, ("answered", "cancelled")) == "answered":
                picked = answer["outcome"]["answers"][0]["selectedOptionIds"]
                (cwd / "answer.txt").write_text(",".join(picked))
            return PromptResponse(stop_reason="end_turn")
        if PROFILE == "omp" and "use the form" in text:
            form = {
                "mode": "form",
                "sessionId": session_id,
                "requestedSchema": {
                    "type": "object",
                    "properties": {"decision": {"type": "string", "enum": ["Approve", "Deny"]}},
                },
            }
            mode = ElicitationFormSessionMode.model_validate(form)
            answer = await self.conn.create_elicitation(message="Run `make release`?", mode=mode)
            content = getattr(answer, "content", None) or {}
            (cwd / "form.txt").write_text(str(content.get("decision") or answer.action))
            return PromptResponse(stop_reason="end_turn")
        return await super().prompt(prompt, session_id, **kwargs)


def _checked(answer: Any, allowed: tuple[str, ...]) -> str:
    """The outcome of a Cursor extension answer; an error naming what is wrong otherwise."""
    outcome = (answer or {}).get("outcome") if isinstance(answer, dict) else None
    kind = outcome.get("outcome") if isinstance(outcome, dict) else None
    if kind not in allowed:
        raise RequestError.invalid_params({"answer": answer, "expected": list(allowed)})
    if kind == "answered":
        answers = outcome.get("answers")
        if not (isinstance(answers, list) and answers and all("questionId" in a for a in answers)):
            raise RequestError.invalid_params({"answers": answers})
    return str(kind)


if __name__ == "__main__":
    asyncio.run(acp.run_agent(StandIn()))
