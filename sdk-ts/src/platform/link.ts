/**
 * `BandLink`: an agent's connection to the platform (the realtime socket + `rest`).
 *
 * It joins `agent_control:<id>` and `agent_rooms:<id>`, then `chat_room:<r>` and
 * `room_participants:<r>` per room (and `agent_contacts:<id>` on request); it validates every
 * pushed payload (an invalid one is dropped and counted) and yields typed events in arrival
 * order (`for await (const event of link)`). After a reconnect it reconciles rooms with
 * `GET /agent/chats` (queuing `room_added` / `room_removed` for differences), then queues
 * `reconnected`, which tells consumers to drain `/next` in every room. Iteration ends when
 * the socket has ended for good (`disconnect()`, a non-retryable supersede, close 1008).
 */

import type { Channel } from "phoenix";

import { resolveUrls } from "../config.js";
import { log } from "../logger.js";
import { AgentRestClient } from "../rest/agent.js";
import type { HttpOptions } from "../rest/http.js";
import { type AgentControl, AgentControlPush, PUSH_SCHEMAS } from "../wire.js";
import { CONTACT_EVENTS, eventFromPush, type PlatformEvent } from "./events.js";
import { MessageLifecycle } from "./lifecycle.js";
import { AsyncQueue } from "./queue.js";
import { BandSocket, joinChannel, type SocketTimings } from "./socket.js";

export type ConflictPolicy = "supersede" | "reject";

/**
 * An agent socket's query parameter (our extension): `claim` asks the platform to claim a
 * message for the agent with its `message_created` push (attempt 1 opened in the post's own
 * transaction, shown in the push's `metadata.delivery_status`) when the agent has no live
 * attempt in that room; `working` also starts the working indicator, as a claim with
 * `Band-Working: true` does (docs/protocol-decisions.md).
 */
export const CLAIM_ON_PUSH_PARAM = "claim_on_push";
export type ClaimOnPush = "claim" | "working";

export interface BandLinkOptions {
  agentId: string;
  apiKey: string;
  /** Defaults: BAND_WS_URL / BAND_REST_URL, then production. */
  wsUrl?: string;
  restUrl?: string;
  /** `reject`: refuse to start while another connection of this agent lives (409). */
  conflictPolicy?: ConflictPolicy;
  timings?: SocketTimings;
  http?: HttpOptions;
  /** Ask the platform to claim a message with its push (`CLAIM_ON_PUSH_PARAM`; default: not
   * asked). Only for a consumer that then skips its own claim of such a message, as an
   * `AgentRuntime` does: the `Agent` asks, `working` when `enableWorkingState` is on. */
  claimOnPush?: ClaimOnPush | null;
}

const ROOM_JOIN_RETRY_MS = [1_000, 2_000, 4_000, 8_000, 16_000];
const MAX_ROOM_PAGES = 50;
const TOPIC_EVENTS: Record<string, string[]> = {
  agent_control: ["agent.control", "supersede"],
  agent_rooms: ["room_added", "room_removed"],
  chat_room: ["message_created"],
  room_participants: ["participant_added", "participant_removed", "room_deleted"],
  agent_contacts: [...CONTACT_EVENTS],
};
const END = Symbol("end");

/** Why the socket last dropped. */
export interface DisconnectReason {
  code: number | null;
  reason: string;
  retryable: boolean;
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** Socket + REST for one agent (see the module comment). */
export class BandLink extends MessageLifecycle {
  public readonly agentId: string;
  public readonly apiKey: string;
  public readonly wsUrl: string;
  public readonly restUrl: string;
  /** Pushes dropped because their payload did not validate. */
  public droppedInvalid = 0;
  /** True once another connection of this agent superseded this one for good. */
  public superseded = false;
  /** When set, `agent.control` signals go here (in arrival order) instead of the event queue. */
  public onControl: ((control: AgentControl) => Promise<void>) | null = null;
  private readonly socket: BandSocket;
  private readonly events = new AsyncQueue<PlatformEvent | typeof END>();
  private readonly channels = new Map<string, Channel>();
  private readonly roomIds = new Set<string>();
  private readonly retries = new Map<string, AbortController>();
  private controlLane: Promise<void> = Promise.resolve();
  private lastDisconnect: DisconnectReason | null = null;
  private connectedOnce = false;

