/**
 * `AgentTools`: the platform tools bound to one room for one turn. Each method records its
 * turn effect when it succeeds, so a direct call and a dispatched `executeToolCall` count the
 * same way. `executeToolCall(name, args)` validates the model's arguments against the tool's
 * schema (the Python SDK's) and returns the result, or the error text for the model.
 */

import { BandRestError, BandToolError, RoomExecutionStoppedError, ValidationError, errorText } from "../errors.js";
import type { AgentRestClient } from "../rest/agent.js";
import type { RosterEntry } from "../runtime/messages.js";
import { Roster, type MentionInput } from "./roster.js";
import {
  anthropicSchema,
  canonicalToolName,
  enabledToolNames,
  openaiSchema,
  toolSpec,
  validateToolArguments,
  type AnthropicToolSchema,
  type Capability,
  type OpenAIToolSchema,
  type TurnEffect,
} from "./schemas.js";

export const MAX_EVENT_CHARS = 16_384;
const NOT_IN_ROOM = "mentioned_participant_not_in_room";

/** What the tools of one turn did, in order. */
export class Turn {
  public readonly effects: TurnEffect[] = [];

  public record(effect: TurnEffect): void {
    this.effects.push(effect);
  }

  /** A message answered the turn. */
  public get replied(): boolean {
    return this.effects.includes("reply");
  }
}

export interface AgentToolsOptions {
  rest: AgentRestClient;
  roomId: string;
  agentId: string;
  participants?: Iterable<RosterEntry>;
  /** Tool groups beyond chat (default: contacts). */
  capabilities?: Capability[];
}

function visible(text: string): boolean {
  return /[^\s\u200b-\u200d\ufeff]/u.test(text);
}

function truncateMiddle(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const marker = "\n…\n";
  const half = Math.floor((limit - marker.length) / 2);
  return text.slice(0, half) + marker + text.slice(text.length - half);
}

/** The platform tools of one room (see the module comment). */
export class AgentTools {
  public readonly rest: AgentRestClient;
  public readonly roomId: string;
  public readonly agentId: string;
  public readonly roster: Roster;
  public readonly turn = new Turn();
  public readonly capabilities: Capability[];

  public constructor(options: AgentToolsOptions) {
    this.rest = options.rest;
    this.roomId = options.roomId;
    this.agentId = options.agentId;
    this.roster = new Roster(options.participants ?? [], options.agentId);
    this.capabilities = options.capabilities ?? ["contacts"];
  }

  /** A copy of the cached roster. */
  public get participants(): RosterEntry[] {
    return this.roster.list;
  }

  /** The tool schemas for a model, in `openai` or `anthropic` format. */
  public getToolSchemas(format: "openai"): OpenAIToolSchema[];
  public getToolSchemas(format: "anthropic"): AnthropicToolSchema[];
  public getToolSchemas(format: "openai" | "anthropic"): OpenAIToolSchema[] | AnthropicToolSchema[] {
    const names = enabledToolNames(this.capabilities);
    return format === "openai" ? names.map(openaiSchema) : names.map(anthropicSchema);
  }

  /** Run a tool by the model's name for it; the result, or the error text for the model.
   * `BandToolError` and `RoomExecutionStoppedError` are thrown. */
  public async executeToolCall(toolName: string, args: Record<string, unknown> | null | undefined): Promise<unknown> {
    const name = canonicalToolName(toolName);
    const input = { ...(args ?? {}) };
    if (name === "band_add_participant" || name === "band_remove_participant") {
      if (input.identifier === undefined && input.name !== undefined) input.identifier = input.name;
    }
    if (!toolSpec(name)) return `Unknown tool: ${toolName}`;
    const checked = validateToolArguments(name, input);
    if (!checked.ok) return checked.error;
    try {
      return await this.dispatch(name, checked.value);
    } catch (error) {
      if (error instanceof BandToolError || error instanceof RoomExecutionStoppedError) throw error;
      return `Error executing ${name}: ${errorText(error)}`;
    }
  }

