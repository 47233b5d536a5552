/** The `Agent` and `AgentRuntime` against a real platform: replies, the `/next` drain at start
 * and after a reconnect, failures, serial rooms. */

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { Agent, AgentRuntime, BandLink, GenericAdapter, type GenericAdapterArgs, type PlatformEvent } from "../src/index.js";
import { TcpProxy } from "./support/proxy.js";
import { agentInRoom, person, until, usePlatform, type Platform } from "./support/platform.js";

let platform: Platform;

before(async () => {
  platform = await usePlatform();
});

after(async () => {
  await platform.stop();
});

// No idle resync within a test: a message must come by push, the start drain or the reconnect drain.
const FAST = { idleResyncMs: 600_000, workingKeepAliveMs: 500 };

async function agentTexts(roomId: string, agentId: string): Promise<string[]> {
  const messages = await person(platform).listMessages(roomId);
  return messages.filter((m) => m.sender_id === agentId && m.message_type === "text").map((m) => m.content);
}

function echoAgent(agent: { agentId: string; apiKey: string }, seen: GenericAdapterArgs[] = [], wsUrl = platform.wsUrl): Agent {
  const adapter = new GenericAdapter(async (args) => {
    seen.push(args);
    await args.tools.sendMessage(`echo: ${args.message.content}`, [{ id: args.message.senderId }]);
  });
  return Agent.create({
    adapter,
    config: { ...agent, wsUrl, restUrl: platform.restUrl },
    agentConfig: { autoSubscribeExistingRooms: true },
    sessionConfig: FAST,
  });
}

describe("Agent with a GenericAdapter", () => {
  it("answers a mention in the room, mentioning the sender, and settles the message", async () => {
    const agent = await agentInRoom(platform);
    const seen: GenericAdapterArgs[] = [];
    const running = echoAgent(agent, seen);
    await running.start();
    try {
      await person(platform).sendMessage(agent.roomId, "ping", [agent.agentId]);
      const texts = await until(async () => (await agentTexts(agent.roomId, agent.agentId)).find((t) => t.includes("echo:")), "the reply");
      assert.match(texts, /echo: @\S+ ping/);
      assert.match(texts, /@\[\[[^\]]+\]\]|@alice/, "the reply mentions the sender");
      const first = seen[0];
      assert.ok(first);
      assert.equal(first.agentName.startsWith("Helper"), true);
      assert.equal(first.isSessionBootstrap, true);
      assert.match(first.participantsMessage ?? "", /## Current Participants\n- @alice — Alice \(User\)/);
      const link = new BandLink({ ...agent, restUrl: platform.restUrl, wsUrl: platform.wsUrl });
      await until(async () => (await link.getNextMessage(agent.roomId)) === null, "the message to be processed");
    } finally {
      await running.stop();
    }
  });

  it("drains a message posted while it was offline when it starts", async () => {
    const agent = await agentInRoom(platform);
    await person(platform).sendMessage(agent.roomId, "while you were away", [agent.agentId]);
    const running = echoAgent(agent);
    await running.start();
    try {
      await until(async () => (await agentTexts(agent.roomId, agent.agentId)).some((t) => t.includes("while you were away")), "the drained reply");
    } finally {
      await running.stop();
    }
  });

  it("after its socket drops, answers a mention posted meanwhile once it reconnects", async () => {
    const agent = await agentInRoom(platform);
    const proxy = new TcpProxy(platform.port);
    const port = await proxy.start();
    const running = echoAgent(agent, [], `ws://127.0.0.1:${port}/api/v1/socket/websocket`);
    await running.start();
    try {
      proxy.cut();
      await until(() => !running.runtime.link.isConnected, "the socket to drop");
      await person(platform).sendMessage(agent.roomId, "sent during the outage", [agent.agentId]);
      proxy.resume();
      await until(async () => (await agentTexts(agent.roomId, agent.agentId)).some((t) => t.includes("sent during the outage")), "the reply after reconnect", 30_000);
      assert.equal(running.runtime.link.lastDisconnectReason?.retryable, true);
    } finally {
      await running.stop();
      await proxy.close();
    }
  });

  it("when the adapter throws, marks the message failed and posts one error event", async () => {
    const agent = await agentInRoom(platform);
    const adapter = new GenericAdapter(() => Promise.reject(new Error("model exploded")));
    const running = Agent.create({ adapter, config: { ...agent, wsUrl: platform.wsUrl, restUrl: platform.restUrl }, sessionConfig: FAST });
    await running.start();
    try {
      await person(platform).sendMessage(agent.roomId, "fail please", [agent.agentId]);
      const errors = await until(async () => {
        const messages = await person(platform).listMessages(agent.roomId);
        const found = messages.filter((m) => m.sender_id === agent.agentId && m.message_type === "error");
        return found.length ? found : null;
      }, "the error event");
      assert.equal(errors.length, 1);
      assert.equal(errors[0]?.content, "Internal error while processing message; see agent logs.");
      const link = new BandLink({ ...agent, restUrl: platform.restUrl, wsUrl: platform.wsUrl });
      const next = await link.getNextMessage(agent.roomId);
      assert.match(next?.content ?? "", /fail please/, "a failed message is served again by /next");
    } finally {
      await running.stop();
    }
  });

  it("refuses to start an agent whose key is wrong", async () => {
    const agent = await agentInRoom(platform);
    const running = echoAgent({ agentId: agent.agentId, apiKey: "band_a_wrong" });
    await assert.rejects(running.start(), /401|403|invalid|unauthori/i);
  });
});

describe("AgentRuntime", () => {
  it("runs a room's events one at a time, admits a room it is added to, and claims around the handler", async () => {
    const agent = await agentInRoom(platform);
    const link = new BandLink({ ...agent, restUrl: platform.restUrl, wsUrl: platform.wsUrl });
    const order: string[] = [];
    let active = 0;
    let overlapped = false;
    const joined: string[] = [];
    const runtime = new AgentRuntime({
      link,
      agentConfig: { autoSubscribeExistingRooms: true },
      sessionConfig: FAST,
      onRoomJoined: (roomId) => joined.push(roomId),
      onExecute: async (_ctx, event: PlatformEvent) => {
        if (event.type !== "message_created") return;
        active += 1;
        overlapped ||= active > 1;
        await new Promise((done) => setTimeout(done, 150));
        order.push(event.payload.content);
        active -= 1;
      },
    });
    await runtime.start();
    try {
      assert.deepEqual(joined, [agent.roomId]);
      const human = person(platform);
      for (const n of [1, 2, 3]) await human.sendMessage(agent.roomId, `m${n}`, [agent.agentId]);
      await until(() => order.length === 3, "three turns");
      assert.deepEqual(order.map((c) => c.replace(/^@\S+\s*/, "").replace(/^@\[\[[^\]]+\]\]\s*/, "")), ["m1", "m2", "m3"]);
      assert.equal(overlapped, false);
      await until(async () => (await link.getNextMessage(agent.roomId)) === null, "all three to be acknowledged");
      const room = await human.createChat("Added later");
      await human.addParticipant(room.id, agent.agentId);
      await until(() => joined.includes(room.id), "the new room to be admitted");
    } finally {
      await runtime.stop();
    }
  });
});
