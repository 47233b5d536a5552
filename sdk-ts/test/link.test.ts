/** `BandLink` against a real platform: joins, typed events, the delivery lifecycle, refusals,
 * supersede. */

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { AgentAlreadyRunningError, BandConnectionError, BandLink, type PlatformEvent } from "../src/index.js";
import { agentInRoom, person, until, usePlatform, type Platform } from "./support/platform.js";

let platform: Platform;

before(async () => {
  platform = await usePlatform();
});

after(async () => {
  await platform.stop();
});

function linkFor(agent: { agentId: string; apiKey: string }, options: Partial<ConstructorParameters<typeof BandLink>[0]> = {}): BandLink {
  return new BandLink({ ...agent, wsUrl: platform.wsUrl, restUrl: platform.restUrl, ...options });
}

async function nextOf(link: BandLink, type: string): Promise<PlatformEvent> {
  for (;;) {
    const event = await link.nextEvent();
    assert.ok(event, `the link ended before a ${type} event`);
    if (event.type === type) return event;
  }
}

describe("BandLink", () => {
  it("joins a room and yields a mention as a typed message_created with the room id", async () => {
    const agent = await agentInRoom(platform);
    const link = linkFor(agent);
    await link.connect();
    try {
      assert.deepEqual(await link.listRoomIds(), [agent.roomId]);
      assert.equal(await link.subscribeRoom(agent.roomId), true);
      await person(platform).sendMessage(agent.roomId, "hello agent", [agent.agentId]);
      const event = await nextOf(link, "message_created");
      assert.equal(event.roomId, agent.roomId);
      assert.equal(event.type === "message_created" && event.payload.sender_id, platform.userId);
      assert.match(event.type === "message_created" ? event.payload.content : "", /hello agent/);
    } finally {
      await link.disconnect();
    }
    assert.equal(await link.nextEvent(), null, "iteration ends after disconnect");
  });

  it("pushes room_added when a person adds the agent to a new room", async () => {
    const agent = await agentInRoom(platform);
    const link = linkFor(agent);
    await link.connect();
    try {
      const human = person(platform);
      const room = await human.createChat("Second room");
      await human.addParticipant(room.id, agent.agentId);
      const event = await nextOf(link, "room_added");
      assert.equal(event.roomId, room.id);
    } finally {
      await link.disconnect();
    }
  });

  it("serves /next, claims and acknowledges: the message then leaves /next", async () => {
    const agent = await agentInRoom(platform);
    const link = linkFor(agent);
    await person(platform).sendMessage(agent.roomId, "pending work", [agent.agentId]);
    const next = await link.getNextMessage(agent.roomId);
    assert.ok(next);
    assert.match(next.content, /pending work/);
    assert.equal(await link.markProcessing(agent.roomId, next.id), true);
    assert.deepEqual((await link.getStaleProcessingMessages(agent.roomId)).map((m) => m.id), [next.id]);
    assert.equal(await link.markProcessed(agent.roomId, next.id), true);
    assert.equal(await link.getNextMessage(agent.roomId), null);
    assert.equal(await link.markProcessed(agent.roomId, "00000000-0000-0000-0000-000000000000"), false);
  });

  it("asks the platform to claim a mention with its push only when told to (claimOnPush)", async () => {
    const agent = await agentInRoom(platform);
    type Delivery = { status?: unknown; current_attempt?: unknown } | undefined;
    const mine = (event: PlatformEvent): Delivery => {
      const status = event.type === "message_created" ? event.payload.metadata?.delivery_status : undefined;
      return (status as Record<string, Delivery> | undefined)?.[agent.agentId];
    };
    const plain = linkFor(agent);
    await plain.connect();
    try {
      await plain.subscribeRoom(agent.roomId);
      await person(platform).sendMessage(agent.roomId, "not claimed", [agent.agentId]);
      assert.notEqual(mine(await nextOf(plain, "message_created"))?.status, "processing", "a link asks for nothing by default");
    } finally {
      await plain.disconnect();
    }
    const asking = linkFor(agent, { claimOnPush: "claim", conflictPolicy: "reject" });
    await asking.connect();
    try {
      await asking.subscribeRoom(agent.roomId);
      await person(platform).sendMessage(agent.roomId, "claimed", [agent.agentId]);
      const pushed = mine(await nextOf(asking, "message_created"));
      assert.equal(pushed?.status, "processing");
      assert.equal(pushed.current_attempt, 1);
    } finally {
      await asking.disconnect();
    }
  });

  it("refuses to connect with a wrong key, saying so", async () => {
    const agent = await agentInRoom(platform);
    const link = linkFor({ agentId: agent.agentId, apiKey: "band_a_wrong" }, { timings: { connectTimeoutMs: 10_000 } });
    await assert.rejects(link.connect(), (e: unknown) => e instanceof BandConnectionError && /HTTP 40[13]/.test(e.message));
  });

  it("a second connection supersedes the first, whose iteration then ends", async () => {
    const agent = await agentInRoom(platform);
    const first = linkFor(agent);
    await first.connect();
    const second = linkFor(agent);
    await second.connect();
    try {
      await until(async () => (await first.nextEvent()) === null, "the first link to end");
      assert.equal(first.superseded, true);
      await first.runForever(); // ends cleanly
    } finally {
      await second.disconnect();
      await first.disconnect();
    }
  });

  it("with conflictPolicy reject, refuses to start while another connection lives", async () => {
    const agent = await agentInRoom(platform);
    const first = linkFor(agent);
    await first.connect();
    try {
      const second = linkFor(agent, { conflictPolicy: "reject" });
      await assert.rejects(second.connect(), AgentAlreadyRunningError);
    } finally {
      await first.disconnect();
    }
  });
});
