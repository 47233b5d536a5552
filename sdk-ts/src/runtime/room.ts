/**
 * `RoomState`: what an agent knows about one room (roster, hydrated context, whether the
 * session has had its bootstrap, pending system notes). Participants and context are fetched
 * on first use and again after the cache TTL; pushed roster changes apply at once.
 */

import { log } from "../logger.js";
import type { AgentRestClient } from "../rest/agent.js";
import type { ChatMessage } from "../wire.js";
import {
  buildParticipantsMessage,
  deliveryProcessed,
  historyBefore,
  rosterEntry,
  type HistoryItem,
  type RosterEntry,
} from "./messages.js";
import type { SessionConfig } from "./sessionConfig.js";

export class RoomState {
  public roster = new Map<string, RosterEntry>();
  public context: ChatMessage[] = [];
  /** The next turn is the session's first (it gets the history). */
  public bootstrap = true;
  public readonly systemMessages: string[] = [];
  private fetchedAt: number | null = null;
  private sent: string | null = null;

  public constructor(
    public readonly roomId: string,
    public readonly agentId: string,
    private readonly rest: AgentRestClient,
    private readonly session: SessionConfig,
  ) {}

  public get participants(): RosterEntry[] {
    return [...this.roster.values()].map((p) => ({ ...p }));
  }

  public setRoster(participants: Iterable<Record<string, unknown>>): void {
    this.roster = new Map();
    for (const p of participants) {
      const entry = rosterEntry(p);
      if (entry) this.roster.set(entry.id, entry);
    }
  }

  /** Add or update one participant; true when the roster changed. */
  public participantAdded(payload: Record<string, unknown>): boolean {
    const entry = rosterEntry(payload);
    if (!entry || JSON.stringify(this.roster.get(entry.id)) === JSON.stringify(entry)) return false;
    this.roster.set(entry.id, entry);
    return true;
  }

  public participantRemoved(participantId: string): boolean {
    return this.roster.delete(participantId);
  }

  /** The roster differs from the one last handed to the model. */
  public participantsChanged(): boolean {
    return this.sent !== JSON.stringify(this.participants);
  }

  public markParticipantsSent(snapshot?: RosterEntry[]): void {
    const now = JSON.stringify(this.participants);
    if (snapshot === undefined || JSON.stringify(snapshot) === now) this.sent = now;
  }

  public participantsMessage(): string {
    return buildParticipantsMessage(this.roster.values(), this.agentId);
  }

  /** Fetch the roster (kept; a failure keeps the one we have). */
  public async loadParticipants(): Promise<RosterEntry[]> {
    try {
      this.setRoster((await this.rest.listParticipants(this.roomId)) as Record<string, unknown>[]);
    } catch (error) {
      log().warn(`Room ${this.roomId}: could not load participants: ${String(error)}`);
    }
    return this.participants;
  }

  /** Fetch participants and context on first use, after the cache TTL, or when forced. */
  public async ensureHydrated(force = false): Promise<void> {
    const fresh = this.fetchedAt !== null && Date.now() - this.fetchedAt < this.session.contextCacheTtlMs;
    if (fresh && !force) return;
    this.fetchedAt = Date.now();
    await this.loadParticipants();
    if (!this.session.enableContextHydration) return;
    try {
      const { items } = await this.rest.getContext(this.roomId);
      this.context = items.slice(-this.session.maxContextMessages);
    } catch (error) {
      log().warn(`Room ${this.roomId}: could not load history: ${String(error)}`);
      this.context = [];
    }
  }

  /** Raw history items before `messageId`. */
  public historyFor(messageId: string): HistoryItem[] {
    return this.session.enableContextHydration ? historyBefore(this.context, messageId, this.roster) : [];
  }

  public contextSaysProcessed(messageId: string): boolean {
    const item = this.context.find((m) => m.id === messageId);
    return item !== undefined && deliveryProcessed(item, this.agentId);
  }

  /** Drop the notes `prepared` was taken from, keeping any that arrived since. */
  public commitSystemMessages(prepared: string[]): void {
    const head = this.systemMessages.slice(0, prepared.length);
    if (head.length === prepared.length && head.every((m, i) => m === prepared[i])) {
      this.systemMessages.splice(0, prepared.length);
    }
  }

  /** Forget the cached context so the next turn bootstraps again. */
  public resetSession(): void {
    this.fetchedAt = null;
    this.bootstrap = true;
  }
}
