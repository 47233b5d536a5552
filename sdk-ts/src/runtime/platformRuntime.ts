/**
 * `PlatformRuntime`: what an `Agent` runs: the link, the agent's identity, and an
 * `AgentRuntime` whose handler turns each room message into the adapter's turn (the message
 * with mentions as handles, fresh tools, the history on the session's first turn, the roster
 * text when it changed). What a turn used is committed only when the adapter returned
 * normally, so a failed turn hands the same context to its retry.
 */

import type { FrameworkAdapter } from "../adapters/base.js";
import { ValidationError } from "../errors.js";
import { log } from "../logger.js";
import type { PlatformEvent } from "../platform/events.js";
import { BandLink, type BandLinkOptions } from "../platform/link.js";
import { AgentTools } from "../tools/agentTools.js";
import type { Capability } from "../tools/schemas.js";
import type { AgentMe } from "../wire.js";
import { AgentRuntime, type AgentRuntimeConfig, type AgentRuntimeOptions } from "./agentRuntime.js";
import type { ExecutionContext } from "./execution.js";
import { buildPlatformMessage } from "./messages.js";
import { sessionConfig, type SessionConfig } from "./sessionConfig.js";

export interface PlatformRuntimeOptions extends Omit<BandLinkOptions, "agentId" | "apiKey" | "claimOnPush"> {
  agentId: string;
  apiKey: string;
  agentConfig?: AgentRuntimeConfig;
  sessionConfig?: Partial<SessionConfig>;
  /** Tool groups beyond chat the adapter's tools offer (default: contacts). */
  capabilities?: Capability[];
  onParticipantAdded?: AgentRuntimeOptions["onParticipantAdded"];
  onParticipantRemoved?: AgentRuntimeOptions["onParticipantRemoved"];
}

/** Connects one agent to the platform and runs its rooms through an adapter. */
export class PlatformRuntime {
  public readonly link: BandLink;
  public readonly agentId: string;
  public agentName = "";
  public agentDescription = "";
  public me: AgentMe | null = null;
  private runtime: AgentRuntime | null = null;
  private adapter: FrameworkAdapter | null = null;

  public constructor(private readonly options: PlatformRuntimeOptions) {
    if (!options.agentId || !options.apiKey) {
      throw new ValidationError("agentId and apiKey are required (loadAgentConfig reads them from agent_config.yaml)");
    }
    this.agentId = options.agentId;
    // The turn's claim comes with the push (the room's turn skips its /processing).
    const working = sessionConfig(options.sessionConfig).enableWorkingState;
    this.link = new BandLink({ ...options, claimOnPush: working ? "working" : "claim" });
  }

  /** The rooms' executions (empty before `start`). */
  public get executions(): Map<string, ExecutionContext> {
    return this.runtime?.executions ?? new Map();
  }

  /** Fetch the identity, start the adapter, connect and admit the agent's rooms. */
  public async start(adapter: FrameworkAdapter): Promise<void> {
    this.me = await this.link.rest.getMe();
    this.agentName = this.me.name;
    this.agentDescription = this.me.description ?? "";
    if (!this.agentDescription.trim()) throw new ValidationError(`Agent ${this.agentId} has no description`);
    this.adapter = adapter;
    await adapter.onStarted?.(this.agentName, this.agentDescription);
    this.runtime = new AgentRuntime({
      link: this.link,
      agentId: this.agentId,
      onExecute: (ctx, event) => this.turn(ctx, event),
      ...(this.options.agentConfig ? { agentConfig: this.options.agentConfig } : {}),
      ...(this.options.sessionConfig ? { sessionConfig: this.options.sessionConfig } : {}),
      onSessionCleanup: async (roomId) => {
        await adapter.onCleanup?.(roomId);
      },
      onControl: async (roomId, mode) => {
        await adapter.onInterrupt?.(roomId, mode);
      },
      ...(this.options.onParticipantAdded ? { onParticipantAdded: this.options.onParticipantAdded } : {}),
      ...(this.options.onParticipantRemoved ? { onParticipantRemoved: this.options.onParticipantRemoved } : {}),
    });
    await this.runtime.start();
    log().info(`Agent started: ${this.agentName} (openband)`);
  }

  /** Until the link ends (a supersede, close 1008); throws when it ended with a failure. */
  public async runForever(): Promise<void> {
    await this.link.runForever();
  }

  /** Settle every room, clean up, disconnect, then `adapter.onStopped()`; true if nothing
   * was cut. */
  public async stop(timeoutMs?: number): Promise<boolean> {
    const runtime = this.runtime;
    this.runtime = null;
    const clean = runtime ? await runtime.stop(timeoutMs) : true;
    if (!runtime) await this.link.disconnect();
    try {
      await this.adapter?.onStopped?.();
    } finally {
      log().info("Platform runtime stopped");
    }
    return clean;
  }

  private async turn(ctx: ExecutionContext, event: PlatformEvent): Promise<void> {
    const adapter = this.adapter;
    if (event.type !== "message_created" || adapter === null) return; // roster already current
    const message = buildPlatformMessage(event.payload, ctx.roomId, ctx.room.roster);
    const tools = new AgentTools({
      rest: this.link.rest,
      roomId: ctx.roomId,
      agentId: this.agentId,
      participants: ctx.participants,
      ...(this.options.capabilities ? { capabilities: this.options.capabilities } : {}),
    });
    const bootstrap = !ctx.isLlmInitialized;
    const roster = ctx.participants;
    const participantsMessage = ctx.participantsChanged() ? ctx.buildParticipantsMessage() : null;
    const notes = ctx.peekPendingSystemMessages();
    await adapter.onEvent({
      message,
      tools,
      history: bootstrap ? ctx.getHistoryForLlm(message.id) : [],
      participantsMessage,
      contactsMessage: notes.length ? notes.join("\n") : null,
      isSessionBootstrap: bootstrap,
      roomId: ctx.roomId,
      signal: ctx.signal,
    });
    ctx.markLlmInitialized();
    if (participantsMessage !== null) ctx.markParticipantsSent(roster);
    ctx.commitSystemMessages(notes);
  }
}
