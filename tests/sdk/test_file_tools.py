"""The file tools (band_list_room_files, band_read_room_file, band_send_room_file): schemas,
behaviour through FakeAgentTools, and the real AgentTools against the platform in-process."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI
from test_rest_server import make_room

from band.core.exceptions import BandToolError
from band.core.types import Capability
from band.platform import BandRestClient, BandRestError
from band.runtime.tools import FILE_TOOL_NAMES, TASK_TOOL_NAMES, AgentTools
from band.testing import FakeAgentTools
from band_sdk_core import TurnEffect
from band_server.context import Platform
from conftest import Seeded

ALICE = {"id": "u-alice", "name": "Alice", "handle": "alice", "type": "User"}
PNG = b"\x89PNG\r\n\x1a\n" + bytes(32)


def fake(**kwargs: object) -> FakeAgentTools:
    return FakeAgentTools(participants=[ALICE], agent_id="a-echo", **kwargs)  # type: ignore[arg-type]


# -- schemas ---------------------------------------------------------------------------------


def names(schemas: list[dict[str, object]], key: str) -> list[str]:
    return [str(s[key] if key == "name" else s["function"]["name"]) for s in schemas]  # type: ignore[index]


def test_file_and_task_tools_are_in_both_schema_formats_only_with_their_capability() -> None:
    tools = fake()
    openai = names(tools.get_openai_tool_schemas(capabilities={Capability.FILES}), "function")
    anthropic = names(tools.get_anthropic_tool_schemas(capabilities={Capability.FILES}), "name")
    assert set(openai) >= FILE_TOOL_NAMES and set(anthropic) >= FILE_TOOL_NAMES
    assert not TASK_TOOL_NAMES & set(openai)
    tasks = names(tools.get_openai_tool_schemas(capabilities={Capability.TASKS}), "function")
    assert set(tasks) >= TASK_TOOL_NAMES and not FILE_TOOL_NAMES & set(tasks)
    assert not (FILE_TOOL_NAMES | TASK_TOOL_NAMES) & set(
        names(tools.get_openai_tool_schemas(), "function")
    )
    everything = tools.get_anthropic_tool_schemas(capabilities=set(Capability))
    assert len(everything) == 28
    assert names(everything, "name")[-10:] == [
        "band_list_room_files",
        "band_read_room_file",
        "band_send_room_file",
        "band_list_tasks",
        "band_create_task",
        "band_get_task",
        "band_update_task",
        "band_get_task_history",
        "band_get_board",
        "band_set_board",
    ]
    [send] = [s for s in everything if s["name"] == "band_send_room_file"]
    assert set(send["input_schema"]["required"]) == {"content", "filename", "mentions"}


# -- behaviour (FakeAgentTools) --------------------------------------------------------------


async def test_send_room_file_uploads_posts_and_counts_as_the_reply() -> None:
    tools = fake()
    result = await tools.execute_tool_call(
        "band_send_room_file",
        {"content": "line 1\nline 2\n", "filename": "notes.txt", "mentions": ["alice"]},
    )
    attachment = result["attachment"]
    assert attachment["name"] == "notes.txt" and attachment["bytes"] == 14
    assert result["message_id"] == tools.messages_sent[-1]["id"]
    assert tools.messages_sent[-1]["content"] == "Shared a file: notes.txt"
    assert tools.messages_sent[-1]["attachment_ids"] == [attachment["id"]]
    assert tools.turn.replied
    read = await tools.read_room_file(attachment["id"])
    assert read["text"] == "line 1\nline 2\n"


async def test_send_room_file_refuses_bad_names_big_content_and_missing_mentions() -> None:
    tools = fake()
    with pytest.raises(BandToolError, match="printable ASCII"):
        await tools.send_room_file("x", "r\u00e9sum\u00e9.txt", mentions=["alice"])
    with pytest.raises(BandToolError, match="printable ASCII"):
        await tools.send_room_file("x", "two\nlines.txt", mentions=["alice"])
    with pytest.raises(BandToolError, match="1000000-byte limit"):
        await tools.send_room_file("x" * 1_000_001, "big.txt", mentions=["alice"])
    with pytest.raises(BandToolError, match="At least one mention"):
        await tools.send_room_file("x", "a.txt", mentions=[])
    assert tools.files == [] and tools.messages_sent == []
    assert not tools.turn.replied


async def test_read_room_file_inlines_small_text_and_images_and_describes_the_rest() -> None:
    tools = fake(
        files=[
            {"id": "f-text", "name": "a.md", "content_type": "text/markdown", "content": "# Hi"},
            {"id": "f-png", "name": "p.png", "content_type": "image/png", "content": PNG},
            {"id": "f-bin", "name": "x.zip", "content_type": "application/zip", "content": b"PK"},
            {"id": "f-big", "name": "b.txt", "content_type": "text/plain", "content": "x" * 17000},
            {"id": "f-bad", "name": "l.txt", "content_type": "text/plain", "content": b"\xff ok"},
        ]
    )
    assert (await tools.read_room_file("f-text"))["text"] == "# Hi"
    image = await tools.read_room_file("f-png")
    assert image == {
        "content": [
            {"type": "image", "data": base64.b64encode(PNG).decode(), "mimeType": "image/png"}
        ]
    }
    binary = await tools.read_room_file("f-bin")
    assert "not a previewable text or image type" in binary["description"]
    assert "text" not in binary
    big = await tools.read_room_file("f-big")
    assert "16384-byte inline text limit" in big["description"] and big["bytes"] == 17000
    bad = await tools.read_room_file("f-bad")
    assert bad["text"] == "\ufffd ok" and "not valid UTF-8" in bad["description"]
    with pytest.raises(BandToolError, match="File not found"):
        await tools.read_room_file("f-none")
    listed = await tools.execute_tool_call("band_list_room_files", {})
    assert [f["id"] for f in listed["data"]] == ["f-text", "f-png", "f-bin", "f-big", "f-bad"]
    assert "content" not in listed["data"][0]
    assert not tools.turn.complete  # reads only observe


async def test_a_message_naming_an_unknown_file_is_refused_like_the_platform_does() -> None:
    tools = fake()
    with pytest.raises(BandRestError) as info:
        await tools.send_message("see", ["alice"], attachment_ids=["nope"])
    assert (info.value.status, info.value.code) == (422, "unknown_attachment")
    assert tools.messages_sent == [] and not tools.turn.replied
    with pytest.raises(BandToolError, match="File not found"):  # re-raised, as BandToolError is
        await tools.execute_tool_call("band_read_room_file", {"file_id": "missing"})


def test_send_room_file_effect_is_reply() -> None:
    from band.runtime.tools import turn_effect

    assert turn_effect("band_send_room_file") is TurnEffect.REPLY
    assert turn_effect("band_read_room_file") is TurnEffect.OBSERVE


# -- the real tools against the platform -----------------------------------------------------


@pytest.fixture
async def agent_rest(app: FastAPI, seeded: Seeded) -> AsyncIterator[BandRestClient]:
    transport = httpx.ASGITransport(app=app)
    async with BandRestClient("http://band.test", seeded.agent_key, transport=transport) as c:
        yield c


async def test_agent_tools_share_a_file_a_person_downloads_and_read_a_persons_file(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded, agent_rest: BandRestClient
) -> None:
    room_id = await make_room(platform, seeded.user_id, seeded.agent_id)
    roster = await agent_rest.get_participants(room_id)
    tools = AgentTools(room_id, agent_rest, roster, agent_id=seeded.agent_id)

    sent = await tools.send_room_file("quarterly numbers\n", "report.txt", mentions=["alice"])
    file_id = sent["attachment"]["id"]
    alice = {"X-API-Key": seeded.user_key}
    got = await client.get(f"/api/v1/me/chats/{room_id}/files/{file_id}", headers=alice)
    assert got.content == b"quarterly numbers\n"
    listed = await client.get(f"/api/v1/me/chats/{room_id}/messages", headers=alice)
    [shared] = [m for m in listed.json()["data"] if m["id"] == sent["message_id"]]
    assert shared["content"].endswith("Shared a file: report.txt")
    assert [a["id"] for a in shared["attachments"]] == [file_id]

    upload = await client.put(
        f"/api/v1/me/chats/{room_id}/files",
        headers={**alice, "x-file-name": "brief.md", "content-type": "text/markdown"},
        content=b"# Brief\nDo the thing.\n",
    )
    theirs = upload.json()["data"]
    await client.post(
        f"/api/v1/me/chats/{room_id}/messages",
        headers=alice,
        json={
            "message": {
                "content": "read this please",
                "mentions": [{"id": seeded.agent_id}],
                "attachment_ids": [theirs["id"]],
            }
        },
    )
    files = await tools.execute_tool_call("band_list_room_files", {})
    assert {f["id"] for f in files["data"]} == {file_id, theirs["id"]}
    read = await tools.execute_tool_call("band_read_room_file", {"file_id": theirs["id"]})
    assert read["text"] == "# Brief\nDo the thing.\n"
    assert read["content_type"] == "text/markdown"
    with pytest.raises(BandToolError, match="File not found"):
        await tools.read_room_file("00000000-0000-0000-0000-000000000000")


async def test_anthropic_adapter_passes_an_image_from_read_room_file_as_an_image_block() -> None:
    pytest.importorskip("anthropic")
    from band.adapters import AnthropicAdapter
    from band.adapters._loop import ModelCall, ToolOutcome
    from band.adapters._tool_events import as_text

    tools = fake(
        files=[{"id": "f-png", "name": "p.png", "content_type": "image/png", "content": PNG}]
    )
    output = as_text(await tools.read_room_file("f-png"))
    adapter = AnthropicAdapter(client=object())  # type: ignore[arg-type]
    call = ModelCall(id="t1", name="band_read_room_file", args={"file_id": "f-png"})
    [message] = adapter.tool_results([ToolOutcome(call, output, False)])
    [block] = message["content"]
    assert block["content"] == [
        {
            "type": "image",
            "source": {
                "type": "base64",
                "media_type": "image/png",
                "data": base64.b64encode(PNG).decode(),
            },
        }
    ]
    [plain] = adapter.tool_results([ToolOutcome(call, '{"content": "text"}', False)])[0]["content"]
    assert plain["content"] == '{"content": "text"}'
