/**
 * `ExecutionContext`: the one serial loop of a room, for the `Agent` and `AgentRuntime`.
 *
 * Events for the room run one at a time in arrival order (rooms run concurrently). A message
 * is claimed (a push into an idle room may come claimed: `claimOnPush`), handed to
 * `onExecute(ctx, event)` and settled by `TurnRunner`. The loop drains `/next` at start, on
 * `requestResync()` (a reconnect, a play) and on an idle timer (first fire random within
 * `idleResyncMs`, then doubling while idle up to `idleResyncMaxMs`), so a lost push is
 * recovered by the platform, never by luck.
 */

import { log } from "../logger.js";
import { messageEvent, type MessageEvent, type PlatformEvent } from "../platform/events.js";
import type { BandLink } from "../platform/link.js";
import { AsyncQueue } from "../platform/queue.js";
import type { ChatMessage } from "../wire.js";
import { claimedOnPush, deliveryProcessed, isSelfEcho, type HistoryItem, type RosterEntry } from "./messages.js";
import { RoomState } from "./room.js";
import type { SessionConfig } from "./sessionConfig.js";
import { TurnRunner, TurnServices, type Outcome } from "./turn.js";

export type ExecutionHandler = (ctx: ExecutionContext, event: PlatformEvent) => Promise<void>;
export type ParticipantHook = (roomId: string, participant: Record<string, unknown>) => unknown;
export type ExecutionState = "starting" | "idle" | "processing";

const DRAIN = Symbol("drain");
const STOP = Symbol("stop");
type Item = PlatformEvent | typeof DRAIN | typeof STOP;

export interface ExecutionOptions {
  services: TurnServices;
  onParticipantAdded?: ParticipantHook | undefined;
  onParticipantRemoved?: ParticipantHook | undefined;
  /** The platform reported this room's execution stopped (the turn was cut). */
  onPlatformStop?: ((ctx: ExecutionContext) => Promise<void>) | undefined;
}

/** The serial execution of one room (see the module comment). */
export class ExecutionContext {
  public readonly room: RoomState;
  public state: ExecutionState = "starting";
  private readonly s: TurnServices;
  private readonly queue = new AsyncQueue<Item>();
  private loop: Promise<void> | null = null;
  private runner: TurnRunner | null = null;
  private closing = false;
  private stopped = false;
  private drainQueued = false;
  private idleMs: number;
  /** Pushes whose claim came with them, taken while the room was idle: their turn skips its
   * `/processing` (after another turn it claims again: that one moved the indicator). */
  private readonly pushClaims = new Set<string>();

  public constructor(
    public readonly roomId: string,
    public readonly link: BandLink,
    public readonly onExecute: ExecutionHandler,
    private readonly options: ExecutionOptions,
  ) {
    this.s = options.services;
    this.room = new RoomState(roomId, this.s.agentId, this.s.rest, this.s.session);
    this.idleMs = this.s.session.idleResyncMs;
  }

  public get agentId(): string {
    return this.s.agentId;
  }

  public get config(): SessionConfig {
    return this.s.session;
  }

  /** Aborts when the running turn is cut (interrupt, stop, time limit) or ends. */
  public get signal(): AbortSignal | null {
    return this.runner?.abort.signal ?? null;
  }

  public get isProcessing(): boolean {
    return this.runner !== null;
  }

  /** The platform stopped this room; it waits for play (or runnable work on `/next`). */
  public get isStopped(): boolean {
    return this.stopped;
  }

  /** The session has had its bootstrap turn (history handed over). */
  public get isLlmInitialized(): boolean {
    return !this.room.bootstrap;
  }

  public markLlmInitialized(): void {
    this.room.bootstrap = false;
  }

  /** The running turn told the room about its failure: no generic notice after it. */
  public noteTurnFailureReported(): void {
    if (this.runner) this.runner.failureReported = true;
  }

  // -- participants, context, system notes ---------------------------------------------------

  public get participants(): RosterEntry[] {
    return this.room.participants;
  }

  public participantsChanged(): boolean {
    return this.room.participantsChanged();
  }

  public markParticipantsSent(snapshot?: RosterEntry[]): void {
    this.room.markParticipantsSent(snapshot);
  }

  public buildParticipantsMessage(): string {
    return this.room.participantsMessage();
  }

  /** Queue a system note for the next turn of this room. */
  public injectSystemMessage(message: string): void {
    this.room.systemMessages.push(message);
  }

  public peekPendingSystemMessages(): string[] {
    return [...this.room.systemMessages];
  }

  public commitSystemMessages(prepared: string[]): void {
    this.room.commitSystemMessages(prepared);
  }

  /** Fetch the roster from the platform (and keep it). */
  public loadParticipants(): Promise<RosterEntry[]> {
    return this.room.loadParticipants();
  }

  /** Raw history items before `excludeMessageId` (the context is hydrated before each turn). */
  public getHistoryForLlm(excludeMessageId = ""): HistoryItem[] {
    return this.room.historyFor(excludeMessageId);
  }

  // -- lifecycle ------------------------------------------------------------------------------

  public start(): void {
    if (this.loop === null) {
      log().info(`Starting ExecutionContext for room: ${this.roomId}`);
      this.loop = this.run().catch((error: unknown) => {
        log().error(`Room ${this.roomId}: execution loop failed: ${String(error)}`);
      });
    }
  }

