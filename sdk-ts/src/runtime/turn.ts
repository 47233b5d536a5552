/**
 * One message, start to ack: claim (`/processing`; a push into an idle room may come claimed:
 * `claimOnPush`), keep the working indicator alive, run the handler under the turn's keys,
 * settle (`/processed`; `/failed` and, on the last attempt, one error event). It never throws
 * for handler errors: every ending becomes an `Outcome`.
 */

import { RoomExecutionStoppedError, errorText } from "../errors.js";
import { log } from "../logger.js";
import type { AgentRestClient, MarkResult } from "../rest/agent.js";
import { withTurnKeys } from "../rest/turnKeys.js";
import type { ChatMessage } from "../wire.js";
import type { SessionConfig } from "./sessionConfig.js";

export type Outcome = "processed" | "failed" | "skipped" | "stopped" | "interrupted";

export const GENERIC_FAILURE_MESSAGE = "Internal error while processing message; see agent logs.";
export const TURN_FAILURE_PROVIDER = "band-runtime";

/** Attempts per message, and the ids this process is done with or still owes an ack. */
export class RetryTracker {
  public readonly done = new Set<string>();
  public readonly pendingAcks = new Set<string>();
  private readonly attempts = new Map<string, number>();

  public constructor(public readonly maxRetries = 1) {}

  /** Count an attempt: [count, exceeded]. */
  public recordAttempt(messageId: string): [number, boolean] {
    const count = (this.attempts.get(messageId) ?? 0) + 1;
    this.attempts.set(messageId, count);
    return [count, count > this.maxRetries];
  }

  public discardAttempt(messageId: string): void {
    const count = (this.attempts.get(messageId) ?? 1) - 1;
    if (count <= 0) this.attempts.delete(messageId);
    else this.attempts.set(messageId, count);
  }

  public markSuccess(messageId: string): void {
    this.attempts.delete(messageId);
  }
}

/** At most `limit` holders at once (the `/next` polls of one agent across its rooms). */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  public constructor(private readonly limit: number) {}

  public async use<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active += 1;
    try {
      return await fn();
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }
}

/** What every room of one agent shares: identity, REST, tuning, bookkeeping. */
export class TurnServices {
  public readonly retries: RetryTracker;
  public readonly nextGate = new Semaphore(4);

  public constructor(
    public readonly agentId: string,
    public readonly rest: AgentRestClient,
    public readonly session: SessionConfig,
  ) {
    this.retries = new RetryTracker(session.maxMessageRetries);
  }
}

/** Cancelled by a control: `interrupt` consumes the message, `stop` leaves it open. */
export type CancelMode = "interrupt" | "stop";

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** Runs one message of one room; `cancel(mode)` stops waiting for the handler. */
export class TurnRunner {
  public readonly abort = new AbortController();
  public failureReported = false;
  private cancelMode: CancelMode | null = null;
  private onClaim = false;
  private cancelled: (() => void) | null = null;

  public constructor(
    private readonly s: TurnServices,
    private readonly roomId: string,
    private readonly onPlatformStop: () => void,
  ) {}

  /** Cancel the running handler (its signal aborts; the turn ends without waiting for it). */
  public cancel(mode: CancelMode): void {
    this.cancelMode = mode;
    this.abort.abort(new Error(`turn ${mode}`));
    this.cancelled?.();
  }

  /**
   * Run `message` through `handler` (`prepare` hydrates the room and says whether the
   * context already shows it processed). `claimed`: its push opened the attempt (and the
   * indicator, with working state on), so a first attempt skips its claim.
   */
  public async run(message: ChatMessage, prepare: () => Promise<boolean>, handler: () => Promise<void>, claimed = false): Promise<Outcome> {
    const { s, roomId } = this;
    const id = message.id;
    if (s.retries.pendingAcks.has(id)) {
      // A turn that ran but whose ack was lost: retry only the ack.
      if ((await s.rest.markProcessed(roomId, id)) === "ok") {
        s.retries.pendingAcks.delete(id);
        s.retries.done.add(id);
      }
      return "skipped";
    }
    const [count, exceeded] = s.retries.recordAttempt(id);
    if (exceeded) {
      if (count === s.session.maxMessageRetries + 1) log().warn(`Message ${id} exceeded max retries (${count - 1} attempts)`);
      return "skipped";
    }
    if (claimed && count === 1) this.onClaim = s.session.enableWorkingState;
    else {
      const refused = await this.claim(id);
      if (refused !== null) return refused;
    }
    if (await prepare()) {
      s.retries.done.add(id);
      await this.endedBy(await s.rest.markProcessed(roomId, id));
      return "skipped";
    }
    return withTurnKeys(s.agentId, id, async () => {
      const error = await this.call(handler);
      return this.finish(id, error, count >= s.session.maxMessageRetries);
    });
  }

