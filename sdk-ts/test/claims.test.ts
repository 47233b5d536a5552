/** The claim carried by the push, against a real platform: the `Agent` asks for it
 * (`claim_on_push`), so a message pushed into an idle room arrives claimed and its turn sends
 * no `/processing`; behind a platform that does not hear the ask, a push claimed while a turn
 * runs, or a stopped room, the message is claimed over REST as before. Requests are counted
 * at the agent's `fetch`; the indicator as people see it (`agent_activity` on the room). */

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import type { Channel } from "phoenix";

import { Agent, AgentRestClient, GenericAdapter, type SessionConfig } from "../src/index.js";
import { BandSocket, joinChannel } from "../src/platform/socket.js";
import { TcpProxy } from "./support/proxy.js";
import { agentInRoom, person, until, usePlatform, type Platform } from "./support/platform.js";

let platform: Platform;

before(async () => {
  platform = await usePlatform();
});

after(async () => {
  await platform.stop();
});

// No idle resync within a test: a message comes by push, or by the drain after play.
const FAST: Partial<SessionConfig> = { idleResyncMs: 600_000, workingKeepAliveMs: 60_000 };

/** The agent's REST requests, in order (`METHOD path`), and the `working` of each `/activity`. */
class Counting {
  public readonly seen: string[] = [];
  public readonly activity: boolean[] = [];

  public readonly fetch: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    this.seen.push(`${init?.method ?? "GET"} ${url.pathname}`);
    if (url.pathname.endsWith("/activity") && typeof init?.body === "string") {
      this.activity.push((JSON.parse(init.body) as { working: boolean }).working);
    }
    return globalThis.fetch(input, init);
  };

  public calls(roomId: string, suffix: string): number {
    return this.seen.filter((r) => r.includes(`/chats/${roomId}/`) && r.endsWith(suffix)).length;
  }
}

/** The `agent_activity` pushes a person in the room gets, in order. */
async function watchIndicator(roomId: string): Promise<{ working: boolean[]; close: () => void }> {
  const socket = new BandSocket(platform.wsUrl, platform.userKey, () => ({}), { onOpen: () => undefined, onClose: () => undefined });
  await socket.connect();
  const channel: Channel = socket.channel(`chat_room:${roomId}`);
  const working: boolean[] = [];
  channel.on("agent_activity", (payload: { working: boolean }) => {
    working.push(payload.working);
  });
  await joinChannel(channel, `chat_room:${roomId}`);
  return {
    working,
    close: () => {
      socket.end(null);
    },
  };
}

/** An adapter that records each message id and, while `gate` is set, waits for it. */
function recording(): { adapter: GenericAdapter; turns: string[]; hold: () => () => void } {
  const turns: string[] = [];
  let gate: Promise<void> | null = null;
  const adapter = new GenericAdapter(async ({ message }) => {
    turns.push(message.id);
    await gate;
  });
  const hold = (): (() => void) => {
    let release = (): void => undefined;
    gate = new Promise((done) => (release = done));
    return release;
  };
  return { adapter, turns, hold };
}

/** Alice mentions the agent; the message's id. */
async function say(roomId: string, content: string, agentId: string): Promise<string> {
  const { id } = await person(platform).sendMessage(roomId, content, [agentId]);
  assert.ok(id, "the post has an id");
  return id;
}

async function deliveryStatus(roomId: string, messageId: string, agentId: string): Promise<string> {
  const message = (await person(platform).listMessages(roomId)).find((m) => m.id === messageId);
  const status = (message?.metadata?.delivery_status ?? {}) as Record<string, { status?: string } | undefined>;
  return status[agentId]?.status ?? "missing";
}

async function untilStatus(roomId: string, messageId: string, agentId: string, wanted: string): Promise<void> {
  await until(async () => (await deliveryStatus(roomId, messageId, agentId)) === wanted, `${messageId} to be ${wanted}`);
}

interface Started {
  agent: Agent;
  roomId: string;
  agentId: string;
  apiKey: string;
  counting: Counting;
  indicator: { working: boolean[]; close: () => void };
  stop: () => Promise<void>;
}

/** An agent in a fresh room, started, its first `/next` drain over (a post from now on
 * reaches it as a push), and a person watching the room's indicator. */
async function started(adapter: GenericAdapter, options: { session?: Partial<SessionConfig>; wsUrl?: string } = {}): Promise<Started> {
  const { agentId, apiKey, roomId } = await agentInRoom(platform);
  const counting = new Counting();
  const agent = Agent.create({
    adapter,
    config: { agentId, apiKey, wsUrl: options.wsUrl ?? platform.wsUrl, restUrl: platform.restUrl },
    sessionConfig: { ...FAST, ...options.session },
    http: { fetch: counting.fetch },
  });
  const indicator = await watchIndicator(roomId);
  await agent.start();
  await until(() => agent.runtime.executions.get(roomId)?.state === "idle", "the start drain to end");
  const stop = async (): Promise<void> => {
    indicator.close();
    await agent.stop(5_000);
  };
  return { agent, roomId, agentId, apiKey, counting, indicator, stop };
}

