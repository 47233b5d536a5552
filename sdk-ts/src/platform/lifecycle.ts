/** The message lifecycle as `BandLink` offers it to host code: fetch, claim, settle. Booleans
 * are true only when the platform confirmed. */

import type { AgentRestClient, MarkResult } from "../rest/agent.js";
import type { ChatMessage } from "../wire.js";

const MAX_SCAN_PAGES = 20;

export class MessageLifecycle {
  public constructor(
    /** The agent REST surface (`/api/v1/agent/...`). */
    public readonly rest: AgentRestClient,
  ) {}

  /** The agent REST client (an alias of `rest`). */
  public get api(): AgentRestClient {
    return this.rest;
  }

  /** The oldest message for this agent in the room not yet handled; null on 204. */
  public getNextMessage(roomId: string): Promise<ChatMessage | null> {
    return this.rest.getNext(roomId);
  }

  /** Messages left `processing` (e.g. by a process that died mid-turn), oldest first. */
  public async getStaleProcessingMessages(roomId: string): Promise<ChatMessage[]> {
    const out: ChatMessage[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_SCAN_PAGES; page += 1) {
      const { items, metadata } = await this.rest.listMessages(roomId, { status: "processing", sortOrder: "asc", ...(cursor ? { cursor } : {}) });
      out.push(...items);
      const next = metadata.next_cursor;
      if (metadata.has_more !== true || typeof next !== "string" || !next) break;
      cursor = next;
    }
    return out;
  }

  /** Claim a message; true when the platform opened (or kept) the attempt. */
  public async markProcessing(roomId: string, messageId: string): Promise<boolean> {
    return (await this.rest.markProcessing(roomId, messageId)) === "ok";
  }

  /** Acknowledge a handled message; true when the platform recorded it. */
  public async markProcessed(roomId: string, messageId: string): Promise<boolean> {
    return (await this.rest.markProcessed(roomId, messageId)) === "ok";
  }

  /** Record a failed attempt with its error text; true when recorded. */
  public async markFailed(roomId: string, messageId: string, error: string): Promise<boolean> {
    return (await this.rest.markFailed(roomId, messageId, error)) === "ok";
  }

  /** How the platform answered the last kind of mark, for callers that need the reason. */
  public markProcessedResult(roomId: string, messageId: string): Promise<MarkResult> {
    return this.rest.markProcessed(roomId, messageId);
  }

  /** Show or clear the working indicator; true when the platform took it. */
  public async reportActivity(roomId: string, working: boolean): Promise<boolean> {
    return (await this.rest.sendActivity(roomId, working)) !== null;
  }
}
