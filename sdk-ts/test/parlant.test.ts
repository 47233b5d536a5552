/** `ParlantAdapter` with a scripted Parlant client (the real server runs in the end-to-end
 * journey, `tests/typescript/test_seed_parlant_agent.py`). */

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { AgentTools, ParlantAdapter, ValidationError, type ParlantClientLike, type PlatformMessage } from "../src/index.js";

interface Scripted {
  client: ParlantClientLike;
  created: { name: string; description?: string }[];
  deleted: string[];
  posted: string[];
}

function scripted(replies: { kind: string; data: unknown }[][]): Scripted {
  const state: Scripted = { created: [], deleted: [], posted: [], client: undefined as unknown as ParlantClientLike };
  let offset = 0;
  state.client = {
    agents: {
      create: (request) => {
        state.created.push(request);
        return Promise.resolve({ id: "parlant-agent-1" });
      },
      delete: (id) => {
        state.deleted.push(id);
        return Promise.resolve();
      },
    },
    customers: { create: () => Promise.resolve({ id: "customer-1" }) },
    sessions: {
      create: () => Promise.resolve({ id: "session-1" }),
      createEvent: (_session, request) => {
        state.posted.push(request.message);
        offset += 1;
        return Promise.resolve({ offset });
      },
      listEvents: () => {
        const batch = replies.shift() ?? [];
        return Promise.resolve(batch.map((e) => ({ ...e, offset: (offset += 1) })));
      },
    },
  };
  return state;
}

class RecordingTools {
  public sent: { content: string; mentions: unknown }[] = [];
  public sendMessage(content: string, mentions: unknown): Promise<unknown> {
    this.sent.push({ content, mentions });
    return Promise.resolve({});
  }
}

const message: PlatformMessage = {
  id: "m-1",
  roomId: "room-1",
  content: "@parlant-agent how do I reset my password?",
  senderId: "user-1",
  senderType: "User",
  senderName: "Alice",
  messageType: "text",
  metadata: {},
  createdAt: new Date(),
};

async function turn(adapter: ParlantAdapter, tools: RecordingTools): Promise<void> {
  await adapter.onMessage(message, tools as unknown as AgentTools, [], "## Current Participants\n- @alice — Alice (User)", null, {
    isSessionBootstrap: true,
    roomId: "room-1",
    signal: null,
  });
}

describe("ParlantAdapter", () => {
  it("refuses systemPrompt or customSection with an agentId", () => {
    assert.throws(() => new ParlantAdapter({ environment: "http://p", agentId: "a", systemPrompt: "x" }), ValidationError);
    assert.throws(() => new ParlantAdapter({ environment: "http://p", agentId: "a", customSection: "x" }), ValidationError);
    assert.equal(new ParlantAdapter({ environment: "http://p", agentId: "a" }).responseTimeoutSeconds, 120);
  });

  it("without an agentId creates band-<name> from Band's prompt, and deletes it when stopped", async () => {
    const parlant = scripted([]);
    const adapter = new ParlantAdapter({ environment: "http://p", agentId: "", clientFactory: () => Promise.resolve(parlant.client) });
    await adapter.onStarted("Parlant Agent", "A support assistant.");
    const created = parlant.created[0];
    assert.ok(created);
    assert.equal(created.name, "band-Parlant Agent");
    assert.match(created.description ?? "", /^You are Parlant Agent, A support assistant\.\n\n## Environment/);
    assert.equal(adapter.parlantAgentId, "parlant-agent-1");
    await adapter.onStopped();
    assert.deepEqual(parlant.deleted, ["parlant-agent-1"]);
  });

  it("posts the reply mentioning the sender and never a preamble", async () => {
    const parlant = scripted([
      [{ kind: "message", data: { message: "Hi", tags: ["__preamble__"] } }],
      [{ kind: "status", data: { status: "typing", data: {} } }, { kind: "message", data: { message: "Open Settings.", tags: [] } }],
    ]);
    const adapter = new ParlantAdapter({ environment: "http://p", agentId: "existing", clientFactory: () => Promise.resolve(parlant.client) });
    await adapter.onStarted("Parlant Agent", "A support assistant.");
    const tools = new RecordingTools();
    await turn(adapter, tools);
    assert.deepEqual(tools.sent, [{ content: "Open Settings.", mentions: [{ id: "user-1" }] }]);
    assert.equal(parlant.posted[0], "[System Update]: ## Current Participants\n- @alice — Alice (User)\n\n[Alice]: @parlant-agent how do I reset my password?");
    await adapter.onStopped();
    assert.deepEqual(parlant.deleted, [], "an agent passed in is never deleted");
  });

  it("fails the turn when Parlant's engine reports an error", async () => {
    const parlant = scripted([[{ kind: "status", data: { status: "error", data: { exception: "Traceback\nRuntimeError: boom" } } }]]);
    const adapter = new ParlantAdapter({ environment: "http://p", agentId: "existing", clientFactory: () => Promise.resolve(parlant.client) });
    await adapter.onStarted("Parlant Agent", "A support assistant.");
    await assert.rejects(turn(adapter, new RecordingTools()), /RuntimeError: boom/);
  });

  it("posts nothing when no reply comes within responseTimeoutSeconds", async () => {
    const parlant = scripted([]);
    const adapter = new ParlantAdapter({ environment: "http://p", agentId: "existing", responseTimeoutSeconds: 1, clientFactory: () => Promise.resolve(parlant.client) });
    await adapter.onStarted("Parlant Agent", "A support assistant.");
    const tools = new RecordingTools();
    await turn(adapter, tools);
    assert.deepEqual(tools.sent, []);
  });
});
