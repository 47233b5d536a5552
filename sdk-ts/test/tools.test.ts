/** The platform tools of one room: dispatch by the model's names, argument validation with the
 * Python SDK's schemas, mention resolution, turn effects. */

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { AgentRestClient, AgentTools, BandToolError } from "../src/index.js";
import { agentInRoom, person, usePlatform, type Platform } from "./support/platform.js";

let platform: Platform;
let tools: AgentTools;
let roomId: string;
let agentId: string;

before(async () => {
  platform = await usePlatform();
  const agent = await agentInRoom(platform, "Toolbox");
  roomId = agent.roomId;
  agentId = agent.agentId;
  const rest = new AgentRestClient(platform.restUrl, agent.apiKey);
  tools = new AgentTools({ rest, roomId, agentId });
  await tools.getParticipants();
});

after(async () => {
  await platform.stop();
});

describe("AgentTools", () => {
  it("band_get_participants returns the room's roster with handles", async () => {
    const members = (await tools.executeToolCall("band_get_participants", {})) as { id: string; handle?: string }[];
    const handles = members.map((m) => m.handle).sort();
    assert.equal(handles.length, 2);
    assert.ok(handles.includes("alice"));
    assert.ok(members.some((m) => m.id === agentId));
  });

  it("band_send_message posts to the room, resolving a handle to the participant", async () => {
    const sent = (await tools.executeToolCall("mcp__band__band_send_message", { content: "hello @alice", mentions: ["@alice"] })) as { id: string; recipients: { handle: string }[] };
    assert.deepEqual(sent.recipients.map((r) => r.handle), ["alice"]);
    const messages = await person(platform).listMessages(roomId);
    assert.ok(messages.some((m) => m.id === sent.id && m.sender_id === agentId));
    assert.equal(tools.turn.replied, true);
  });

  it("explains bad arguments and unknown tools to the model instead of throwing", async () => {
    assert.match(String(await tools.executeToolCall("band_send_message", { content: "hi" })), /^Invalid arguments for band_send_message: mentions: /);
    assert.match(String(await tools.executeToolCall("band_send_event", { content: "x", message_type: "shout" })), /message_type/);
    assert.equal(await tools.executeToolCall("band_fly", {}), "Unknown tool: band_fly");
    assert.match(String(await tools.executeToolCall("band_remove_participant", { identifier: "nobody" })), /Unknown participant 'nobody'. Available handles: \["alice"\]/);
  });

  it("refuses a message that mentions nobody with the handles it could mention", async () => {
    await assert.rejects(tools.sendMessage("hello", []), (e: unknown) => e instanceof BandToolError && e.message.includes('["alice"]'));
  });

  it("band_send_event posts a thought; band_lookup_peers and band_list_contacts answer pages", async () => {
    await tools.executeToolCall("band_send_event", { content: "thinking", message_type: "thought" });
    const messages = await person(platform).listMessages(roomId);
    assert.ok(messages.some((m) => m.message_type === "thought" && m.content === "thinking"));
    const peers = (await tools.executeToolCall("band_lookup_peers", {})) as { data: unknown[]; metadata: Record<string, unknown> };
    assert.ok(Array.isArray(peers.data));
    const contacts = (await tools.executeToolCall("band_list_contacts", { page_size: 10 })) as { data: unknown[] };
    assert.ok(Array.isArray(contacts.data));
  });

  it("offers the 13 chat and contact tools to models in OpenAI and Anthropic form", () => {
    const openai = tools.getToolSchemas("openai");
    const anthropic = tools.getToolSchemas("anthropic");
    assert.equal(openai.length, 13);
    assert.deepEqual(openai.map((s) => s.function.name), anthropic.map((s) => s.name));
    assert.ok(anthropic.every((s) => s.input_schema.type === "object"));
  });
});