describe("the claim carried by the push", () => {
  it("a mention pushed into an idle room comes claimed: its turn sends one mark and no /activity", async () => {
    const { adapter, turns } = recording();
    const { roomId, agentId, counting, indicator, stop } = await started(adapter);
    try {
      const id = await say(roomId, "hello", agentId);
      await untilStatus(roomId, id, agentId, "processed");
      assert.deepEqual(turns, [id]);
      assert.equal(counting.calls(roomId, "/processing"), 0);
      assert.equal(counting.calls(roomId, "/processed"), 1);
      assert.equal(counting.calls(roomId, "/activity"), 0);
      await until(() => indicator.working.length === 2, "the indicator to start and end");
      assert.deepEqual(indicator.working, [true, false]);
    } finally {
      await stop();
    }
  });

  it("with working state off it asks for the claim alone: no /processing, no indicator", async () => {
    const { adapter } = recording();
    const { roomId, agentId, counting, indicator, stop } = await started(adapter, { session: { enableWorkingState: false } });
    try {
      const id = await say(roomId, "quietly", agentId);
      await untilStatus(roomId, id, agentId, "processed");
      assert.equal(counting.calls(roomId, "/processing"), 0);
      assert.equal(counting.calls(roomId, "/activity"), 0);
      assert.deepEqual(indicator.working, []);
    } finally {
      await stop();
    }
  });

  it("behind a platform that does not hear the ask, the turn claims over REST as before", async () => {
    const proxy = new TcpProxy(platform.port, (head) => head.replace(/&?claim_on_push=[a-z]+/, ""));
    const port = await proxy.start();
    const { adapter, turns } = recording();
    const wsUrl = `ws://127.0.0.1:${port}/api/v1/socket/websocket`;
    const { roomId, agentId, counting, indicator, stop } = await started(adapter, { wsUrl });
    try {
      const id = await say(roomId, "hello", agentId);
      await untilStatus(roomId, id, agentId, "processed");
      assert.deepEqual(turns, [id]);
      assert.equal(counting.calls(roomId, "/processing"), 1);
      assert.equal(counting.calls(roomId, "/activity"), 0, "the claim's Band-Working started the indicator");
      await until(() => indicator.working.length === 2, "the indicator to start and end");
      assert.deepEqual(indicator.working, [true, false]);
      assert.ok(proxy.rewritten > 0, "the proxy saw the socket's ask");
    } finally {
      await stop();
      await proxy.close();
    }
  });

  it("a push claimed while a turn runs is claimed again over REST when its turn comes", async () => {
    const { adapter, turns, hold } = recording();
    const release = hold();
    const { roomId, agentId, apiKey, counting, indicator, stop } = await started(adapter);
    try {
      const first = await say(roomId, "first", agentId);
      await until(() => turns.length === 1, "the first turn");
      // Settled from outside, so the platform sees no live attempt and claims the next post.
      assert.equal(await new AgentRestClient(platform.restUrl, apiKey).markProcessed(roomId, first), "ok");
      const second = await say(roomId, "second", agentId);
      await until(() => indicator.working.length === 3, "the second post's claim to start the indicator");
      assert.deepEqual(indicator.working, [true, false, true]);
      release();
      await untilStatus(roomId, second, agentId, "processed");
      assert.deepEqual(turns, [first, second]);
      assert.equal(counting.calls(roomId, `/${second}/processing`), 1, "claimed over REST");
      assert.equal(counting.calls(roomId, `/${first}/processing`), 0);
    } finally {
      release();
      await stop();
    }
  });

  it("a stopped room ends the indicator its push started and runs the message after play", async () => {
    const { adapter, turns } = recording();
    const { agent, roomId, agentId, counting, indicator, stop } = await started(adapter);
    try {
      const execution = agent.runtime.executions.get(roomId);
      assert.ok(execution);
      execution.stopRoom(); // what a room-scoped stop control does
      const id = await say(roomId, "while stopped", agentId);
      await until(() => counting.activity.length === 1, "the room to end the indicator");
      assert.deepEqual(counting.activity, [false]);
      await until(() => indicator.working.length === 2, "people to see it end");
      assert.deepEqual(indicator.working, [true, false]);
      assert.deepEqual(turns, []);
      assert.equal(await deliveryStatus(roomId, id, agentId), "processing");
      execution.resumeRoom(); // play
      await untilStatus(roomId, id, agentId, "processed");
      assert.deepEqual(turns, [id]);
      assert.equal(counting.calls(roomId, "/processing"), 1, "claimed over REST after play");
      await until(() => indicator.working.length === 4, "the indicator of the turn after play");
      assert.deepEqual(indicator.working, [true, false, true, false]);
    } finally {
      await stop();
    }
  });
});