  /** Call the method of `name` with arguments its schema already validated. */
  private dispatch(name: string, a: Record<string, unknown>): Promise<unknown> {
    const s = (key: string): string => a[key] as string;
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- names the validated type at each call
    const o = <T>(key: string): T | undefined => (a[key] ?? undefined) as T | undefined;
    switch (name) {
      case "band_send_message":
        return this.sendMessage(s("content"), o<string[]>("mentions"));
      case "band_send_event":
        return this.sendEvent(s("content"), s("message_type"), o<Record<string, unknown>>("metadata"));
      case "band_no_reply":
        return this.noReply(o<string>("reason"));
      case "band_add_participant":
        return this.addParticipant(s("identifier"), o<string>("role"));
      case "band_remove_participant":
        return this.removeParticipant(s("identifier"));
      case "band_lookup_peers":
        return this.lookupPeers(o<number>("page"), o<number>("page_size"));
      case "band_get_participants":
        return this.getParticipants();
      case "band_create_chatroom":
        return this.createChatroom(o<string>("task_id"));
      case "band_list_contacts":
        return this.listContacts(o<number>("page"), o<number>("page_size"));
      case "band_add_contact":
        return this.addContact(s("handle"), o<string>("message"));
      case "band_remove_contact":
        return this.removeContact(o<string>("handle"), o<string>("contact_id"));
      case "band_list_contact_requests":
        return this.listContactRequests(o<number>("page"), o<number>("page_size"), o<string>("sent_status"));
      case "band_respond_contact_request":
        return this.respondContactRequest(s("action"), o<string>("handle"), o<string>("request_id"));
      case "band_list_memories":
        return this.listMemories(a as Record<string, string | number | null>);
      case "band_store_memory":
        return this.storeMemory(a);
      case "band_get_memory":
        return this.getMemory(s("memory_id"));
      case "band_supersede_memory":
        return this.supersedeMemory(s("memory_id"));
      case "band_archive_memory":
        return this.archiveMemory(s("memory_id"));
      default:
        return Promise.resolve(`Unknown tool: ${name}`);
    }
  }

  private platformError(error: unknown): unknown {
    if (error instanceof BandRestError) {
      if (error.isStoppedExecution) return new RoomExecutionStoppedError(this.roomId);
      if (error.status === 422 && (error.code === NOT_IN_ROOM || error.message.includes(NOT_IN_ROOM))) {
        return new BandToolError("A mentioned participant is not in the room");
      }
    }
    return error;
  }

  private done<T>(effect: TurnEffect, value: T): T {
    this.turn.record(effect);
    return value;
  }

  // messages and events

  /** Post a message mentioning at least one participant; this answers the turn. */
  public async sendMessage(content: string, mentions?: MentionInput[] | null): Promise<unknown> {
    if (!visible(content)) throw new ValidationError("content can't be blank");
    const wire = this.roster.resolve(mentions);
    let sent;
    try {
      sent = await this.rest.postMessage(this.roomId, content, wire);
    } catch (error) {
      throw this.platformError(error);
    }
    this.turn.record("reply");
    const missing = sent.recipients.filter((r) => !r.handle);
    if (missing.length > 0) {
      throw new BandToolError("Message was posted but a recipient could not be confirmed; do not resend it");
    }
    return sent;
  }

  /** Post an event (thought, error, task, tool_call, tool_result); no mentions. */
  public async sendEvent(content: string, messageType: string, metadata?: Record<string, unknown> | null): Promise<unknown> {
    if (!visible(content)) throw new ValidationError("content can't be blank");
    try {
      const created = await this.rest.postEvent(this.roomId, truncateMiddle(content, MAX_EVENT_CHARS), messageType, metadata ?? null);
      return this.done("observe", created);
    } catch (error) {
      throw this.platformError(error);
    }
  }

  /** Decline to answer this turn (local only). */
  public noReply(_reason?: string | null): Promise<{ status: "no_reply" }> {
    return Promise.resolve(this.done("decline", { status: "no_reply" as const }));
  }

  // participants and rooms

  /** The room's participants (refreshes the cached roster). */
  public async getParticipants(): Promise<unknown[]> {
    const members = await this.rest.listParticipants(this.roomId);
    this.roster.replace(members.map((m) => ({ ...m, name: m.name ?? null })));
    return this.done("observe", members);
  }

