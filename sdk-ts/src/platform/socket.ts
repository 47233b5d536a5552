/**
 * The realtime socket: the official `phoenix` client over `ws` (which can send the
 * `x-api-key` header on the upgrade). Phoenix keeps the wire (v2 framing, join refs,
 * heartbeats, rejoining every channel after a reconnect); this module adds what Band needs:
 * header authentication, Band's reconnect backoff, close 1008 as final, and the HTTP status
 * of a refused upgrade.
 */

import { Socket, type Channel } from "phoenix";
import WebSocket from "ws";

import { AgentAlreadyRunningError, BandConnectionError } from "../errors.js";

/** Timings of the socket (tests shorten them). */
export interface SocketTimings {
  heartbeatMs?: number;
  /** Milliseconds before reconnect attempt `tries` (default: equal-jitter 0.5 s·2^n, cap 30 s). */
  reconnectAfterMs?: (tries: number) => number;
  /** How long the first connect may keep retrying transient failures (default 60 s). */
  connectTimeoutMs?: number;
  joinTimeoutMs?: number;
}

/** Equal-jitter exponential backoff: half of 0.5 s·2^n fixed, half random, capped at 30 s. */
export function backoffMs(tries: number): number {
  const ceiling = Math.min(30_000, 500 * 2 ** Math.max(0, tries - 1));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** The HTTP status of a refused upgrade, from `ws`'s error text. */
function refusedStatus(error: unknown): number | null {
  const text = error instanceof Error ? error.message : String((error as { message?: unknown } | null)?.message ?? error);
  const found = /Unexpected server response: (\d{3})/.exec(text);
  return found?.[1] ? Number(found[1]) : null;
}

/** Phoenix's `endPoint` is the URL without its transport suffix: drop `/websocket`. */
export function phoenixEndpoint(wsUrl: string): { endpoint: string; params: Record<string, string> } {
  const url = new URL(wsUrl);
  const params: Record<string, string> = {};
  for (const [key, value] of url.searchParams) {
    if (!["vsn", "api_key", "token"].includes(key)) params[key] = value;
  }
  url.search = "";
  const endpoint = url.toString().replace(/\/websocket\/?$/, "").replace(/\/+$/, "");
  return { endpoint, params };
}

export interface SocketHooks {
  onOpen: (reconnect: boolean) => void;
  onClose: (code: number | null, reason: string, final: boolean) => void;
}

/** One Phoenix socket for one agent; `connect()` resolves on the first open. */
export class BandSocket {
  public readonly phoenix: Socket;
  private opens = 0;
  private ended = false;
  private endedWith: Error | null = null;
  private readonly closedWaiters: ((error: Error | null) => void)[] = [];

  public constructor(
    wsUrl: string,
    apiKey: string,
    params: () => Record<string, string>,
    private readonly hooks: SocketHooks,
    private readonly timings: SocketTimings = {},
  ) {
    const { endpoint, params: urlParams } = phoenixEndpoint(wsUrl);
    const headers = { "x-api-key": apiKey };
    class HeaderWebSocket extends WebSocket {
      public constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers });
      }
    }
    this.phoenix = new Socket(endpoint, {
      transport: HeaderWebSocket as unknown as typeof globalThis.WebSocket,
      params: () => ({ ...urlParams, ...params() }),
      heartbeatIntervalMs: timings.heartbeatMs ?? 30_000,
      reconnectAfterMs: timings.reconnectAfterMs ?? backoffMs,
      timeout: timings.joinTimeoutMs ?? 10_000,
    });
    this.phoenix.onOpen(() => {
      this.opens += 1;
      this.hooks.onOpen(this.opens > 1);
    });
    this.phoenix.onClose((event: unknown) => {
      const closing = event as { code?: unknown; reason?: unknown } | undefined;
      const code = typeof closing?.code === "number" ? closing.code : null;
      const reason = typeof closing?.reason === "string" ? closing.reason : "";
      const final = code === 1008; // policy violation: the platform will not take us back
      if (final) this.end(new BandConnectionError(`socket closed by the platform (1008 ${reason})`));
      this.hooks.onClose(code, reason, final || this.ended);
    });
  }

  public get connected(): boolean {
    return this.phoenix.isConnected();
  }

  public get isEnded(): boolean {
    return this.ended;
  }

  /** Open the socket; refuse at once on 400/401/403/409, retry others until the timeout. */
  public connect(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const limit = this.timings.connectTimeoutMs ?? 60_000;
      let lastError = "no answer";
      const settle = (error: Error | null): void => {
        clearTimeout(timer);
        this.phoenix.off([openRef, errorRef]);
        if (error === null) {
          resolve();
          return;
        }
        this.end(error);
        reject(error);
      };
      const timer = setTimeout(() => {
        settle(new BandConnectionError(`could not connect to the platform socket within ${limit} ms: ${lastError}`));
      }, limit);
      const openRef = this.phoenix.onOpen(() => {
        settle(null);
      });
      const errorRef = this.phoenix.onError((error: unknown) => {
        const status = refusedStatus(error);
        lastError = status === null ? String((error as { message?: unknown } | null)?.message ?? error) : `HTTP ${status}`;
        if (status === 409) {
          settle(new AgentAlreadyRunningError("the agent already has a live connection to the platform (409 connection_conflict)"));
        } else if (status === 400 || status === 401 || status === 403 || status === 404) {
          settle(new BandConnectionError(`the platform refused the socket (HTTP ${status})`));
        }
      });
      this.phoenix.connect();
    });
  }

  public channel(topic: string): Channel {
    return this.phoenix.channel(topic, {});
  }

  /** End the socket for good (no reconnect); waiters of `waitClosed()` get `error`. */
  public end(error: Error | null = null): void {
    if (this.ended) return;
    this.ended = true;
    this.endedWith = error;
    this.phoenix.disconnect();
    for (const waiter of this.closedWaiters.splice(0)) waiter(error);
  }

  /** Resolves when the socket has ended for good (null: a clean end), never rejects. */
  public waitClosed(): Promise<Error | null> {
    if (this.ended) return Promise.resolve(this.endedWith);
    return new Promise((resolve) => this.closedWaiters.push(resolve));
  }
}

/** Join `channel`; rejects with the platform's reason (or a timeout). */
export function joinChannel(channel: Channel, topic: string): Promise<void> {
  return new Promise((resolve, reject) => {
    channel
      .join()
      .receive("ok", () => {
        resolve();
      })
      .receive("error", (response: unknown) => {
        const reason = (response as { reason?: unknown } | null)?.reason;
        const text = typeof reason === "string" ? reason : JSON.stringify(reason ?? "error");
        reject(new BandConnectionError(`join ${topic} refused: ${text}`));
      })
      .receive("timeout", () => {
        reject(new BandConnectionError(`join ${topic} timed out`));
      });
  });
}
