/**
 * The HTTP core of both REST clients: `fetch` with the key, `{data}` envelopes, error
 * envelopes as `BandRestError`, bounded retries (408/429/5xx and network errors, honouring
 * Retry-After) and an `Idempotency-Key` on every retried POST. Posts made while a message is
 * handled carry that turn's deterministic key (`turnKeys.ts`).
 */

import { randomUUID } from "node:crypto";

import { BandConnectionError, BandRestError } from "../errors.js";
import { KEY_IN_USE, KEY_REUSED, settledReuse, turnPostKey } from "./turnKeys.js";

export const API_PREFIX = "/api/v1";
const RETRY_STATUSES = new Set([408, 429]);
const OUTAGE_STATUSES = new Set([502, 503, 504]);
const IN_USE_WAITS = [250, 500, 1000, 2000, 4000];

export type Query = Record<string, string | number | boolean | null | undefined>;

export interface HttpOptions {
  /** Per-request timeout in milliseconds (default 60 s). */
  timeoutMs?: number;
  /** Retries of a transient failure (default 3). */
  maxRetries?: number;
  /** While the platform is unreachable, keep trying this long in all (default 60 s). */
  outageWindowMs?: number;
  /** Replaces the global `fetch` (a test seam). */
  fetch?: typeof fetch;
}

export interface SendOptions {
  query?: Query;
  json?: unknown;
  retry?: boolean;
  timeoutMs?: number;
  headers?: Record<string, string>;
  /** false: never send an Idempotency-Key (the request is idempotent by itself). */
  keyed?: boolean;
}

/** A success body: `data`, plus `metadata` on list endpoints. */
export interface Envelope {
  data?: unknown;
  metadata?: Record<string, unknown>;
  [key: string]: unknown;
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

function retryAfterMs(response: Response): number | null {
  const millis = response.headers.get("retry-after-ms");
  if (millis !== null && Number.isFinite(Number(millis))) return Math.max(0, Number(millis));
  const value = response.headers.get("retry-after");
  if (value === null) return null;
  if (Number.isFinite(Number(value))) return Math.max(0, Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

/** The `BandRestError` of a non-2xx answer (tolerates bodies without an envelope). */
export async function errorFromResponse(response: Response): Promise<BandRestError> {
  const raw = await response.text().catch(() => "");
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    body = null;
  }
  const requestId = response.headers.get("x-request-id");
  const error = typeof body === "object" && body !== null ? (body as { error?: unknown }).error : undefined;
  if (typeof error === "object" && error !== null) {
    const e = error as Record<string, unknown>;
    const details = typeof e.details === "object" && e.details !== null ? (e.details as Record<string, unknown>) : null;
    return new BandRestError(
      response.status,
      typeof e.code === "string" ? e.code : `http_${response.status}`,
      typeof e.message === "string" ? e.message : response.statusText,
      details,
      typeof e.request_id === "string" ? e.request_id : requestId,
    );
  }
  return new BandRestError(response.status, `http_${response.status}`, raw.trim().slice(0, 200) || response.statusText, null, requestId);
}

/** The envelope's `error.code` of a non-2xx answer, read from a clone (the body stays unread). */
async function errorCode(response: Response): Promise<string | null> {
  if (response.ok) return null;
  try {
    const body = (await response.clone().json()) as { error?: { code?: unknown } };
    return typeof body.error?.code === "string" ? body.error.code : null;
  } catch {
    return null;
  }
}

/** Sends requests to `<baseUrl>/api/v1/...` with `X-API-Key`; see the module comment. */
export class HttpCore {
  public readonly baseUrl: string;
  /** HTTP attempts sent so far (retries included). */
  public requestCount = 0;
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly outageWindowMs: number;

  public constructor(
    baseUrl: string,
    private readonly apiKey: string,
    options: HttpOptions = {},
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.maxRetries = options.maxRetries ?? 3;
    this.outageWindowMs = options.outageWindowMs ?? 60_000;
  }

  private url(path: string, query?: Query): string {
    const url = new URL(this.baseUrl + API_PREFIX + path);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== null && value !== undefined) url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  /** One logical request (retries included); the last response. Throws only when unreachable. */
  public async send(method: string, path: string, options: SendOptions = {}): Promise<Response> {
    if (options.keyed === false) return this.attempts(method, path, options, false);
    const own = options.headers !== undefined && "Idempotency-Key" in options.headers;
    const key = own ? null : turnPostKey(method, path, options.json);
    if (key === null) return this.attempts(method, path, options);
    const keyed = { ...options, headers: { ...(options.headers ?? {}), "Idempotency-Key": key } };
    for (const wait of [...IN_USE_WAITS, null]) {
      const response = await this.attempts(method, path, keyed);
      const code = await errorCode(response);
      if (code === KEY_REUSED) return settledReuse(options.json); // an earlier run made this post
      if (code !== KEY_IN_USE || wait === null) return response;
      await sleep(wait); // the earlier run's post is still being written
    }
    throw new Error("unreachable");
  }

  private async attempts(method: string, path: string, options: SendOptions, keyed?: boolean): Promise<Response> {
    const retry = options.retry ?? true;
    const headers: Record<string, string> = { "X-API-Key": this.apiKey, Accept: "application/json" };
    if (keyed ?? (method === "POST" && retry)) headers["Idempotency-Key"] = randomUUID();
    Object.assign(headers, options.headers ?? {});
    let body: string | undefined;
    if (options.json !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(options.json);
    }
    const url = this.url(path, options.query);
    let attempt = 0;
    let waited = 0;
    for (;;) {
      this.requestCount += 1;
      let response: Response | null = null;
      let failure: unknown = null;
      try {
        response = await this.fetchImpl(url, {
          method,
          headers,
          body: body ?? null,
          signal: AbortSignal.timeout(options.timeoutMs ?? this.timeoutMs),
        });
      } catch (error) {
        failure = error;
      }
      const status = response?.status ?? 0;
      const outage = response === null || OUTAGE_STATUSES.has(status);
      const transient = outage || RETRY_STATUSES.has(status) || status >= 500;
      if (retry && transient) {
        let delay = -1;
        if (attempt < this.maxRetries) {
          const hinted = response === null ? null : retryAfterMs(response);
          delay = Math.min(hinted ?? 500 * 2 ** attempt + Math.random() * 250, 30_000);
        } else if (outage && waited < this.outageWindowMs) {
          delay = Math.min(5_000, this.outageWindowMs - waited);
        }
        if (delay >= 0) {
          attempt += 1;
          if (outage) waited += delay;
          await response?.body?.cancel();
          await sleep(delay);
          continue;
        }
      }
      if (response === null) {
        throw new BandConnectionError(`${method} ${path} failed: ${String(failure)}`, { cause: failure });
      }
      return response;
    }
  }

  /** Send and return the whole success body; non-2xx throws `BandRestError`; 204 gives `{}`. */
  public async callFull(method: string, path: string, options: SendOptions = {}): Promise<Envelope> {
    const response = await this.send(method, path, options);
    if (!response.ok) throw await errorFromResponse(response);
    const raw = await response.text();
    if (response.status === 204 || raw === "") return {};
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      throw new BandRestError(response.status, "invalid_response", "response body is not JSON");
    }
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw new BandRestError(response.status, "invalid_response", "response body is not an object");
    }
    return body as Envelope;
  }

  /** Send and unwrap `data` (undefined on 204). */
  public async call(method: string, path: string, options: SendOptions = {}): Promise<unknown> {
    return (await this.callFull(method, path, options)).data;
  }
}