  public constructor(options: BandLinkOptions) {
    const urls = resolveUrls(options.wsUrl, options.restUrl);
    super(new AgentRestClient(urls.restUrl, options.apiKey, options.http));
    this.agentId = options.agentId;
    this.apiKey = options.apiKey;
    this.wsUrl = urls.wsUrl;
    this.restUrl = urls.restUrl;
    // Only the first connect may ask to reject a conflict: a reconnect supersedes our own
    // stale socket.
    const reject = options.conflictPolicy === "reject";
    const claim: Record<string, string> = options.claimOnPush ? { [CLAIM_ON_PUSH_PARAM]: options.claimOnPush } : {};
    const params = (): Record<string, string> => ({
      agent_id: this.agentId,
      ...(reject && !this.connectedOnce ? { on_conflict: "reject" } : {}),
      ...claim,
    });
    this.socket = new BandSocket(
      this.wsUrl,
      this.apiKey,
      params,
      {
        onOpen: (reconnect) => {
          if (reconnect) void this.reconciled();
        },
        onClose: (code, reason, final) => {
          this.disconnected(code, reason, final);
        },
      },
      options.timings,
    );
  }

  public get isConnected(): boolean {
    return this.socket.connected;
  }

  public get lastDisconnectReason(): DisconnectReason | null {
    return this.lastDisconnect;
  }

  /** The rooms whose topics this link holds (or keeps trying to join). */
  public get rooms(): ReadonlySet<string> {
    return new Set(this.roomIds);
  }

  // -- connection -----------------------------------------------------------------------------

  /** Open the socket and join the agent's control and rooms topics. */
  public async connect(): Promise<void> {
    await this.socket.connect();
    try {
      await this.joinTopic(`agent_control:${this.agentId}`);
    } catch (error) {
      this.socket.end(error as Error);
      throw error;
    }
    await this.subscribeAgentRooms(this.agentId);
    this.connectedOnce = true;
    void this.socket.waitClosed().then(() => {
      this.events.put(END);
    });
    log().info("Connected to platform");
  }

  /** Leave every topic and close the socket; iteration then ends. */
  public async disconnect(): Promise<void> {
    for (const retry of this.retries.values()) retry.abort();
    this.retries.clear();
    if (this.socket.connected) {
      for (const roomId of [...this.roomIds].sort()) await this.leaveRoomTopics(roomId);
      await this.leave(`agent_control:${this.agentId}`);
    }
    this.roomIds.clear();
    this.socket.end(null);
    this.events.put(END);
    log().info("Disconnected from platform");
  }

  /** Wait until the socket ends for good; throw when it ended with a failure. */
  public async runForever(): Promise<void> {
    const error = await this.socket.waitClosed();
    if (error !== null) throw error;
  }

  // -- subscriptions --------------------------------------------------------------------------

  private async joinTopic(topic: string): Promise<void> {
    const existing = this.channels.get(topic);
    if (existing?.state === "joined") return;
    if (existing) existing.leave();
    const channel = this.socket.channel(topic);
    const kind = topic.split(":", 1)[0] ?? "";
    for (const event of TOPIC_EVENTS[kind] ?? []) {
      channel.on(event, (payload: unknown) => {
        this.onPush(topic, event, payload);
      });
    }
    this.channels.set(topic, channel);
    try {
      await joinChannel(channel, topic);
    } catch (error) {
      channel.leave();
      this.channels.delete(topic);
      throw error;
    }
  }

