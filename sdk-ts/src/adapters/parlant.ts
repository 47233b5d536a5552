/**
 * `ParlantAdapter`: a Parlant agent, on a Parlant server you run, answers in Band rooms
 * (through `parlant-client`, an optional peer dependency: `npm install parlant-client`).
 *
 * - `environment` is the server's URL; `agentId` a Parlant agent on it. Without `agentId` the
 *   adapter creates an agent named `band-<agent name>` from Band's rendered system prompt at
 *   start and deletes it when the runtime stops. `systemPrompt` or `customSection` with an
 *   `agentId` throws a `ValidationError` (an existing agent is never changed).
 * - Each room gets one Parlant customer and session. A message is posted as the customer
 *   (`[Sender]: text`, after roster and contact updates; on the session's first turn, after
 *   the room's earlier messages), and the agent's reply is posted in the room mentioning the
 *   sender. Parlant's preamble messages (tagged `__preamble__`) are never posted.
 * - The reply is awaited `responseTimeoutSeconds` (default 120); with none, nothing is posted
 *   and a warning is logged. An engine error fails the turn.
 */

import { BandError, ValidationError } from "../errors.js";
import { log } from "../logger.js";
import type { HistoryItem, PlatformMessage } from "../runtime/messages.js";
import { renderSystemPrompt } from "../runtime/prompts.js";
import type { AgentTools } from "../tools/agentTools.js";
import { SimpleAdapter, type TurnContext } from "./base.js";

export const PREAMBLE_TAG = "__preamble__";
const DEFAULT_RESPONSE_TIMEOUT_SECONDS = 120;
const POLL_WINDOW_SECONDS = 30;

/** The part of `parlant-client`'s `ParlantClient` this adapter uses. */
export interface ParlantClientLike {
  agents: {
    create(request: { name: string; description?: string }): Promise<{ id: string }>;
    delete(agentId: string): Promise<void>;
  };
  customers: {
    create(request: { name: string; metadata?: Record<string, string | undefined> }): Promise<{ id: string }>;
  };
  sessions: {
    create(request: { agentId: string; customerId?: string; title?: string; allowGreeting?: boolean }): Promise<{ id: string }>;
    createEvent(
      sessionId: string,
      request: { kind: "message"; source: "customer" | "human_agent_on_behalf_of_ai_agent"; message: string; metadata?: Record<string, unknown> },
    ): Promise<{ offset: number }>;
    listEvents(
      sessionId: string,
      request: { minOffset?: number; source?: "ai_agent"; kinds?: string; waitForData?: number },
      options?: { timeoutInSeconds?: number; maxRetries?: number },
    ): Promise<{ kind: string; offset: number; data?: unknown }[]>;
  };
}

export interface ParlantAdapterOptions {
  /** The Parlant server's URL, e.g. `http://localhost:8800`. */
  environment: string;
  /** An agent on that server; empty or absent: the adapter creates (and later deletes) one. */
  agentId?: string;
  /** Replaces the rendered prompt of a created agent (not with `agentId`). */
  systemPrompt?: string;
  /** Appended to the rendered prompt of a created agent (not with `agentId`). */
  customSection?: string;
  /** Seconds to wait for each reply (default 120). */
  responseTimeoutSeconds?: number;
  /** Builds the client (default: `new ParlantClient({ environment })` from `parlant-client`). */
  clientFactory?: (environment: string) => Promise<ParlantClientLike>;
}

/** Parlant's engine failed the turn. */
export class ParlantProcessingError extends BandError {}

interface ParlantEvent {
  kind: string;
  offset: number;
  data?: unknown;
}

async function defaultClient(environment: string): Promise<ParlantClientLike> {
  let module: typeof import("parlant-client");
  try {
    module = await import("parlant-client");
  } catch {
    throw new ValidationError('ParlantAdapter needs the "parlant-client" package: npm install parlant-client');
  }
  return new module.ParlantClient({ environment });
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}

/** `[System Update]: ...` lines, then `[Sender]: text`. */
function compose(message: PlatformMessage, participantsMessage: string | null, contactsMessage: string | null, history: HistoryItem[]): string {
  const parts: string[] = [];
  const earlier = history
    .filter((h) => (h.message_type || "text") === "text" && h.content.trim())
    .map((h) => `[${h.sender_name || h.sender_type || "Unknown"}]: ${h.content}`);
  if (earlier.length) parts.push(`[System Update]: Earlier messages in this room:\n${earlier.join("\n")}`);
  for (const update of [contactsMessage, participantsMessage]) {
    if (update?.trim()) parts.push(`[System Update]: ${update}`);
  }
  parts.push(`[${message.senderName ?? message.senderType}]: ${message.content}`);
  return parts.join("\n\n");
}

/** A Parlant agent answering in Band rooms (see the module comment). */
export class ParlantAdapter extends SimpleAdapter {
  public readonly environment: string;
  public readonly responseTimeoutSeconds: number;
  private agentId: string;
  private createdAgentId: string | null = null;
  private client: ParlantClientLike | null = null;
  private readonly sessions = new Map<string, Promise<string>>();

  public constructor(private readonly options: ParlantAdapterOptions) {
    super();
    if (!options.environment) throw new ValidationError("ParlantAdapter needs environment (the Parlant server's URL)");
    this.environment = options.environment;
    this.agentId = options.agentId ?? "";
    if (this.agentId && (options.systemPrompt !== undefined || options.customSection !== undefined)) {
      throw new ValidationError("systemPrompt and customSection cannot be combined with agentId: an existing Parlant agent is not changed");
    }
    this.responseTimeoutSeconds = options.responseTimeoutSeconds ?? DEFAULT_RESPONSE_TIMEOUT_SECONDS;
    if (!(this.responseTimeoutSeconds > 0)) throw new ValidationError("responseTimeoutSeconds must be > 0");
  }

