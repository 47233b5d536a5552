/** The channel's pieces without a gateway: accounts, the inbound context, outbound mentions,
 * the tools and the manifest. (The real gateway runs in tests/typescript/test_openclaw_channel.py.) */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

import type { AgentRestClient, BandLink, PlatformMessage } from "openband";

import entry, {
  BAND_INSTRUCTIONS,
  BAND_TOOL_NAMES,
  bandTools,
  connectionOf,
  createBandChannel,
  inboundContext,
  inspectAccount,
  listAccountIds,
  resolveAccount,
  sendToRoom,
} from "../src/index.js";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { dropLive, lastSendersFile, loadLastSenders, noteSender, setLive, type LiveAccount } from "../src/state.js";

const ROOM = "11111111-1111-1111-1111-111111111111";
const ALICE = { id: "u-alice", name: "Alice", type: "User", handle: "alice", description: null };
const BOB = { id: "u-bob", name: "Bob", type: "User", handle: "bob", description: null };
const SELF = { id: "a-self", name: "OpenClaw", type: "Agent", handle: "alice/openclaw", description: null };

function fakeAccount(members = [ALICE, BOB, SELF]): { account: LiveAccount; posts: { room: string; content: string; mentions: unknown }[] } {
  const posts: { room: string; content: string; mentions: unknown }[] = [];
  const rest = {
    listParticipants: () => Promise.resolve(members.map((m) => ({ ...m }))),
    postMessage: (room: string, content: string, mentions: unknown) => {
      posts.push({ room, content, mentions });
      return Promise.resolve({ id: "m-1", success: true, recipients: [] });
    },
  } as unknown as AgentRestClient;
  const account: LiveAccount = {
    accountId: "default",
    link: { rest } as unknown as BandLink,
    runtime: undefined as unknown as LiveAccount["runtime"],
    selfId: SELF.id,
    ownerId: ALICE.id,
    lastSenders: new Map(),
  };
  return { account, posts };
}

describe("accounts", () => {
  it("reads channels.band.accounts, falls back to BAND_* and refuses without credentials", () => {
    const cfg = { channels: { band: { accounts: { work: { apiKey: "k", agentId: "a", restUrl: "http://r" } } } } };
    assert.deepEqual(listAccountIds(cfg, {}), ["work"]);
    assert.deepEqual(listAccountIds({}, { BAND_API_KEY: "k", BAND_AGENT_ID: "a" }), ["default"]);
    const work = resolveAccount(cfg, "work", {});
    assert.deepEqual(connectionOf(work), { agentId: "a", apiKey: "k", restUrl: "http://r", wsUrl: process.env.BAND_WS_URL ?? "wss://app.band.ai/api/v1/socket/websocket" });
    assert.throws(() => connectionOf(resolveAccount({}, "missing", {})), /apiKey is required/);
    const status = inspectAccount(cfg, "work");
    assert.equal(status.configured, true);
    assert.ok(!JSON.stringify(status).includes('"k"'), "no secret in the status");
  });
});

describe("inbound", () => {
  const message: PlatformMessage = {
    id: "m-9",
    roomId: ROOM,
    content: "@alice/openclaw who is here?",
    senderId: BOB.id,
    senderType: "User",
    senderName: "Bob",
    messageType: "text",
    metadata: {},
    createdAt: new Date("2026-01-01T00:00:00Z"),
  };

  it("shows the agent the text, the roster and the room, and keeps commands raw", () => {
    const ctx = inboundContext(message, { accountId: "default", selfId: SELF.id, ownerId: ALICE.id, participants: [ALICE, BOB, SELF] });
    assert.equal(ctx.BodyForAgent, `@alice/openclaw who is here?\n\n## Current Participants\n- @alice — Alice (User)\n- @bob — Bob (User)\nIMPORTANT: Use the exact handles above in band_send_message mentions.\n\n[Band Room: ${ROOM}]`);
    assert.equal(ctx.CommandBody, message.content);
    assert.equal(ctx.To, ROOM);
    assert.equal(ctx.ChatType, "group");
    assert.equal(ctx.CommandAuthorized, false, "only the agent's owner may run commands");
  });

  it("a room of the agent and one person is a direct chat; the owner may run commands", () => {
    const ctx = inboundContext({ ...message, senderId: ALICE.id }, { accountId: "default", selfId: SELF.id, ownerId: ALICE.id, participants: [ALICE, SELF] });
    assert.equal(ctx.ChatType, "direct");
    assert.equal(ctx.CommandAuthorized, true);
  });
});

