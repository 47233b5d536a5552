/**
 * `AgentRestClient`: the agent surface of the REST API (`/api/v1/agent/...`): identity,
 * rooms, participants, messages and their delivery lifecycle, events, peers, contacts,
 * memories. Answers are checked against the wire models (`wire.ts`).
 */

import { z } from "zod";

import { BandConnectionError, BandRestError } from "../errors.js";
import {
  Activity,
  AgentMe,
  ChatMessage,
  ChatRoom,
  EventSent,
  MessageSent,
  Participant,
  Peer,
} from "../wire.js";
import { HttpCore, errorFromResponse, type HttpOptions, type Query } from "./http.js";

/** How the platform answered a lifecycle mark (processing / processed / failed). */
export type MarkResult = "ok" | "stopped" | "not_found" | "rejected" | "unconfirmed";

/** A page of items and its paging metadata. */
export interface Page<T> {
  items: T[];
  metadata: Record<string, unknown>;
}

/** An outbound mention as the wire takes it. */
export interface WireMention {
  id: string;
  handle?: string;
  name?: string;
}

export const WORKING_HEADER = "Band-Working";

/** Parse `value` with `schema`, or throw an `invalid_response` error naming `what`. */
export function parseAnswer<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? `${issue.path.join(".") || "(root)"}: ${issue.message}` : "invalid";
    throw new BandRestError(200, "invalid_response", `${what}: ${where}`);
  }
  return parsed.data;
}

function meta(body: { metadata?: unknown; meta?: unknown }): Record<string, unknown> {
  const m = body.metadata ?? body.meta;
  return typeof m === "object" && m !== null ? (m as Record<string, unknown>) : {};
}

async function classifyMark(response: Response): Promise<MarkResult> {
  if (response.status === 204) return "stopped";
  if (response.status === 200) {
    try {
      const body = (await response.json()) as { data?: { success?: unknown } };
      return typeof body.data === "object" && body.data.success !== false ? "ok" : "unconfirmed";
    } catch {
      return "unconfirmed";
    }
  }
  const error = await errorFromResponse(response);
  if (response.status === 404 && error.code === "not_found") return "not_found";
  if (response.status === 422 && error.code === "validation_error" && error.details?.["/processing_attempt"]) {
    return "rejected";
  }
  return "unconfirmed";
}

/** The agent REST surface, authenticated with the agent's key. */
export class AgentRestClient {
  public readonly http: HttpCore;

  public constructor(restUrl: string, apiKey: string, options: HttpOptions = {}) {
    this.http = new HttpCore(restUrl, apiKey, options);
  }

  private async page<T>(path: string, query: Query, item: z.ZodType<T>, what: string): Promise<Page<T>> {
    const body = await this.http.callFull("GET", path, { query });
    return { items: parseAnswer(z.array(item), body.data ?? [], what), metadata: meta(body) };
  }

  // identity and rooms

  /** The calling agent (`GET /agent/me`). */
  public async getMe(): Promise<AgentMe> {
    return parseAnswer(AgentMe, await this.http.call("GET", "/agent/me"), "agent/me");
  }

  /** One page of the agent's rooms. */
  public listChats(page = 1, pageSize = 100): Promise<Page<ChatRoom>> {
    return this.page("/agent/chats", { page, page_size: pageSize }, ChatRoom, "agent/chats");
  }

  /** One room by id. */
  public async getChat(roomId: string): Promise<ChatRoom> {
    return parseAnswer(ChatRoom, await this.http.call("GET", `/agent/chats/${roomId}`), "chat");
  }

  /** Create a room owned by the agent; the platform then pushes `room_added`. */
  public async createChat(options: { title?: string; taskId?: string | null } = {}): Promise<ChatRoom> {
    const chat: Record<string, unknown> = { task_id: options.taskId ?? null };
    if (options.title !== undefined) chat.title = options.title;
    return parseAnswer(ChatRoom, await this.http.call("POST", "/agent/chats", { json: { chat } }), "chat");
  }

  /** The room's participants. */
  public async listParticipants(roomId: string): Promise<Participant[]> {
    const data = await this.http.call("GET", `/agent/chats/${roomId}/participants`);
    return parseAnswer(z.array(Participant), data ?? [], "participants");
  }