  /** Claim over REST (`/processing`): null when it landed, else the turn's outcome. */
  private async claim(id: string): Promise<Outcome | null> {
    const { s, roomId } = this;
    const claim = await s.rest.claim(roomId, id, s.session.enableWorkingState);
    if (claim.result === "ok") {
      this.onClaim = claim.working;
      return null;
    }
    s.retries.discardAttempt(id);
    if (claim.result === "stopped") return "stopped";
    log().warn(`Room ${roomId}: could not claim message ${id} (${claim.result})`);
    return "skipped";
  }

  private async call(handler: () => Promise<void>): Promise<unknown> {
    const { s } = this;
    const working = s.session.enableWorkingState;
    if (working && !this.onClaim) await this.activity(true);
    const keepAlive = working ? this.keepAlive() : null;
    let error: unknown = null;
    try {
      const cut = new Promise<"cut">((resolve) => {
        this.cancelled = () => {
          resolve("cut");
        };
        const limit = s.session.maxCycleMs;
        if (limit !== null) {
          setTimeout(() => {
            if (!this.abort.signal.aborted) {
              error = new Error(`turn exceeded ${limit} ms`);
              this.abort.abort(error);
              resolve("cut");
            }
          }, limit).unref();
        }
      });
      await Promise.race([handler(), cut]);
    } catch (thrown) {
      error = thrown;
    } finally {
      this.cancelled = null;
      this.abort.abort(new Error("turn over"));
      await keepAlive;
      if (working && !this.onClaim) await this.activity(false);
    }
    return this.cancelMode === null ? error : null;
  }

  private async finish(id: string, error: unknown, last: boolean): Promise<Outcome> {
    const { s, roomId } = this;
    if (this.cancelMode === "stop" || error instanceof RoomExecutionStoppedError) {
      s.retries.discardAttempt(id);
      await this.endedBy(null);
      log().info(`Room ${roomId}: turn for ${id} stopped by the platform`);
      return "stopped";
    }
    if (this.cancelMode === "interrupt") {
      s.retries.discardAttempt(id);
      await this.ack(id);
      log().info(`Room ${roomId}: turn for ${id} interrupted`);
      return "interrupted";
    }
    if (error === null) {
      await this.ack(id);
      return "processed";
    }
    const text = errorText(error).trim() || "Error";
    log().error(`Room ${roomId}: error processing message ${id}: ${text}`);
    await this.endedBy(await s.rest.markFailed(roomId, id, text));
    if (last && s.session.reportTurnFailuresToRoom && !this.failureReported) {
      const failure = { provider: TURN_FAILURE_PROVIDER, code: null, message: GENERIC_FAILURE_MESSAGE, detail: null };
      try {
        await s.rest.postEvent(roomId, GENERIC_FAILURE_MESSAGE, "error", { failure });
      } catch (postError) {
        log().warn(`Room ${roomId}: could not post the failure notice: ${String(postError)}`);
      }
    }
    if (last) s.retries.done.add(id);
    return "failed";
  }

  private async ack(id: string): Promise<void> {
    const { s, roomId } = this;
    const result = await s.rest.markProcessed(roomId, id);
    await this.endedBy(result);
    s.retries.markSuccess(id);
    if (result === "ok" || result === "stopped") {
      s.retries.done.add(id);
      return;
    }
    log().warn(`Room ${roomId}: ack of ${id} unconfirmed (${result})`);
    s.retries.pendingAcks.add(id);
  }

  /** The turn's last mark (null: none): when the claim started the indicator and no mark
   * landed, end the indicator here. */
  private async endedBy(mark: MarkResult | null): Promise<void> {
    if (this.onClaim && mark !== "ok") {
      this.onClaim = false;
      await this.activity(false);
    }
  }

  private activity(working: boolean): Promise<boolean | null> {
    return this.s.rest.sendActivity(this.roomId, working);
  }

  private async keepAlive(): Promise<void> {
    const signal = this.abort.signal;
    const over = (): boolean => signal.aborted; // read after each await (the turn may end)
    while (!over()) {
      await sleep(this.s.session.workingKeepAliveMs, signal);
      if (over()) return;
      if ((await this.activity(true)) === false) {
        log().info(`Room ${this.roomId}: platform reports the execution stopped`);
        this.onPlatformStop();
        return;
      }
    }
  }
}