  private async leave(topic: string): Promise<void> {
    const channel = this.channels.get(topic);
    if (!channel) return;
    this.channels.delete(topic);
    if (!this.socket.connected) {
      channel.leave();
      return;
    }
    await new Promise<void>((resolve) => {
      channel
        .leave(5_000)
        .receive("ok", () => {
          resolve();
        })
        .receive("timeout", () => {
          resolve();
        })
        .receive("error", () => {
          resolve();
        });
    });
  }

  /** Receive `room_added` / `room_removed` for `agentId` (joined by `connect`). */
  public async subscribeAgentRooms(agentId: string): Promise<void> {
    try {
      await this.joinTopic(`agent_rooms:${agentId}`);
    } catch (error) {
      log().error(`Running without room_added/room_removed: ${String(error)}`);
    }
  }

  /** Receive contact requests and contact changes for `agentId`. */
  public async subscribeAgentContacts(agentId: string): Promise<void> {
    await this.joinTopic(`agent_contacts:${agentId}`);
  }

  public async unsubscribeAgentContacts(): Promise<void> {
    await this.leave(`agent_contacts:${this.agentId}`);
  }

  /** Every room the agent is in (`GET /agent/chats`, all pages, at most 50). */
  public async listRoomIds(): Promise<string[]> {
    const ids: string[] = [];
    for (let page = 1; ; page += 1) {
      const { items, metadata } = await this.rest.listChats(page, 100);
      ids.push(...items.map((room) => room.id));
      const total = metadata.total_pages;
      if (typeof total !== "number" || page >= total || page >= MAX_ROOM_PAGES) return ids;
    }
  }

  public isRoomSubscribed(roomId: string): boolean {
    return this.roomIds.has(roomId);
  }

  /** Join the room's two topics; on refusal keep retrying in the background (1..16 s). */
  public async subscribeRoom(roomId: string): Promise<boolean> {
    if (this.roomIds.has(roomId) && this.channels.get(`chat_room:${roomId}`)?.state === "joined") return true;
    this.roomIds.add(roomId);
    if (await this.joinRoomTopics(roomId)) return true;
    if (!this.retries.has(roomId)) {
      const stop = new AbortController();
      this.retries.set(roomId, stop);
      void this.retryRoom(roomId, stop.signal);
    }
    return false;
  }

  /** Leave the room's topics and forget the room. */
  public async unsubscribeRoom(roomId: string): Promise<void> {
    this.roomIds.delete(roomId);
    this.retries.get(roomId)?.abort();
    this.retries.delete(roomId);
    await this.leaveRoomTopics(roomId);
  }

  private async joinRoomTopics(roomId: string): Promise<boolean> {
    try {
      await this.joinTopic(`chat_room:${roomId}`);
    } catch (error) {
      log().warn(`Room ${roomId}: ${String(error)}`);
      return false;
    }
    try {
      await this.joinTopic(`room_participants:${roomId}`);
    } catch (error) {
      log().warn(`Room ${roomId}: ${String(error)}`);
      await this.leave(`chat_room:${roomId}`);
      return false;
    }
    return true;
  }

  private async leaveRoomTopics(roomId: string): Promise<void> {
    await this.leave(`chat_room:${roomId}`);
    await this.leave(`room_participants:${roomId}`);
  }

  private async retryRoom(roomId: string, signal: AbortSignal): Promise<void> {
    try {
      for (const delay of ROOM_JOIN_RETRY_MS) {
        await sleep(delay);
        if (signal.aborted || !this.roomIds.has(roomId)) return;
        if (await this.joinRoomTopics(roomId)) return;
      }
      log().error(`Room ${roomId}: giving up joining until the next reconnect`);
    } finally {
      this.retries.delete(roomId);
    }
  }

  // -- events ---------------------------------------------------------------------------------

  public async *[Symbol.asyncIterator](): AsyncIterator<PlatformEvent> {
    for (;;) {
      const event = await this.nextEvent();
      if (event === null) return;
      yield event;
    }
  }

