"""CopilotSDKAdapter end to end: ``band serve``, the Copilot SDK driving the real Copilot CLI
(npm ``@github/copilot``, pinned, in ``.tools/copilot``) in its offline mode, with the
adapter's ``provider=`` ("BYOK") on the fake OpenAI-compatible endpoint.

What the room sees: the answer to a mention through Band's tool (a native Copilot tool run
in-process, paired tool events), Copilot's ``ask_user`` as a question in the room whose
answer (yes or no) is the next message, or the same question answered at the agent's
terminal (``OperatorConsole``), the same Copilot session after a restart and after a turn out
of time, a provider that refuses the key answered once in words, ``/status`` and ``/help``; a
missing Copilot CLI refuses the start in one line.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from runtime_support import until

from band.adapters import CopilotSDKAdapter, CopilotSDKAdapterConfig
from band.core.exceptions import BandConfigError
from band.testing import Failure, FakeModel, ModelRequest, Reply, ToolCall, default_policy

from ..acp.test_copilot_acp import copilot_binary, copilot_env
from ..band_serve import Room
from ..coding_e2e import (
    AgentStarter,
    CrashCase,
    agent_starter,
    bad_credentials_errors,
    crash_between_turns,
    crash_mid_turn,
    journey,
    resumes_the_same_session,
    status_help_texts,
    timed_journey,
)

pytest.importorskip("copilot", reason="the Copilot SDK is not installed (extra copilot-sdk)")
pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]

KEY = "copilot_session_id"


QUESTION = "May I deploy the release to production?"


def asking_policy(request: ModelRequest) -> Reply:
    """Asks the room before deploying (Copilot's ``ask_user``); acts on the answer."""
    send = request.offered("band_send_message") or "band_send_message"
    users = request.texts("user")
    if request.answering_tool() is not None:
        return Reply(text="")  # the question is posted: the turn ends
    if users and "please deploy" in users[-1] and "ask_user" in request.tool_names:
        call = ToolCall("ask_user", {"question": QUESTION, "choices": ["yes", "no"]})
        return Reply(tool_calls=(call,))
    said = set(users[-1].lower().replace(":", " ").split()) if users else set()
    asked = any(QUESTION in e.text for e in request.entries if e.role == "tool")
    if asked and said & {"1", "yes", "2", "no"}:
        content = "Deploying, as you approved." if said & {"1", "yes"} else "Not deploying."
        return Reply(tool_calls=(ToolCall(send, {"content": content, "mentions": ["alice"]}),))
    outcome = default_policy(request)
    assert isinstance(outcome, Reply)
    return outcome


@pytest.fixture
def fake() -> FakeModel:
    return FakeModel(asking_policy)


@pytest.fixture
def start_copilot(
    band_serve: Any, model_url: str, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> AgentStarter:
    from copilot import CopilotClient, RuntimeConnection
    from copilot.session import ProviderConfig

    binary, home = copilot_binary(), tmp_path_factory.mktemp("copilot-sdk-home")

    def client() -> Any:
        connection = RuntimeConnection.for_stdio(path=str(binary))
        env = {**copilot_env(home, model_url), "PATH": "/usr/bin:/bin"}
        return CopilotClient(
            connection=connection,
            env=env,
            use_logged_in_user=False,
            working_directory=str(tmp_path),
        )

    def build(ask_user: str | None = "room", **fields: Any) -> CopilotSDKAdapter:
        provider = ProviderConfig(type="openai", base_url=model_url, api_key="sk-fake")
        config = CopilotSDKAdapterConfig(model="fake-model", **fields)
        return CopilotSDKAdapter(
            config, client_factory=client, provider=provider, ask_user=ask_user
        )

    return agent_starter(band_serve, build)


async def test_a_mention_is_answered_through_a_native_band_tool(
    start_copilot: AgentStarter, room: Room, fake: FakeModel
) -> None:
    async with start_copilot():
        await room.say("hello Copilot")
        reply = await room.wait_text(lambda t: "You said: hello Copilot" in t)
        calls = await until(lambda: room.events("tool_call"))
        results = await until(lambda: room.events("tool_result"))
        tasks = await room.wait_task(lambda t: KEY in (t["metadata"] or {}))
    assert "Hi Alice!" in reply
    call, result = json.loads(calls[0]["content"]), json.loads(results[0]["content"])
    assert call["name"] == result["name"] == "band_send_message"
    assert call["tool_call_id"] == result["tool_call_id"]
    assert any(t["content"] == "Copilot SDK session" for t in tasks)
    # Band's tools (and ask_user) only: Copilot's shell and file tools are off.
    tools = fake.requests[-1].tool_names
    assert "band_send_message" in tools and "bash" not in tools
    assert set(tools) - {"ask_user"} == {t for t in tools if t.startswith("band_")}


@pytest.mark.parametrize(
    ("answer", "outcome"), [("yes", "Deploying, as you approved."), ("no", "Not deploying.")]
)
async def test_a_question_is_asked_in_the_room_and_its_answer_is_the_next_message(
    start_copilot: AgentStarter, room: Room, answer: str, outcome: str
) -> None:
    async with start_copilot():
        await room.ask("please deploy")
        question = await room.wait_text(lambda t: QUESTION in t)
        await room.ask(answer)
        reply = await room.wait_text(lambda t: "eploying" in t)
        texts = await room.texts()
    assert "1. yes\n2. no" in question and "Answer with a number" in question
    assert reply.endswith(outcome)
    assert len([t for t in texts if QUESTION in t]) == 1


async def test_without_ask_user_the_model_is_not_offered_it(
    start_copilot: AgentStarter, room: Room, fake: FakeModel
) -> None:
    async with start_copilot(ask_user=None):
        await room.ask("hello")
    assert "ask_user" not in fake.requests[-1].tool_names


async def test_a_restarted_agent_resumes_the_same_session(
    start_copilot: AgentStarter, room: Room, fake: FakeModel
) -> None:
    await resumes_the_same_session(start_copilot, room, fake, KEY)


async def test_bad_credentials_are_answered_once_in_words(
    start_copilot: AgentStarter, room: Room, fake: FakeModel
) -> None:
    refusal = Failure(401, "Incorrect API key provided")
    error = await bad_credentials_errors(start_copilot, room, fake, refusal)
    assert error.startswith("Copilot turn failed: Authentication failed"), error


async def test_status_and_help(start_copilot: AgentStarter, room: Room) -> None:
    before, after, help_text = await status_help_texts(start_copilot, room)
    assert "Session: none yet." in before
    assert "Copilot runtime: connected." in after and "Session: `band-" in after
    assert "`/help`" in help_text


async def test_a_missing_cli_refuses_the_start_in_one_line(tmp_path: Path) -> None:
    from copilot import CopilotClient, RuntimeConnection

    connection = RuntimeConnection.for_stdio(path=str(tmp_path / "copilot"))
    adapter = CopilotSDKAdapter(
        client_factory=lambda: CopilotClient(connection=connection, use_logged_in_user=False),
        provider={"type": "openai", "base_url": "http://127.0.0.1:9/v1"},
    )
    with pytest.raises(BandConfigError) as info:
        await adapter.on_started("Coder", "A coding agent")
    assert "\n" not in str(info.value)
    assert str(info.value).startswith("the Copilot runtime did not start")


async def test_no_sign_in_and_no_provider_refuses_the_start_in_one_line(tmp_path: Path) -> None:
    """The real CLI, offline with no GitHub login: its auth status says so."""
    from copilot import CopilotClient, RuntimeConnection

    connection = RuntimeConnection.for_stdio(path=str(copilot_binary()))
    env = {**copilot_env(tmp_path, "http://127.0.0.1:9/v1"), "PATH": "/usr/bin:/bin"}
    for key in ("COPILOT_OFFLINE", "COPILOT_PROVIDER_BASE_URL", "COPILOT_PROVIDER_API_KEY"):
        env.pop(key)
    adapter = CopilotSDKAdapter(
        client_factory=lambda: CopilotClient(
            connection=connection, env=env, use_logged_in_user=False
        )
    )
    with pytest.raises(BandConfigError) as info:
        await adapter.on_started("Coder", "A coding agent")
    assert "\n" not in str(info.value) and adapter.client is None  # the runtime was stopped
    assert str(info.value).startswith("Copilot is not signed in")
    assert "pass provider= for your own model endpoint" in str(info.value)


def test_bad_configurations_are_refused() -> None:
    with pytest.raises(BandConfigError, match="not both"):
        CopilotSDKAdapter(client=object(), client_factory=object)
    with pytest.raises(BandConfigError, match="ask_user must be"):
        CopilotSDKAdapter(ask_user="terminal")


@journey
async def test_journey_timings(start_copilot: AgentStarter, room: Room) -> None:
    async def answer_yes(room: Room) -> str:
        await room.wait_text(lambda t: QUESTION in t)
        return "yes"

    await timed_journey(
        "CopilotSDKAdapter",
        start_copilot,
        room,
        answer_yes,
        ask="please deploy",
        done=lambda t: "Deploying, as you approved." in t,
    )


CRASH = CrashCase("Copilot runtime", KEY)


async def test_killed_between_turns(
    start_copilot: AgentStarter, room: Room, fake: FakeModel
) -> None:
    await crash_between_turns(start_copilot, room, fake, CRASH)


async def test_killed_mid_turn(start_copilot: AgentStarter, room: Room, fake: FakeModel) -> None:
    await crash_mid_turn(start_copilot, room, fake, CRASH)


async def test_a_turn_out_of_time_is_aborted_and_the_session_resumed_next(
    start_copilot: AgentStarter, room: Room, fake: FakeModel
) -> None:
    async with start_copilot(turn_timeout_s=3):
        await room.ask("hello")
        fake.queue(Reply(text="too late", delay=8))
        slow = await room.say("take your time")
        await room.wait_status(slow, "failed")
        await room.ask("are you back?")
        texts, errors = await room.texts(), await room.events("error")
        tasks = await room.events("task")
    assert [e["content"] for e in errors] == [
        "Copilot did not finish within 3 s; the turn was aborted."
    ]
    assert sum("You said: are you back?" in t for t in texts) == 1
    assert not any("too late" in t or "had exited" in t for t in texts)
    # The session was dropped after the timeout and resumed, not replaced.
    sessions = {t["metadata"][KEY] for t in tasks if KEY in (t["metadata"] or {})}
    assert len(sessions) == 1, sessions


async def test_the_operator_console_answers_at_the_agents_terminal(
    start_copilot: AgentStarter, room: Room, fake: FakeModel, capsys: pytest.CaptureFixture[str]
) -> None:
    from band.integrations.copilot_sdk import OperatorConsole

    def policy(request: ModelRequest) -> Reply:
        answered = request.answering_tool()
        if answered is not None:
            send = request.offered("band_send_message") or "band_send_message"
            content = f"The operator answered: {answered.text.strip()[:200]}"
            return Reply(tool_calls=(ToolCall(send, {"content": content, "mentions": ["alice"]}),))
        return asking_policy(request)

    fake.policy = policy
    read_fd, write_fd = os.pipe()
    with os.fdopen(read_fd) as terminal:
        console = OperatorConsole(answer_timeout_s=60, input_stream=terminal)
        async with start_copilot(ask_user=console.ask):
            await room.say("please deploy")
            shown: list[str] = []

            async def question_shown() -> bool:
                shown.append(capsys.readouterr().out)
                return "Answer [1-2 or text]" in "".join(shown)

            await until(question_shown, limit=90)
            os.write(write_fd, b"2\n")
            reply = await room.wait_text(lambda t: "The operator answered" in t)
            texts = await room.texts()
        os.close(write_fd)
    assert QUESTION in "".join(shown) and "1) yes" in "".join(shown)
    assert "no" in reply.removeprefix("The operator answered")
    assert not any(QUESTION in t for t in texts)  # asked at the terminal, not in the room