  /** Add an agent or a person to the room. */
  public async addParticipant(roomId: string, participantId: string, role?: string): Promise<Record<string, unknown>> {
    const participant: Record<string, unknown> = { participant_id: participantId };
    if (role !== undefined) participant.role = role;
    const data = await this.http.call("POST", `/agent/chats/${roomId}/participants`, { json: { participant } });
    return (data ?? {}) as Record<string, unknown>;
  }

  /** Remove a participant from the room. */
  public async removeParticipant(roomId: string, participantId: string): Promise<Record<string, unknown>> {
    const data = await this.http.call("DELETE", `/agent/chats/${roomId}/participants/${participantId}`);
    return (data ?? {}) as Record<string, unknown>;
  }

  // messages and the delivery lifecycle

  /** The oldest message for this agent in the room not yet processed; null on 204. */
  public async getNext(roomId: string): Promise<ChatMessage | null> {
    const data = await this.http.call("GET", `/agent/chats/${roomId}/messages/next`);
    return data ? parseAnswer(ChatMessage, data, "messages/next") : null;
  }

  private async markAnswer(roomId: string, messageId: string, step: string, json?: unknown, headers?: Record<string, string>): Promise<Response | null> {
    const path = `/agent/chats/${roomId}/messages/${messageId}/${step}`;
    try {
      // No Idempotency-Key: a mark is idempotent on the platform.
      return await this.http.send("POST", path, { json, keyed: false, ...(headers ? { headers } : {}) });
    } catch (error) {
      if (error instanceof BandConnectionError) return null;
      throw error;
    }
  }

  /** Claim a message (open or keep a processing attempt); `working` asks the platform to
   * start the working indicator with it (`working` in the answer: it did). */
  public async claim(roomId: string, messageId: string, working = false): Promise<{ result: MarkResult; working: boolean }> {
    const response = await this.markAnswer(roomId, messageId, "processing", undefined, working ? { [WORKING_HEADER]: "true" } : undefined);
    if (response === null) return { result: "unconfirmed", working: false };
    const echoed = (response.headers.get(WORKING_HEADER) ?? "").toLowerCase() === "true";
    const result = await classifyMark(response);
    return { result, working: working && result === "ok" && echoed };
  }

  public async markProcessing(roomId: string, messageId: string): Promise<MarkResult> {
    return (await this.claim(roomId, messageId)).result;
  }

  /** Acknowledge a handled message. */
  public async markProcessed(roomId: string, messageId: string): Promise<MarkResult> {
    const response = await this.markAnswer(roomId, messageId, "processed");
    return response === null ? "unconfirmed" : classifyMark(response);
  }

  /** Record a failed attempt; a blank error text becomes `Unknown error`. */
  public async markFailed(roomId: string, messageId: string, error: string): Promise<MarkResult> {
    const response = await this.markAnswer(roomId, messageId, "failed", { error: error.trim() || "Unknown error" });
    return response === null ? "unconfirmed" : classifyMark(response);
  }

  /** The agent's context in a room (its messages and those mentioning it), oldest first. */
  public getContext(roomId: string, query: { limit?: number; cursor?: string } = {}): Promise<Page<ChatMessage>> {
    return this.page(`/agent/chats/${roomId}/context`, query, ChatMessage, "context");
  }

  /** A keyset page of the room's messages addressed to the agent. */
  public listMessages(
    roomId: string,
    query: { limit?: number; cursor?: string; sortOrder?: "asc" | "desc"; status?: string } = {},
  ): Promise<Page<ChatMessage>> {
    const q: Query = { limit: query.limit, cursor: query.cursor, sort_order: query.sortOrder, status: query.status };
    return this.page(`/agent/chats/${roomId}/messages`, q, ChatMessage, "messages");
  }

  /** Report the working indicator; the platform's `working`, or null. Never throws. */
  public async sendActivity(roomId: string, working: boolean, timeoutMs = 2_000): Promise<boolean | null> {
    try {
      const response = await this.http.send("POST", `/agent/chats/${roomId}/activity`, {
        json: { working },
        retry: false,
        timeoutMs,
      });
      if (!response.ok) return null;
      const parsed = Activity.safeParse(((await response.json()) as { data?: unknown }).data);
      return parsed.success ? parsed.data.working : null;
    } catch {
      return null;
    }
  }

