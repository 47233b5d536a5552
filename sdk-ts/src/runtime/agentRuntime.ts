/**
 * `AgentRuntime`: rooms and per-room executions over one `BandLink`, for host code without an
 * adapter (a personal agent's gateway, the `Agent` itself).
 *
 * It joins the agent's rooms (all existing ones with `autoSubscribeExistingRooms`, then each
 * `room_added`), gives each an `ExecutionContext` (serial inside a room, concurrent across
 * rooms) and calls `onExecute(ctx, event)` for each event; messages are claimed and
 * acknowledged around the handler. Controls (interrupt / stop / play) reach the room's
 * execution and `onControl(roomId, mode)`. A reconnect drains `/next` in every room; `stop()`
 * settles every room (`onSessionCleanup(roomId)`) before the link disconnects.
 */

import { log } from "../logger.js";
import type { ContactEvent, PlatformEvent } from "../platform/events.js";
import type { BandLink } from "../platform/link.js";
import type { AgentControl } from "../wire.js";
import { ExecutionContext, type ExecutionHandler, type ParticipantHook } from "./execution.js";
import { sessionConfig, type SessionConfig } from "./sessionConfig.js";
import { TurnServices } from "./turn.js";

export interface AgentRuntimeConfig {
  /** Join every room the agent is already in at start (default true). */
  autoSubscribeExistingRooms?: boolean;
}

export interface AgentRuntimeOptions {
  link: BandLink;
  /** Defaults to `link.agentId`. */
  agentId?: string;
  onExecute: ExecutionHandler;
  agentConfig?: AgentRuntimeConfig;
  sessionConfig?: Partial<SessionConfig>;
  onRoomJoined?: (roomId: string, payload: Record<string, unknown>) => unknown;
  onRoomLeft?: (roomId: string) => unknown;
  onSessionCleanup?: (roomId: string) => Promise<void>;
  onControl?: (roomId: string, mode: "interrupt" | "stop") => Promise<void>;
  onContactEvent?: (event: ContactEvent) => Promise<void>;
  onParticipantAdded?: ParticipantHook;
  onParticipantRemoved?: ParticipantHook;
  /** An event the runtime could not route (the pump goes on). */
  onError?: (error: unknown, event: PlatformEvent) => void;
}

const SEEN_LIMIT = 256;

/** Presence plus one execution per room, over one `BandLink` (see the module comment). */
export class AgentRuntime {
  public readonly link: BandLink;
  public readonly agentId: string;
  public readonly session: SessionConfig;
  private readonly executionsByRoom = new Map<string, ExecutionContext>();
  private readonly services: TurnServices;
  private readonly seenControls: string[] = [];
  private readonly removals = new Map<string, Promise<void>>();
  private pump: Promise<void> | null = null;
  private stopping = false;

  public constructor(private readonly options: AgentRuntimeOptions) {
    this.link = options.link;
    this.agentId = options.agentId ?? options.link.agentId;
    this.session = sessionConfig(options.sessionConfig);
    this.services = new TurnServices(this.agentId, this.link.rest, this.session);
  }

  /** The rooms' executions by room id (a copy). */
  public get executions(): Map<string, ExecutionContext> {
    return new Map(this.executionsByRoom);
  }

  /** Connect (if needed), join the rooms, start their executions and the event pump. */
  public async start(): Promise<void> {
    log().info(`Starting AgentRuntime for agent ${this.agentId}`);
    this.link.onControl = (control) => this.handleControl(control);
    if (!this.link.isConnected) await this.link.connect();
    const auto = this.options.agentConfig?.autoSubscribeExistingRooms ?? true;
    const roomIds = auto ? await this.link.listRoomIds() : [];
    for (const roomId of roomIds) await this.link.subscribeRoom(roomId);
    for (const roomId of roomIds) await this.joined(roomId, { id: roomId });
    this.pump = this.pumpEvents();
  }

  /** Settle every room (up to `timeoutMs` each, then cut), clean up, disconnect.
   * True when no turn had to be cut. */
  public async stop(timeoutMs?: number): Promise<boolean> {
    if (this.stopping) return true;
    this.stopping = true;
    log().info(`Stopping AgentRuntime for agent ${this.agentId}`);
    await Promise.allSettled(this.removals.values());
    const executions = [...this.executionsByRoom.entries()];
    this.executionsByRoom.clear();
    const results = await Promise.all(executions.map(([, e]) => e.stop(timeoutMs)));
    for (const [roomId] of executions) await this.cleanup(roomId);
    await this.link.disconnect();
    await this.pump;
    return results.every(Boolean);
  }

  /** Until the link ends (a supersede, close 1008); throws when it ended with a failure. */
  public async runForever(): Promise<void> {
    await this.link.runForever();
  }