  /** The next event, waiting for one; null once the link has ended for good. */
  public async nextEvent(): Promise<PlatformEvent | null> {
    const item = await this.events.get();
    if (item === END || item === null || item === "timeout") {
      this.events.put(END); // every later reader sees the end too
      return null;
    }
    return item;
  }

  /** Put an event on the stream as if the platform had pushed it. */
  public queueEvent(event: PlatformEvent): void {
    this.events.put(event);
  }

  private onPush(topic: string, event: string, payload: unknown): void {
    const [kind = "", ident = ""] = topic.split(/:(.*)/s);
    const schema = PUSH_SCHEMAS[event];
    const parsed = schema?.safeParse(payload);
    if (!parsed?.success) {
      this.droppedInvalid += 1;
      log().error(`Dropped invalid ${event} on ${topic}: ${parsed?.error.issues[0]?.message ?? "no schema"}`);
      return;
    }
    const data = parsed.data as Record<string, unknown>;
    let roomId: string | null;
    if (kind === "agent_rooms") roomId = String(data.id);
    else if (kind === "agent_control") {
      if (event === "supersede") this.onSupersede(data);
      else if (this.onControl !== null) {
        this.preempt(AgentControlPush.parse(data));
        return;
      }
      roomId = typeof data.room_id === "string" ? data.room_id : null;
    } else if (kind === "agent_contacts") roomId = null;
    else roomId = ident;
    const typed = eventFromPush(event, roomId, data);
    if (typed !== null) this.events.put(typed);
  }

  private preempt(control: AgentControl): void {
    const hook = this.onControl;
    if (hook === null) return;
    this.controlLane = this.controlLane.then(async () => {
      try {
        await hook(control);
      } catch (error) {
        log().error(`onControl failed for ${control.mode}: ${String(error)}`);
      }
    });
  }

  private onSupersede(payload: Record<string, unknown>): void {
    if (payload.retryable === true) {
      log().warn(`Superseded (retryable): ${String(payload.message)}`);
      return;
    }
    this.superseded = true;
    log().warn(`Superseded by another connection: ${String(payload.message)}`);
    this.socket.end(null);
  }

  private disconnected(code: number | null, reason: string, final: boolean): void {
    if (!this.connectedOnce) return;
    const detail = { code, reason, retryable: !final };
    this.lastDisconnect = detail;
    this.events.put({ type: "websocket_disconnected", roomId: null, payload: detail, raw: { code, reason } });
  }

  /** After a reconnect: wait for Phoenix's rejoins, reconcile rooms, then say `reconnected`. */
  private async reconciled(): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && [...this.channels.values()].some((c) => c.state !== "joined")) {
      await sleep(50);
    }
    let current: Set<string>;
    try {
      current = new Set(await this.listRoomIds());
    } catch (error) {
      log().warn(`Room reconciliation after reconnect failed: ${String(error)}`);
      current = new Set(this.roomIds);
    }
    const now = new Date().toISOString();
    for (const roomId of [...current].filter((r) => !this.roomIds.has(r)).sort()) {
      this.events.put({ type: "room_added", roomId, payload: { id: roomId, inserted_at: now, updated_at: now }, raw: { id: roomId } });
    }
    for (const roomId of [...this.roomIds].filter((r) => !current.has(r)).sort()) {
      this.events.put({ type: "room_removed", roomId, payload: { id: roomId, inserted_at: now, updated_at: now }, raw: { id: roomId } });
    }
    for (const roomId of [...this.roomIds].filter((r) => current.has(r))) {
      if (this.channels.get(`chat_room:${roomId}`)?.state !== "joined") await this.subscribeRoom(roomId);
    }
    log().info("Reconnected to platform");
    this.events.put({ type: "reconnected", roomId: null, payload: {}, raw: {} });
  }
}
