"""``client_profiles`` and ``cursor``: Cursor's questions, plans, todos, tasks and images,
the no-op profile, profile names, and Cursor's titles of Band's MCP tools."""

from __future__ import annotations

from typing import Any

from band.integrations.acp.client_profiles import (
    CursorACPClientProfile,
    CursorQuestion,
    NoopACPClientProfile,
    parse_cursor_questions,
    resolve_acp_client_profile,
)
from band.integrations.acp.cursor import (
    CursorCommandWord,
    canonicalize_cursor_tool_name,
    cursor_mcp_title,
    is_cursor_band_tool,
)

QUESTIONS: dict[str, object] = {
    "questions": [
        {"id": "q1", "prompt": "Which?", "options": [{"id": "a", "label": "A"}, {"id": "b"}]},
        {"id": "q2", "options": [{"label": "no id"}], "allowMultiple": True},
        {"id": "q1", "prompt": "repeated"},
        {"prompt": "no id"},
        "not a question",
    ]
}


def test_cursor_questions_are_parsed_in_order_keeping_the_unanswerable() -> None:
    assert parse_cursor_questions(QUESTIONS) == (
        CursorQuestion("q1", "Which?", (("a", "A"), ("b", "b")), False),
        CursorQuestion("q2", "q2", (), True),
    )
    assert parse_cursor_questions({"questions": "nope"}) == ()


async def test_without_a_resolver_cursor_is_answered_unattended() -> None:
    profile = CursorACPClientProfile()
    answered = await profile.ext_method("cursor/ask_question", dict(QUESTIONS))
    assert answered == {
        "outcome": {
            "outcome": "answered",
            "answers": [{"questionId": "q1", "selectedOptionIds": ["a"]}],
        }
    }
    assert await profile.ext_method("cursor/ask_question", {"questions": []}) == {
        "outcome": {"outcome": "cancelled"}
    }
    assert await profile.ext_method("cursor/create_plan", {}) == {
        "outcome": {"outcome": "accepted"}
    }
    assert await profile.ext_method("cursor/other", {}) == {}


async def test_a_resolver_decides_cursors_requests() -> None:
    asked: list[str] = []

    async def resolve(method: str, params: dict[str, object]) -> dict[str, object]:
        asked.append(method)
        return {"outcome": {"outcome": "rejected"}}

    profile = CursorACPClientProfile(resolve)
    assert await profile.ext_method("cursor/create_plan", {}) == {
        "outcome": {"outcome": "rejected"}
    }
    assert asked == ["cursor/create_plan"]


async def test_todos_replace_merge_and_clear_per_session() -> None:
    current = {"id": "s-bound"}
    profile = CursorACPClientProfile(active_session=lambda: current["id"])
    assert profile.extension_session_id == "s-bound"
    todos: list[dict[str, Any]] = [
        {"id": "1", "content": "write", "status": "completed"},
        {"id": "2", "content": "test", "status": "in_progress"},
        {"id": "3", "status": "pending"},  # no content: skipped
    ]
    (chunk,) = await profile.ext_notification("cursor/update_todos", {"todos": todos})
    assert (chunk.chunk_type, chunk.content) == ("plan", "- [x] write\n- [~] test")
    assert chunk.metadata == {"cursor_todos": True}
    merge = {"todos": [{"id": "2", "content": "test", "status": "cancelled"}], "merge": True}
    (merged,) = await profile.ext_notification("cursor/update_todos", merge)
    assert merged.content == "- [x] write\n- [-] test"
    (cleared,) = await profile.ext_notification("cursor/update_todos", {"todos": []})
    assert cleared.content == "(no todos)"
    other = {"sessionId": "s-2", "todos": [{"id": "9", "content": "x", "status": "pending"}]}
    assert (await profile.ext_notification("cursor/update_todos", other))[0].content == "- [ ] x"
    profile.forget_session("s-2")
    current["id"] = None  # type: ignore[assignment]
    assert await profile.ext_notification("cursor/update_todos", {"todos": todos}) == []


async def test_tasks_and_images_are_shown_as_plans() -> None:
    profile = CursorACPClientProfile()
    task = {"description": "find bugs", "subagentType": "explore", "model": "m1"}
    assert (await profile.ext_notification("cursor/task", task))[0].content == (
        "[Cursor explore task] find bugs (m1)"
    )
    image = {"description": "a cat", "filePath": "/tmp/cat.png"}
    assert (await profile.ext_notification("cursor/generate_image", image))[0].content == (
        "[Cursor generated image] a cat → /tmp/cat.png"
    )
    assert await profile.ext_notification("cursor/task", {}) == []
    assert await profile.ext_notification("cursor/unknown", {"description": "x"}) == []


async def test_the_noop_profile_and_profile_names() -> None:
    noop = NoopACPClientProfile()
    assert noop.extension_session_id is None and noop.forget_session("s") is None
    assert await noop.ext_method("x", {}) == {} and await noop.ext_notification("x", {}) == []
    assert isinstance(resolve_acp_client_profile(" Cursor "), CursorACPClientProfile)
    assert resolve_acp_client_profile("") is None and resolve_acp_client_profile("omp") is None


def test_cursor_titles_of_band_tools() -> None:
    own = {"band_send_message"}
    title = "band-band_send_message: band_send_message"
    assert cursor_mcp_title(title) == ("band-band_send_message", "band_send_message")
    for bad in ("no separator", "a: a", "a b: c", "a:b: c", ": c"):
        assert cursor_mcp_title(bad) is None
    assert is_cursor_band_tool(title, own)
    assert not is_cursor_band_tool("other-band_send_message: band_send_message", own)
    assert canonicalize_cursor_tool_name(title, own) == "band_send_message"
    assert canonicalize_cursor_tool_name("band-band_send_message", own) == "band_send_message"
    assert canonicalize_cursor_tool_name("Shell: ls", own) == "Shell: ls"
    assert CursorCommandWord.SELECT == "select"
