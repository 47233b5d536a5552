/**
 * `HumanRestClient`: the people's surface of the REST API (`/api/v1/me/...`), authenticated
 * with a person's key: their profile, rooms, messages, participants, agents and peers.
 */

import { z } from "zod";

import { ChatMessage, ChatRoom, MessageSent, Participant, Peer } from "../wire.js";
import { parseAnswer, type Page, type WireMention } from "./agent.js";
import { HttpCore, type HttpOptions } from "./http.js";

/** An agent registered by a person, with its key (shown once). */
export interface RegisteredAgent {
  agent: Record<string, unknown> & { id: string; name: string };
  apiKey: string;
}

/** The people's REST surface, authenticated with a person's key. */
export class HumanRestClient {
  public readonly http: HttpCore;

  public constructor(restUrl: string, apiKey: string, options: HttpOptions = {}) {
    this.http = new HttpCore(restUrl, apiKey, options);
  }

  public async getProfile(): Promise<Record<string, unknown>> {
    return ((await this.http.call("GET", "/me/profile")) ?? {}) as Record<string, unknown>;
  }

  public async listChats(page = 1, pageSize = 50): Promise<Page<Record<string, unknown>>> {
    const body = await this.http.callFull("GET", "/me/chats", { query: { page, page_size: pageSize } });
    return { items: (body.data ?? []) as Record<string, unknown>[], metadata: body.metadata ?? {} };
  }

  /** Create a room owned by the person. */
  public async createChat(title?: string): Promise<ChatRoom> {
    const chat: Record<string, unknown> = title === undefined ? {} : { title };
    return parseAnswer(ChatRoom, await this.http.call("POST", "/me/chats", { json: { chat } }), "chat");
  }

  public async getChat(roomId: string): Promise<Record<string, unknown>> {
    return ((await this.http.call("GET", `/me/chats/${roomId}`)) ?? {}) as Record<string, unknown>;
  }

  /** The room's messages (every type), oldest first by default. */
  public async listMessages(roomId: string, options: { limit?: number; sortOrder?: "asc" | "desc" } = {}): Promise<ChatMessage[]> {
    const query = { limit: options.limit ?? 100, sort_order: options.sortOrder ?? "asc" };
    const data = await this.http.call("GET", `/me/chats/${roomId}/messages`, { query });
    return parseAnswer(z.array(ChatMessage), data ?? [], "messages");
  }

  /** Post a message; `mentions` are participant ids (or `{id, handle}` objects). */
  public async sendMessage(roomId: string, content: string, mentions: (string | WireMention)[] = []): Promise<MessageSent> {
    const wire = mentions.map((m) => (typeof m === "string" ? { id: m } : m));
    const data = await this.http.call("POST", `/me/chats/${roomId}/messages`, {
      json: { message: { content, mentions: wire } },
    });
    return parseAnswer(MessageSent, data, "messages");
  }

  public async listParticipants(roomId: string): Promise<Participant[]> {
    const data = await this.http.call("GET", `/me/chats/${roomId}/participants`);
    return parseAnswer(z.array(Participant), data ?? [], "participants");
  }

  public async addParticipant(roomId: string, participantId: string, role?: string): Promise<Participant> {
    const participant: Record<string, unknown> = { participant_id: participantId };
    if (role !== undefined) participant.role = role;
    const data = await this.http.call("POST", `/me/chats/${roomId}/participants`, { json: { participant } });
    return parseAnswer(Participant, data, "participant");
  }

  public async removeParticipant(roomId: string, participantId: string): Promise<Participant> {
    const data = await this.http.call("DELETE", `/me/chats/${roomId}/participants/${participantId}`);
    return parseAnswer(Participant, data, "participant");
  }

  public async listAgents(): Promise<Record<string, unknown>[]> {
    return ((await this.http.call("GET", "/me/agents")) ?? []) as Record<string, unknown>[];
  }

  /** Register an agent owned by the person; its API key is in the answer, once. */
  public async registerAgent(name: string, description: string): Promise<RegisteredAgent> {
    const data = await this.http.call("POST", "/me/agents/register", { json: { agent: { name, description } } });
    const parsed = parseAnswer(
      z.looseObject({
        agent: z.looseObject({ id: z.string(), name: z.string() }),
        credentials: z.looseObject({ api_key: z.string() }),
      }),
      data,
      "agents/register",
    );
    return { agent: parsed.agent, apiKey: parsed.credentials.api_key };
  }

  public async listPeers(page = 1, pageSize = 50): Promise<Page<Peer>> {
    const body = await this.http.callFull("GET", "/me/peers", { query: { page, page_size: pageSize } });
    return { items: parseAnswer(z.array(Peer), body.data ?? [], "peers"), metadata: body.metadata ?? {} };
  }
}
