/**
 * Deterministic `Idempotency-Key`s for what an agent posts while it handles one message.
 *
 * A process killed after posting its reply but before `/processed` leaves the message open;
 * the platform serves it again and the re-run would answer twice. Inside
 * `withTurnKeys(agentId, messageId, fn)` every post to a room's `messages` or `events` route
 * carries a key derived from (agent, message, route and event type, position among the
 * turn's posts of that kind): the platform replays the first run's answer for the same body,
 * and answers 422 `idempotency_key_reused` for another body, which counts as posted.
 */

import { createHash } from "node:crypto";
import { AsyncLocalStorage } from "node:async_hooks";

export const KEY_REUSED = "idempotency_key_reused";
export const KEY_IN_USE = "idempotency_key_in_use";
const SPEECH = /^\/agent\/chats\/[^/]+\/(messages|events)$/;

/** The key source of one message's turn: counts posts per kind. */
export class TurnKeys {
  private readonly counts = new Map<string, number>();

  public constructor(
    public readonly agentId: string,
    public readonly messageId: string,
  ) {}

  public nextKey(kind: string): string {
    const position = this.counts.get(kind) ?? 0;
    this.counts.set(kind, position + 1);
    const seed = [this.agentId, this.messageId, kind, String(position)].join("\0");
    return `band-turn-${createHash("sha256").update(seed).digest("hex").slice(0, 40)}`;
  }
}

const current = new AsyncLocalStorage<TurnKeys>();

/** Run `fn` so that its room posts (and those of work it starts) carry turn keys. */
export function withTurnKeys<T>(agentId: string, messageId: string, fn: () => Promise<T>): Promise<T> {
  return current.run(new TurnKeys(agentId, messageId), fn);
}

/** The deterministic key of this request, or null when it is not a turn's speech. */
export function turnPostKey(method: string, path: string, body: unknown): string | null {
  const keys = current.getStore();
  if (keys === undefined || method !== "POST" || !SPEECH.test(path)) return null;
  let kind = path;
  const event = typeof body === "object" && body !== null ? (body as { event?: unknown }).event : undefined;
  if (typeof event === "object" && event !== null) {
    kind = `${path}#${String((event as { message_type?: unknown }).message_type)}`;
  }
  return keys.nextKey(kind);
}

/** A reused turn key means the first run made this post: answer as a success. */
export function settledReuse(body: unknown): Response {
  const data: Record<string, unknown> = { id: null, success: true, already_posted: true };
  const event = typeof body === "object" && body !== null ? (body as { event?: unknown }).event : undefined;
  if (typeof event === "object" && event !== null) {
    data.message_type = (event as { message_type?: unknown }).message_type;
  } else {
    data.recipients = [];
  }
  return new Response(JSON.stringify({ data }), {
    status: 200,
    headers: { "content-type": "application/json", "idempotent-replayed": "true" },
  });
}