  /** Apply an `agent.control` signal to its rooms, once per `correlation_id`. */
  public async handleControl(control: AgentControl): Promise<void> {
    const targets = this.targets(control);
    if (targets.length === 0 || !this.firstSighting(control.correlation_id)) return;
    log().info(`Applying control ${control.mode} to ${targets.length} room(s)`);
    for (const execution of targets) {
      if (control.mode === "play") {
        execution.resumeRoom();
        continue;
      }
      if (control.mode === "interrupt") execution.interrupt("interrupt");
      else execution.stopRoom();
      try {
        await this.options.onControl?.(execution.roomId, control.mode);
      } catch (error) {
        log().error(`Room ${execution.roomId}: onControl(${control.mode}) failed: ${String(error)}`);
      }
    }
  }

  private targets(control: AgentControl): ExecutionContext[] {
    if (control.room_id === null || control.room_id === undefined) {
      return control.scope === "agent" ? [...this.executionsByRoom.values()] : [];
    }
    const execution = this.executionsByRoom.get(control.room_id);
    return execution ? [execution] : [];
  }

  private firstSighting(correlation: string): boolean {
    if (!correlation) return true;
    if (this.seenControls.includes(correlation)) return false;
    this.seenControls.push(correlation);
    if (this.seenControls.length > SEEN_LIMIT) this.seenControls.shift();
    return true;
  }

  // -- rooms ----------------------------------------------------------------------------------

  private async joined(roomId: string, payload: Record<string, unknown>): Promise<void> {
    if (this.executionsByRoom.has(roomId)) return;
    const execution = new ExecutionContext(roomId, this.link, this.options.onExecute, {
      services: this.services,
      onParticipantAdded: this.options.onParticipantAdded,
      onParticipantRemoved: this.options.onParticipantRemoved,
      onPlatformStop: async (ctx) => {
        await this.options.onControl?.(ctx.roomId, "stop");
      },
    });
    this.executionsByRoom.set(roomId, execution);
    log().info(`Agent joined room: ${roomId}`);
    try {
      await this.options.onRoomJoined?.(roomId, payload);
    } catch (error) {
      log().error(`Room ${roomId}: onRoomJoined failed: ${String(error)}`);
    }
    execution.start();
  }

  private async admit(roomId: string, payload: Record<string, unknown>): Promise<void> {
    await this.removals.get(roomId);
    if (this.executionsByRoom.has(roomId)) return;
    if (!this.link.isRoomSubscribed(roomId)) await this.link.subscribeRoom(roomId);
    await this.joined(roomId, payload);
  }

  private async remove(roomId: string, via: string): Promise<void> {
    const execution = this.executionsByRoom.get(roomId);
    this.executionsByRoom.delete(roomId);
    if (this.link.isRoomSubscribed(roomId)) await this.link.unsubscribeRoom(roomId);
    if (!execution) return;
    log().info(`Agent left room via ${via}: ${roomId}`);
    await execution.stop(5_000);
    await this.cleanup(roomId);
    try {
      await this.options.onRoomLeft?.(roomId);
    } catch (error) {
      log().error(`Room ${roomId}: onRoomLeft failed: ${String(error)}`);
    }
  }

  private async cleanup(roomId: string): Promise<void> {
    try {
      await this.options.onSessionCleanup?.(roomId);
    } catch (error) {
      log().error(`Room ${roomId}: session cleanup failed: ${String(error)}`);
    }
  }

  // -- events ---------------------------------------------------------------------------------

  private async pumpEvents(): Promise<void> {
    for (;;) {
      const event = await this.link.nextEvent();
      if (event === null) return;
      try {
        await this.dispatch(event);
      } catch (error) {
        log().error(`Error handling ${event.type}: ${String(error)}`);
        this.options.onError?.(error, event);
      }
    }
  }

  private async dispatch(event: PlatformEvent): Promise<void> {
    const execution = event.roomId ? this.executionsByRoom.get(event.roomId) : undefined;
    switch (event.type) {
      case "message_created":
      case "participant_added":
      case "participant_removed":
        execution?.onEvent(event);
        return;
      case "room_added":
        await this.admit(event.roomId, event.raw);
        return;
      case "room_removed":
      case "room_deleted": {
        const roomId = event.roomId;
        const removal = this.remove(roomId, event.type).finally(() => this.removals.delete(roomId));
        this.removals.set(roomId, removal);
        return;
      }
      case "agent.control":
        await this.handleControl(event.payload);
        return;
      case "reconnected":
        for (const e of this.executionsByRoom.values()) e.requestResync();
        return;
      case "supersede":
        log().warn(`This connection was superseded: ${event.payload.message}`);
        return;
      case "websocket_disconnected":
        log().warn(`Socket disconnected (${event.payload.code ?? "no code"} ${event.payload.reason})`);
        return;
      default:
        await this.options.onContactEvent?.(event);
    }
  }
}
