"""band.adapters.opencode.approvals: a room's open OpenCode asks, their modes, the room's
replies, and the deadlines, against a recording client and room."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from band.adapters.opencode.approvals import (
    DECLINED_ANSWER,
    REJECTION_NOTE,
    ApprovalPorts,
    PendingQuestion,
    PermissionCommand,
    RoomApprovals,
    format_question_prompt,
    parse_permission_reply,
    parse_question_answers,
)
from band.adapters.opencode.config import OpencodeAdapterConfig
from band.integrations.opencode import (
    OpencodePermissionRequest,
    OpencodeQuestion,
    OpencodeQuestionRequest,
)


class Client:
    def __init__(self, fail: bool = False) -> None:
        self.calls: list[tuple[str, str, Any]] = []
        self.fail = fail

    async def reply_permission(self, pid: str, *, reply: str, message: str | None = None) -> None:
        if self.fail:
            raise OSError("server gone")
        self.calls.append(("permission", pid, (reply, message)))

    async def reply_question(self, rid: str, *, answers: list[list[str]]) -> None:
        self.calls.append(("question", rid, answers))


class Tools:
    def __init__(self) -> None:
        self.notices: list[tuple[str, Any]] = []
        self.events: list[tuple[str, str]] = []

    async def send_notice(self, text: str, mentions: Any = None) -> None:
        self.notices.append((text, mentions))

    async def send_event(self, text: str, kind: str, metadata: Any = None) -> None:
        self.events.append((text, kind))


class Room:
    def __init__(self, client: Client | None = None) -> None:
        self.client, self.tools = client or Client(), Tools()
        self.released = self.aborted = 0
        self.failed: list[str] = []

    def approvals(self, **config: Any) -> RoomApprovals:
        async def abort() -> None:
            self.aborted += 1

        def release() -> None:
            self.released += 1

        ports = ApprovalPorts(
            room_id="room-1",
            client=lambda: self.client,  # type: ignore[arg-type,return-value]
            tools=lambda: self.tools,  # type: ignore[arg-type,return-value]
            turn_mentions=lambda: [{"id": "alice"}],
            release_turn_wait=release,
            fail_turn=self.failed.append,
            abort_session=abort,
            is_own_band_tool=lambda name: name.startswith("band_"),
        )
        return RoomApprovals(OpencodeAdapterConfig(**config), ports)


def permission(pid: str = "per_1", name: str = "bash") -> OpencodePermissionRequest:
    return OpencodePermissionRequest.model_validate(
        {"id": pid, "permission": name, "patterns": ["rm -rf build"]}
    )


def question(rid: str = "que_1", *texts: str) -> OpencodeQuestionRequest:
    asked = [{"question": t} for t in texts or ("Which colour?",)]
    return OpencodeQuestionRequest.model_validate({"id": rid, "questions": asked})


def test_room_words_become_permission_commands() -> None:
    assert parse_permission_reply("approve per_1") == PermissionCommand("once", "per_1")
    assert parse_permission_reply("/ALWAYS") == PermissionCommand("always", None)
    assert parse_permission_reply("reject please") == PermissionCommand("reject", None)
    assert parse_permission_reply("/decline x") == PermissionCommand("reject", "x")
    assert parse_permission_reply("approve-session") == PermissionCommand("always", None)
    assert parse_permission_reply("sure, go ahead") is None
    assert parse_permission_reply("   ") is None


def test_answers_are_a_line_per_question() -> None:
    one = PendingQuestion("q", [OpencodeQuestion()])
    two = PendingQuestion("q", [OpencodeQuestion(), OpencodeQuestion()])
    assert parse_question_answers(" teal\nreally ", one) == [["teal\nreally"]]
    assert parse_question_answers("a\n\nb\nc", two) == [["a"], ["b"]]
    assert parse_question_answers("only one", two) is None
    assert parse_question_answers("  ", one) is None
    prompt = format_question_prompt(two.questions, "q")
    assert "`q`" in prompt and "1. Question" in prompt and "2. Question" in prompt


async def test_own_band_tools_are_always_allowed_in_every_mode() -> None:
    room = Room()
    approvals = room.approvals(approval_mode="auto_decline")
    await approvals.on_permission_asked(permission(name="band_send_message"))
    assert room.client.calls == [("permission", "per_1", ("always", None))]
    assert not room.tools.notices and not approvals.awaiting_human()


@pytest.mark.parametrize(
    ("mode", "reply"),
    [("auto_accept", ("once", None)), ("auto_decline", ("reject", REJECTION_NOTE))],
)
async def test_auto_modes_answer_at_once(mode: str, reply: tuple[str, Any]) -> None:
    room = Room()
    await room.approvals(approval_mode=mode).on_permission_asked(permission())
    assert room.client.calls == [("permission", "per_1", reply)]
    assert not room.tools.notices and room.released == 0


async def test_a_manual_ask_is_posted_and_the_rooms_word_answers_it() -> None:
    room = Room()
    approvals = room.approvals()
    await approvals.on_permission_asked(permission())
    notice, mentions = room.tools.notices[0]
    assert "`bash`" in notice and "rm -rf build" in notice and "approve per_1" in notice
    assert mentions == [{"id": "alice"}] and room.released == 1
    assert approvals.awaiting_human()
    assert not await approvals.try_handle_reply("what does it do?", "bob")
    assert await approvals.try_handle_reply("@agent approve", "bob")
    assert room.client.calls == [("permission", "per_1", ("once", None))]
    assert "answered `once`" in room.tools.notices[-1][0]
    assert room.tools.notices[-1][1] == [{"id": "bob"}]
    assert not approvals.awaiting_human()
    # A late reply to an answered ask is told so, not sent to the model.
    assert await approvals.try_handle_reply("reject per_1", "bob")
    assert "no longer open" in room.tools.notices[-1][0]


async def test_two_open_asks_need_the_id() -> None:
    room = Room()
    approvals = room.approvals()
    await approvals.on_permission_asked(permission("per_1"))
    await approvals.on_permission_asked(permission("per_2"))
    assert await approvals.try_handle_reply("approve", "bob")
    assert "`per_1`, `per_2`" in room.tools.notices[-1][0] and not room.client.calls
    assert await approvals.try_handle_reply("always per_2", "bob")
    assert room.client.calls == [("permission", "per_2", ("always", None))]
    assert approvals.awaiting_human()  # per_1 still waits


async def test_a_question_is_posted_and_the_next_message_answers_it() -> None:
    room = Room()
    approvals = room.approvals()
    await approvals.on_question_asked(question("que_1", "Which colour?", "Which size?"))
    assert "1. Which colour?" in room.tools.notices[0][0] and room.released == 1
    assert await approvals.try_handle_reply("teal", "bob")  # one line for two questions
    assert "a line each" in room.tools.notices[-1][0] and not room.client.calls
    assert await approvals.try_handle_reply("@agent teal\nlarge", "bob")
    assert room.client.calls == [("question", "que_1", [["teal"], ["large"]])]
    assert "answered" in room.tools.notices[-1][0] and not approvals.awaiting_human()


async def test_reject_declines_a_question_and_auto_reject_declines_unasked() -> None:
    room = Room()
    approvals = room.approvals()
    await approvals.on_question_asked(question())
    assert await approvals.try_handle_reply("reject que_1", "bob")
    assert room.client.calls == [("question", "que_1", [[DECLINED_ANSWER]])]
    assert await approvals.try_handle_reply("reject que_1", "bob")
    assert "no longer open" in room.tools.notices[-1][0]
    quiet = Room()
    await quiet.approvals(question_mode="auto_reject").on_question_asked(question("que_2"))
    assert quiet.client.calls == [("question", "que_2", [[DECLINED_ANSWER]])]
    assert not quiet.tools.notices


async def test_unanswered_asks_are_answered_at_their_deadline() -> None:
    room = Room()
    approvals = room.approvals(approval_wait_timeout_s=0.05, question_wait_timeout_s=0.05)
    await approvals.on_permission_asked(permission())
    await approvals.on_question_asked(question())
    await asyncio.sleep(0.3)
    assert ("permission", "per_1", ("reject", REJECTION_NOTE)) in room.client.calls
    assert ("question", "que_1", [[DECLINED_ANSWER]]) in room.client.calls
    assert [kind for _, kind in room.tools.events] == ["error", "error"]
    assert not approvals.awaiting_human() and approvals.human_wait_seconds >= 0.05


async def test_a_decide_callable_answers_manual_permission_asks() -> None:
    room = Room()
    approvals = room.approvals()
    seen: list[str] = []

    async def decide(ask: OpencodePermissionRequest) -> Any:
        seen.append(ask.permission)
        return "always"

    approvals.decide = decide
    await approvals.on_permission_asked(permission())
    assert seen == ["bash"] and room.client.calls == [("permission", "per_1", ("always", None))]
    assert not room.tools.notices and not approvals.awaiting_human()


async def test_room_words_leave_an_ask_being_decided_alone() -> None:
    room = Room()
    approvals = room.approvals()
    decided = asyncio.Event()

    async def decide(ask: OpencodePermissionRequest) -> Any:
        await decided.wait()
        return "reject"

    approvals.decide = decide
    asking = asyncio.create_task(approvals.on_permission_asked(permission()))
    await asyncio.sleep(0.05)
    assert approvals.awaiting_human()
    assert not await approvals.try_handle_reply("/approve", "bob")  # the relay's to answer
    decided.set()
    await asking
    assert room.client.calls == [("permission", "per_1", ("reject", REJECTION_NOTE))]


async def test_a_failed_reply_fails_the_turn_and_aborts_the_session() -> None:
    room = Room(Client(fail=True))
    approvals = room.approvals()
    await approvals.on_permission_asked(permission())
    assert await approvals.try_handle_reply("approve", "bob")
    assert room.failed and "server gone" in room.failed[0] and room.aborted == 1
    assert not approvals.awaiting_human()


async def test_abandon_aborts_only_when_an_ask_was_open() -> None:
    room = Room()
    approvals = room.approvals()
    assert not await approvals.abandon() and room.aborted == 0
    await approvals.on_question_asked(question())
    assert await approvals.abandon() and room.aborted == 1
    assert not await approvals.try_handle_reply("teal", "bob")  # nothing open any more