  /** Agents and people that could be added to this room. */
  public async lookupPeers(page = 1, pageSize = 50): Promise<{ data: unknown[]; metadata: Record<string, unknown> }> {
    const { items, metadata } = await this.rest.lookupPeers(page, pageSize, this.roomId);
    return this.done("observe", { data: items, metadata });
  }

  private async findPeer(identifier: string): Promise<Record<string, unknown> & { id: string } | null> {
    const bare = identifier.trim().replace(/^@/, "");
    for (let page = 1; page <= 10; page += 1) {
      const { items, metadata } = await this.rest.lookupPeers(page, 100, this.roomId);
      const found = items.find((p) => [p.id, p.handle, p.name].includes(bare));
      if (found) return found;
      if (page >= Number(metadata.total_pages ?? 1)) return null;
    }
    return null;
  }

  /** Add an agent or person (peer id preferred; handle or name also work). */
  public async addParticipant(identifier: string, role = "member"): Promise<Record<string, unknown>> {
    const member = this.roster.find(identifier);
    if (member) return this.done("act", { id: member.id, name: member.name, role, status: "already_in_room" });
    const peer = await this.findPeer(identifier);
    if (!peer) throw new ValidationError(`Participant '${identifier}' not found among peers`);
    await this.rest.addParticipant(this.roomId, peer.id, role);
    this.roster.add({ id: peer.id, name: typeof peer.name === "string" ? peer.name : null, handle: typeof peer.handle === "string" ? peer.handle : null });
    return this.done("act", { id: peer.id, name: peer.name, role, status: "added" });
  }

  /** Remove a participant by handle, name or id. */
  public async removeParticipant(identifier: string): Promise<Record<string, unknown>> {
    const member = this.roster.find(identifier);
    if (!member) throw this.roster.unknown(identifier);
    await this.rest.removeParticipant(this.roomId, member.id);
    this.roster.remove(member.id);
    return this.done("act", { id: member.id, name: member.name, status: "removed" });
  }

  /** Create a room owned by the agent; its id. */
  public async createChatroom(taskId?: string | null): Promise<string> {
    const room = await this.rest.createChat({ taskId: taskId ?? null });
    return this.done("act", room.id);
  }

  // contacts and memories

  public async listContacts(page = 1, pageSize = 50): Promise<unknown> {
    const { items, metadata } = await this.rest.listContacts(page, pageSize);
    return this.done("observe", { data: items, metadata });
  }

  public async addContact(handle: string, message?: string | null): Promise<unknown> {
    return this.done("act", await this.rest.addContact(handle, message));
  }

  public async removeContact(handle?: string | null, contactId?: string | null): Promise<unknown> {
    if (!handle && !contactId) throw new ValidationError("Pass a handle or a contact_id");
    return this.done("act", await this.rest.removeContact({ handle: handle ?? null, contactId: contactId ?? null }));
  }

  public async listContactRequests(page = 1, pageSize = 50, sentStatus = "pending"): Promise<unknown> {
    const { data, metadata } = await this.rest.listContactRequests(page, pageSize, sentStatus);
    return this.done("observe", { ...data, metadata });
  }

  public async respondContactRequest(action: string, handle?: string | null, requestId?: string | null): Promise<unknown> {
    if (!handle && !requestId) throw new ValidationError("Pass a handle or a request_id");
    return this.done("act", await this.rest.respondContactRequest(action, { handle: handle ?? null, requestId: requestId ?? null }));
  }

  public async listMemories(filters: Record<string, string | number | null | undefined> = {}): Promise<unknown> {
    const { items, metadata } = await this.rest.listMemories(filters);
    return this.done("observe", { data: items, metadata });
  }

  public async storeMemory(memory: Record<string, unknown>): Promise<unknown> {
    return this.done("act", await this.rest.storeMemory(memory));
  }

  public async getMemory(memoryId: string): Promise<unknown> {
    return this.done("observe", await this.rest.getMemory(memoryId));
  }

  public async supersedeMemory(memoryId: string): Promise<unknown> {
    return this.done("act", await this.rest.supersedeMemory(memoryId));
  }

  public async archiveMemory(memoryId: string): Promise<unknown> {
    return this.done("act", await this.rest.archiveMemory(memoryId));
  }
}