  /** Stop taking work; wait for the current turn up to `timeoutMs` (default 5 s), then cut it.
   * True when no turn had to be cut. */
  public async stop(timeoutMs = 5_000): Promise<boolean> {
    this.closing = true;
    if (this.loop === null) return true;
    this.queue.put(STOP);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => {
        resolve(false);
      }, timeoutMs);
    });
    const finished = await Promise.race([this.loop.then(() => true), timedOut]);
    clearTimeout(timer);
    if (!finished) {
      this.runner?.cancel("stop");
      await this.loop;
    }
    return finished;
  }

  /** Queue a room event; roster changes apply at once, their hooks run in order. */
  public onEvent(event: PlatformEvent): void {
    if (event.type === "reconnected") {
      this.requestResync();
      return;
    }
    if (event.type === "participant_added") this.room.participantAdded(event.payload);
    else if (event.type === "participant_removed") this.room.participantRemoved(event.payload.id);
    if (this.closing) return;
    const idle = this.runner === null && this.queue.size === 0;
    if (event.type === "message_created" && idle && claimedOnPush(event.payload, this.s.agentId)) {
      this.pushClaims.add(event.payload.id);
    }
    this.queue.put(event);
  }

  /** Drain `/next` at the next opportunity (after a reconnect or a play). */
  public requestResync(): void {
    if (!this.closing && !this.drainQueued) {
      this.drainQueued = true;
      this.queue.put(DRAIN);
    }
  }

  // -- controls -------------------------------------------------------------------------------

  /** Cut the running turn: `interrupt` consumes its message, `stop` leaves it open. */
  public interrupt(kind: "interrupt" | "stop" = "interrupt"): boolean {
    if (this.runner === null) return false;
    this.runner.cancel(kind);
    return true;
  }

  /** Pause the room until play (or runnable work found by a probe) and cut its turn. */
  public stopRoom(): void {
    this.stopped = true;
    this.interrupt("stop");
  }

  /** Clear the pause and catch up through `/next`. */
  public resumeRoom(): void {
    this.stopped = false;
    this.requestResync();
  }

  // -- the loop -------------------------------------------------------------------------------

  private async run(): Promise<void> {
    await this.drain();
    this.state = "idle";
    let first = true;
    while (!this.closing) {
      const delay = first ? Math.random() * this.s.session.idleResyncMs : this.idleMs;
      first = false;
      const item = await this.queue.get(delay);
      if (item === "timeout") {
        const found = await this.drain();
        const { idleResyncMs, idleResyncMaxMs } = this.s.session;
        this.idleMs = found ? idleResyncMs : Math.min(idleResyncMaxMs, this.idleMs * 2);
        continue;
      }
      if (item === STOP || item === null) return;
      if (item === DRAIN) {
        this.drainQueued = false;
        await this.drain();
      } else if (item.type === "message_created") {
        await this.handle(item.payload, item, "ws");
        this.idleMs = this.s.session.idleResyncMs;
      } else {
        await this.other(item);
      }
    }
  }

  /** Handle `/next` until 204 or a repeated head; true when it found work. */
  private async drain(): Promise<boolean> {
    let found = false;
    let last: string | null = null;
    while (!this.closing) {
      let next: ChatMessage | null;
      try {
        next = await this.s.nextGate.use(() => this.s.rest.getNext(this.roomId));
      } catch (error) {
        log().warn(`Room ${this.roomId}: /next failed: ${String(error)}`);
        break;
      }
      if (next === null || next.id === last) break;
      last = next.id;
      if (this.stopped) {
        log().info(`Room ${this.roomId}: runnable work found while stopped; resuming`);
        this.stopped = false;
      }
      found = true;
      if ((await this.handle(next, null, "next")) === "stopped") break;
    }
    return found;
  }

  private async handle(message: ChatMessage, event: MessageEvent | null, source: "ws" | "next"): Promise<Outcome> {
    const { s } = this;
    // Forgotten on every path: a claim is trusted for the handling of its own push only.
    const claimed = this.pushClaims.delete(message.id) && source === "ws";
    if (!message.id || isSelfEcho(message, s.agentId)) return "skipped";
    if (s.retries.done.has(message.id) && !s.retries.pendingAcks.has(message.id)) return "skipped";
    if (deliveryProcessed(message, s.agentId)) {
      s.retries.done.add(message.id);
      return "skipped";
    }
    if (this.stopped && source === "ws") {
      // Left for /next after play (claimed over REST then); the push's claim started the
      // indicator, which no turn will end.
      if (claimed && s.session.enableWorkingState) await s.rest.sendActivity(this.roomId, false);
      return "stopped";
    }
    const runner = new TurnRunner(s, this.roomId, () => {
      void this.platformStopped();
    });
    this.runner = runner;
    this.state = "processing";
    const typed = event ?? messageEvent(this.roomId, message);
    try {
      const outcome = await runner.run(
        message,
        async () => {
          await this.room.ensureHydrated();
          return this.room.contextSaysProcessed(message.id);
        },
        () => this.onExecute(this, typed),
        claimed,
      );
      if (outcome === "stopped") this.stopped = true;
      return outcome;
    } finally {
      this.runner = null;
      this.state = "idle";
    }
  }

  private async platformStopped(): Promise<void> {
    this.stopRoom();
    await this.options.onPlatformStop?.(this);
  }

  private async other(event: PlatformEvent): Promise<void> {
    const hook =
      event.type === "participant_added"
        ? this.options.onParticipantAdded
        : event.type === "participant_removed"
          ? this.options.onParticipantRemoved
          : undefined;
    try {
      if (hook) await hook(this.roomId, event.raw);
      await this.onExecute(this, event);
    } catch (error) {
      log().error(`Room ${this.roomId}: handler failed for ${event.type}: ${String(error)}`);
    }
  }
}