  /** Post a text message; `{id, success, recipients}`. */
  public async postMessage(roomId: string, content: string, mentions: WireMention[], attachmentIds?: string[]): Promise<MessageSent> {
    const message: Record<string, unknown> = { content, mentions };
    if (attachmentIds?.length) message.attachment_ids = attachmentIds;
    const data = await this.http.call("POST", `/agent/chats/${roomId}/messages`, { json: { message } });
    return parseAnswer(MessageSent, data, "messages");
  }

  /** Post an event (thought, tool_call, tool_result, error, task); metadata may be null. */
  public async postEvent(roomId: string, content: string, messageType: string, metadata: Record<string, unknown> | null = null): Promise<EventSent> {
    const event = { content, message_type: messageType, metadata };
    const data = await this.http.call("POST", `/agent/chats/${roomId}/events`, { json: { event } });
    return parseAnswer(EventSent, data, "events");
  }

  // peers, contacts, memories

  /** Agents and people this agent may add to a room. */
  public lookupPeers(page = 1, pageSize = 50, notInChat?: string): Promise<Page<Peer>> {
    return this.page("/agent/peers", { page, page_size: pageSize, not_in_chat: notInChat }, Peer, "peers");
  }

  public async listContacts(page = 1, pageSize = 50): Promise<Page<Record<string, unknown>>> {
    const body = await this.http.callFull("GET", "/agent/contacts", { query: { page, page_size: pageSize } });
    return { items: (body.data ?? []) as Record<string, unknown>[], metadata: meta(body) };
  }

  public async addContact(handle: string, message?: string | null): Promise<Record<string, unknown>> {
    const json: Record<string, unknown> = { handle };
    if (message) json.message = message;
    return ((await this.http.call("POST", "/agent/contacts/add", { json })) ?? {}) as Record<string, unknown>;
  }

  public async removeContact(target: { handle?: string | null; contactId?: string | null }): Promise<Record<string, unknown>> {
    const json: Record<string, unknown> = {};
    if (target.handle) json.handle = target.handle;
    if (target.contactId) json.contact_id = target.contactId;
    return ((await this.http.call("POST", "/agent/contacts/remove", { json })) ?? {}) as Record<string, unknown>;
  }

  public async listContactRequests(page = 1, pageSize = 50, sentStatus = "pending"): Promise<{ data: Record<string, unknown>; metadata: Record<string, unknown> }> {
    const body = await this.http.callFull("GET", "/agent/contacts/requests", {
      query: { page, page_size: pageSize, sent_status: sentStatus },
    });
    return { data: (body.data ?? {}) as Record<string, unknown>, metadata: meta(body) };
  }

  public async respondContactRequest(action: string, target: { handle?: string | null; requestId?: string | null }): Promise<Record<string, unknown>> {
    const json: Record<string, unknown> = { action };
    if (target.handle) json.handle = target.handle;
    if (target.requestId) json.request_id = target.requestId;
    return ((await this.http.call("POST", "/agent/contacts/requests/respond", { json })) ?? {}) as Record<string, unknown>;
  }

  public async listMemories(filters: Query = {}): Promise<Page<Record<string, unknown>>> {
    const body = await this.http.callFull("GET", "/agent/memories", { query: filters });
    return { items: (body.data ?? []) as Record<string, unknown>[], metadata: meta(body) };
  }

  public async storeMemory(memory: Record<string, unknown>): Promise<Record<string, unknown>> {
    const fields = Object.fromEntries(Object.entries(memory).filter(([, v]) => v !== null && v !== undefined));
    return ((await this.http.call("POST", "/agent/memories", { json: { memory: fields } })) ?? {}) as Record<string, unknown>;
  }

  public async getMemory(memoryId: string): Promise<Record<string, unknown>> {
    return ((await this.http.call("GET", `/agent/memories/${memoryId}`)) ?? {}) as Record<string, unknown>;
  }

  public async supersedeMemory(memoryId: string): Promise<Record<string, unknown>> {
    return ((await this.http.call("POST", `/agent/memories/${memoryId}/supersede`)) ?? {}) as Record<string, unknown>;
  }

  public async archiveMemory(memoryId: string): Promise<Record<string, unknown>> {
    return ((await this.http.call("POST", `/agent/memories/${memoryId}/archive`)) ?? {}) as Record<string, unknown>;
  }
}