  /** The Parlant agent the adapter talks to (created at start when none was given). */
  public get parlantAgentId(): string {
    return this.agentId;
  }

  public override async onStarted(agentName: string, agentDescription: string): Promise<void> {
    await super.onStarted(agentName, agentDescription);
    const factory = this.options.clientFactory ?? defaultClient;
    this.client = await factory(this.environment);
    if (!this.agentId) {
      const description =
        this.options.systemPrompt ??
        renderSystemPrompt({ agentName, agentDescription, ...(this.options.customSection ? { customSection: this.options.customSection } : {}) });
      const agent = await this.client.agents.create({ name: `band-${agentName}`, description });
      this.agentId = agent.id;
      this.createdAgentId = agent.id;
      log().info(`Created Parlant agent band-${agentName} (${agent.id})`);
    }
    log().info(`Parlant adapter started for agent: ${agentName} (parlant_agent_id=${this.agentId})`);
  }

  /** Delete the agent this adapter created (an agent passed in is left alone). */
  public async onStopped(): Promise<void> {
    const created = this.createdAgentId;
    this.createdAgentId = null;
    this.sessions.clear();
    if (created && this.client) {
      try {
        await this.client.agents.delete(created);
        log().info(`Deleted Parlant agent ${created}`);
      } catch (error) {
        log().warn(`Could not delete Parlant agent ${created}: ${String(error)}`);
      }
      this.agentId = "";
    }
  }

  public override onCleanup(roomId: string): Promise<void> {
    this.sessions.delete(roomId);
    return Promise.resolve();
  }

  private requireClient(): ParlantClientLike {
    if (!this.client) throw new ParlantProcessingError("ParlantAdapter is not started");
    return this.client;
  }

  private session(roomId: string, sender: string): Promise<string> {
    let session = this.sessions.get(roomId);
    if (!session) {
      const client = this.requireClient();
      session = (async () => {
        const customer = await client.customers.create({ name: sender || "Band user", metadata: { band_room_id: roomId } });
        const created = await client.sessions.create({
          agentId: this.agentId,
          customerId: customer.id,
          title: `Band Room ${roomId.slice(0, 8)}`,
          allowGreeting: false,
        });
        return created.id;
      })();
      session.catch(() => this.sessions.delete(roomId));
      this.sessions.set(roomId, session);
    }
    return session;
  }

  public async onMessage(
    message: PlatformMessage,
    tools: AgentTools,
    history: HistoryItem[],
    participantsMessage: string | null,
    contactsMessage: string | null,
    context: TurnContext,
  ): Promise<void> {
    const client = this.requireClient();
    const sender = message.senderName ?? message.senderType;
    const fresh = !this.sessions.has(context.roomId);
    const sessionId = await this.session(context.roomId, sender);
    const text = compose(message, participantsMessage, contactsMessage, fresh && context.isSessionBootstrap ? history : []);
    const event = await client.sessions.createEvent(sessionId, {
      kind: "message",
      source: "customer",
      message: text,
      metadata: { band_room_id: context.roomId, band_message_id: message.id },
    });
    const replies = await this.waitForReply(client, sessionId, event.offset, context.signal);
    if (replies === null) {
      log().warn(`Room ${context.roomId}: no Parlant reply within ${this.responseTimeoutSeconds}s`);
      return;
    }
    const reply = replies.filter((r) => r.trim()).join("\n\n");
    if (!reply) {
      log().warn(`Room ${context.roomId}: Parlant produced an empty reply`);
      return;
    }
    await tools.sendMessage(reply, [{ id: message.senderId }]);
  }

  /** The agent's final messages after `offset`; null when none came in time. */
  private async waitForReply(client: ParlantClientLike, sessionId: string, offset: number, signal: AbortSignal | null): Promise<string[] | null> {
    const deadline = Date.now() + this.responseTimeoutSeconds * 1000;
    let minOffset = offset + 1;
    while (!signal?.aborted) {
      const remaining = (deadline - Date.now()) / 1000;
      if (remaining <= 0) return null;
      const window = Math.max(1, Math.min(POLL_WINDOW_SECONDS, Math.floor(remaining)));
      let events: ParlantEvent[];
      try {
        events = await client.sessions.listEvents(
          sessionId,
          { minOffset, source: "ai_agent", kinds: "message,status", waitForData: window },
          { timeoutInSeconds: window + 30, maxRetries: 0 },
        );
      } catch (error) {
        if ((error as { statusCode?: unknown }).statusCode === 504) continue; // an empty window
        throw error;
      }
      const finals: string[] = [];
      for (const event of [...events].sort((a, b) => a.offset - b.offset)) {
        minOffset = Math.max(minOffset, event.offset + 1);
        const data = record(event.data);
        if (event.kind === "status") {
          const detail = record(data.data);
          if (data.status === "error") {
            const text = typeof detail.exception === "string" ? detail.exception : "Parlant reported an error";
            throw new ParlantProcessingError(text.trim().split("\n").at(-1) ?? text);
          }
          if (data.status === "ready" && detail.stage === "completed" && finals.length === 0) {
            throw new ParlantProcessingError("Parlant completed the turn without a reply (message generation failed)");
          }
          continue;
        }
        const tags = Array.isArray(data.tags) ? data.tags : [];
        if (!tags.includes(PREAMBLE_TAG)) finals.push(typeof data.message === "string" ? data.message : "");
      }
      if (finals.length) return finals;
      if (events.length === 0) await new Promise((done) => setTimeout(done, 50)); // a server that answers at once
    }
    return null;
  }
}
