/** The room roster as the tools see it, and mention resolution against it. */

import { BandToolError, ValidationError } from "../errors.js";
import type { RosterEntry } from "../runtime/messages.js";

export const MISSING_MENTIONS_ERROR = "At least one mention is required";

/** A mention as callers may pass it: a handle, name or id, or `{id, handle?}`. */
export type MentionInput = string | { id?: string; handle?: string | null; name?: string | null };

export class Roster {
  private members: RosterEntry[] = [];

  public constructor(
    participants: Iterable<RosterEntry>,
    public readonly agentId = "",
  ) {
    this.replace(participants);
  }

  public replace(participants: Iterable<Partial<RosterEntry> & { id: string }>): void {
    this.members = [...participants].map((p) => ({
      id: p.id,
      name: p.name ?? null,
      type: p.type ?? null,
      handle: p.handle ?? null,
      description: p.description ?? null,
    }));
  }

  public add(participant: Partial<RosterEntry> & { id: string }): void {
    this.remove(participant.id);
    this.members.push({
      id: participant.id,
      name: participant.name ?? null,
      type: participant.type ?? null,
      handle: participant.handle ?? null,
      description: participant.description ?? null,
    });
  }

  public remove(participantId: string): void {
    this.members = this.members.filter((m) => m.id !== participantId);
  }

  public get list(): RosterEntry[] {
    return this.members.map((m) => ({ ...m }));
  }

  /** Handles of the other participants (the hint given with mention errors). */
  public handles(): string[] {
    return this.members.filter((m) => m.handle && m.id !== this.agentId).map((m) => m.handle as string);
  }

  /** Match by handle (`@` stripped), then name, then id; exact before case-folded. */
  public find(identifier: string): RosterEntry | null {
    const key = identifier.trim();
    const bare = key.replace(/^@/, "");
    for (const [field, value] of [["handle", bare], ["name", key], ["id", key]] as const) {
      const found = this.members.find((m) => m[field] === value);
      if (found) return { ...found };
    }
    const folded = bare.toLowerCase();
    for (const field of ["handle", "name"] as const) {
      const found = this.members.find((m) => m[field]?.toLowerCase() === folded);
      if (found) return { ...found };
    }
    return null;
  }

  public unknown(identifier: string): ValidationError {
    return new ValidationError(`Unknown participant '${identifier}'. Available handles: ${JSON.stringify(this.handles())}`);
  }

  /** Wire mentions `[{id, handle}]` (deduplicated); unknown identifiers throw. */
  public resolve(mentions: MentionInput[] | null | undefined): { id: string; handle: string }[] {
    const resolved = new Map<string, { id: string; handle: string }>();
    for (const mention of mentions ?? []) {
      if (typeof mention === "object") {
        if (mention.id) {
          const known = this.find(mention.id);
          resolved.set(mention.id, { id: mention.id, handle: mention.handle ?? known?.handle ?? "" });
          continue;
        }
        const label = mention.handle ?? mention.name ?? "";
        if (!label.trim()) continue;
        const member = this.find(label);
        if (!member) throw this.unknown(label);
        resolved.set(member.id, { id: member.id, handle: member.handle ?? "" });
        continue;
      }
      if (!mention.trim()) continue;
      const member = this.find(mention);
      if (!member) throw this.unknown(mention);
      resolved.set(member.id, { id: member.id, handle: member.handle ?? "" });
    }
    if (resolved.size === 0) {
      const handles = this.handles();
      throw new BandToolError(
        handles.length
          ? `${MISSING_MENTIONS_ERROR}. Available handles: ${JSON.stringify(handles)}. Use participant handles from the list.`
          : MISSING_MENTIONS_ERROR,
      );
    }
    return [...resolved.values()];
  }
}