describe("outbound", () => {
  it("mentions the handles written in the text", async () => {
    const { account, posts } = fakeAccount();
    await sendToRoom(account, ROOM, "Thanks @bob, over to you");
    assert.deepEqual(posts[0]?.mentions, [{ id: BOB.id, handle: "bob" }]);
  });

  it("otherwise mentions the last person who spoke to the agent in that room", async () => {
    const { account, posts } = fakeAccount();
    account.lastSenders.set(ROOM, { id: BOB.id, handle: "bob" });
    await sendToRoom(account, ROOM, "Done.");
    assert.deepEqual(posts[0]?.mentions, [{ id: BOB.id, handle: "bob" }]);
  });

  it("with a stateDir, remembers whom to mention across a restart", async () => {
    const file = lastSendersFile(mkdtempSync(join(tmpdir(), "band-state-")), "work account");
    const before = fakeAccount().account;
    before.stateFile = file;
    noteSender(before, ROOM, { id: BOB.id, handle: "bob" });
    const { account: after, posts } = fakeAccount();
    after.lastSenders = loadLastSenders(file);
    await sendToRoom(after, ROOM, "Back again.");
    assert.deepEqual(posts[0]?.mentions, [{ id: BOB.id, handle: "bob" }]);
    assert.ok(file.endsWith("work_account.last-senders.json"));
  });

  it("refuses a room with nobody else, and an empty text", async () => {
    const { account } = fakeAccount([SELF]);
    await assert.rejects(sendToRoom(account, ROOM, "hello"), /nobody else to mention/);
    await assert.rejects(sendToRoom(fakeAccount().account, ROOM, "  "), /empty/);
  });
});

describe("tools", () => {
  it("registers the 13 Band tools with the SDK's schemas, room-scoped ones taking room_id", () => {
    const tools = bandTools();
    assert.deepEqual(tools.map((t) => t.name), [...BAND_TOOL_NAMES]);
    const participants = tools.find((t) => t.name === "band_get_participants");
    assert.ok(participants);
    assert.deepEqual(Object.keys((participants.parameters as { properties: object }).properties), ["room_id"]);
    const send = tools.find((t) => t.name === "band_send_message");
    assert.deepEqual((send?.parameters as { required?: string[] }).required, ["content", "mentions"]);
  });

  it("runs in the conversation's Band room and answers errors as text for the model", async () => {
    const { account, posts } = fakeAccount();
    setLive(account);
    try {
      const [send] = bandTools({ channel: "band", to: ROOM, accountId: "default" });
      assert.equal(send?.name, "band_send_message");
      assert.ok(send);
      await send.execute("call-1", { content: "hi @bob", mentions: ["bob"] });
      assert.deepEqual(posts.map((p) => p.room), [ROOM]);
      const get = bandTools({ channel: "telegram" }).find((t) => t.name === "band_get_participants");
      const answer = await get?.execute("call-2", {});
      assert.match(answer?.content[0]?.text ?? "", /needs a Band room: this conversation is not in one, so pass room_id/);
    } finally {
      dropLive("default");
    }
  });

  it("says so when no Band account is running", async () => {
    const [send] = bandTools({ channel: "band", to: ROOM });
    await assert.rejects(send?.execute("call-3", { content: "x", mentions: ["bob"] }) ?? Promise.resolve(), /Band is not connected/);
  });
});

describe("the plugin", () => {
  it("is the `band` channel with Band's instructions as its agent prompt", () => {
    assert.equal(entry.id, "band");
    const plugin = createBandChannel(false);
    assert.equal(plugin.id, "band");
    assert.deepEqual(plugin.agentPrompt?.messageToolHints?.({ cfg: {}, accountId: null }), [BAND_INSTRUCTIONS]);
  });

  it("declares the same channel and tools in package.json and openclaw.plugin.json", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { openclaw: { channel: { id: string; label: string }; extensions: string[]; setupEntry: string } };
    const manifest = JSON.parse(readFileSync(new URL("../openclaw.plugin.json", import.meta.url), "utf8")) as {
      id: string;
      kind: string;
      channels: string[];
      contracts: { tools: string[] };
      configSchema: { properties: { accounts: { additionalProperties: { properties: Record<string, unknown> } } } };
    };
    assert.equal(pkg.openclaw.channel.id, manifest.id);
    assert.equal(manifest.kind, "channel");
    assert.deepEqual(manifest.channels, ["band"]);
    assert.deepEqual(manifest.contracts.tools, [...BAND_TOOL_NAMES]);
    const fields = Object.keys(manifest.configSchema.properties.accounts.additionalProperties.properties);
    for (const field of ["apiKey", "agentId", "wsUrl", "restUrl", "stateDir"]) assert.ok(fields.includes(field), field);
    assert.deepEqual([pkg.openclaw.extensions, pkg.openclaw.setupEntry], [["./dist/index.js"], "./dist/setup-entry.js"]);
  });
});
