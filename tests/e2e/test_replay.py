"""``band replay`` with the seed page's adapter and a scripted model (issue 36).

A room on a platform holds three mentions of an agent and the answers it gave then (with
their tool call events). Its export is replayed by the `band replay` command with the seed's
`chat_adapter:ChatCompletionsAdapter` (unchanged, imported from the working folder) against a
scripted model: the report pairs each original answer with the new one, lists the tool calls
and times of both, and escapes what people wrote.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_support import PROJECT_PYTHON, clean_env

from band.client.rest import AsyncRestClient
from band.portable import export_archive
from band.testing import FakeModel, LocalPlatform, ToolCall, fake_openai_server

pytest.importorskip("openai")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]

SEED_DIR = Path(__file__).resolve().parent / "seed"
QUESTIONS = ("what is <b>2+2</b>?", "and 3+3?", "thanks, anything else?")


async def _original_room(tmp_path: Path) -> Path:
    """Alice's room with Chat: three mentions, each answered then with a tool call."""
    async with LocalPlatform(tmp_path / "then") as then:
        alice = await then.person("alice")
        chat = await then.agent(alice, "Chat", "Answers questions about arithmetic")
        room = await then.room(alice, chat, title="Arithmetic")
        agent = {"X-API-Key": chat.key}
        async with httpx.AsyncClient(base_url=then.rest_url, headers=agent) as c:
            for n, question in enumerate(QUESTIONS, start=1):
                await then.post(alice, room, f"@{chat.handle} {question}", chat)
                call = {"name": "band_send_message", "args": {"content": f"Old answer {n}"}}
                event = {"event": {"content": json.dumps(call), "message_type": "tool_call"}}
                assert (await c.post(f"/api/v1/agent/chats/{room}/events", json=event)).is_success
                reply = {"message": {"content": f"Old answer {n}", "mentions": [{"id": alice.id}]}}
                assert (await c.post(f"/api/v1/agent/chats/{room}/messages", json=reply)).is_success
        archive = tmp_path / "arithmetic.tar.gz"
        async with AsyncRestClient(base_url=then.rest_url, api_key=alice.key) as client:
            await export_archive(client, archive)
    return archive


def _scripted() -> FakeModel:
    """Each mention: a band_send_message call with the new answer, then an empty final text."""
    fake = FakeModel(strict=True)
    for n in range(1, len(QUESTIONS) + 1):
        fake.call_tools(
            ToolCall("band_send_message", {"content": f"New answer {n}", "mentions": ["alice"]})
        )
        fake.reply("")
    return fake


async def test_the_seed_adapter_answers_every_mention_again_beside_the_original(
    tmp_path: Path,
) -> None:
    archive = await _original_room(tmp_path)
    workdir = tmp_path / "work"
    workdir.mkdir()
    shutil.copyfile(SEED_DIR / "chat_adapter.py", workdir / "chat_adapter.py")
    fake = _scripted()
    with fake_openai_server(fake) as base_url:
        done = subprocess.run(
            [
                str(PROJECT_PYTHON), "-m", "band.cli", "replay", str(archive),
                "--adapter", "chat_adapter:ChatCompletionsAdapter",
                "--model", base_url, "--out", str(tmp_path / "report"), "--json",
            ],
            cwd=workdir, capture_output=True, text=True, env=clean_env(), timeout=100,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    totals = json.loads(done.stdout)
    assert totals["mentions"] == 3 and totals["answered_now"] == 3 and totals["answered_then"] == 3
    report: dict[str, Any] = json.loads((tmp_path / "report" / "replay.json").read_text())
    assert report["agent"]["handle"] == "alice/chat"
    cases = report["cases"]
    # Both sides read as people see them: mentions as @handle, then the text.
    assert [c["original"]["content"] for c in cases] == [
        "@alice Old answer 1",
        "@alice Old answer 2",
        "@alice Old answer 3",
    ]
    assert [c["replay"]["content"] for c in cases] == [
        "@alice New answer 1",
        "@alice New answer 2",
        "@alice New answer 3",
    ]
    assert [c["history_before"] for c in cases] == [0, 3, 6]  # the room as it was each time
    for case in cases:
        then, now = case["original"], case["replay"]
        assert [t["type"] for t in then["tool_calls"]] == ["tool_call"]
        assert [t["type"] for t in now["tool_calls"]] == ["tool_call", "tool_result"]
        assert json.loads(now["tool_calls"][0]["content"])["name"] == "band_send_message"
        assert then["seconds"] is not None and now["seconds"] is not None and now["seconds"] >= 0
    # The adapter saw the original history, never its own new answers.
    third = fake.requests[-2]
    spoken = " ".join(e.text for e in third.entries)
    assert "Old answer 2" in spoken and "New answer 2" not in spoken
    html = (tmp_path / "report" / "replay.html").read_text()
    assert "what is &lt;b&gt;2+2&lt;/b&gt;?" in html and "<b>2+2</b>" not in html
    assert "New answer 3" in html and "Old answer 3" in html


async def test_a_replay_naming_no_room_of_the_archive_is_refused_with_its_rooms(
    tmp_path: Path,
) -> None:
    archive = await _original_room(tmp_path)
    done = subprocess.run(
        [str(PROJECT_PYTHON), "-m", "band.cli", "replay", str(archive), "--room", "Nowhere",
         "--adapter", "chat_adapter:ChatCompletionsAdapter"],
        cwd=SEED_DIR, capture_output=True, text=True, env=clean_env(), timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert "name one room with --room (the archive has: 'Arithmetic')" in done.stderr


async def test_without_model_the_replay_runs_offline_on_the_scripted_model(
    tmp_path: Path,
) -> None:
    archive = await _original_room(tmp_path)
    done = subprocess.run(
        [str(PROJECT_PYTHON), "-m", "band.cli", "replay", str(archive),
         "--adapter", "chat_adapter:ChatCompletionsAdapter", "--out", str(tmp_path / "report")],
        cwd=SEED_DIR, capture_output=True, text=True, env=clean_env(), timeout=100,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    assert "answered 3/3 now (3/3 then), 0 the same" in done.stdout
    report: dict[str, Any] = json.loads((tmp_path / "report" / "replay.json").read_text())
    assert report["model"].startswith("fake")
    answers = [c["replay"]["content"] for c in report["cases"]]
    # band.testing's default policy answers the speaker and repeats what they said.
    assert [a.startswith("@alice Hi Alice!") for a in answers] == [True] * 3, answers
    assert "You said: and 3+3?" in answers[1]
