/**
 * Band's tools as OpenClaw agent tools: the Python SDK's platform tools (names, descriptions,
 * JSON schemas, from openband) plus `band_list_chats`. A tool acts on the room of the turn that
 * called it (the Band conversation OpenClaw is delivering to) unless `room_id` names another;
 * it runs through openband's `AgentTools`, so arguments are validated as the SDK validates
 * them and errors come back as text for the model.
 */

import { AgentTools, TOOLS, type ToolSpec } from "openband";

import { CHANNEL_ID } from "./config.js";
import { liveAccount, type LiveAccount } from "./state.js";

/** The tools this channel registers, in order. */
export const BAND_TOOL_NAMES = [
  "band_send_message",
  "band_send_event",
  "band_add_participant",
  "band_remove_participant",
  "band_get_participants",
  "band_lookup_peers",
  "band_create_chatroom",
  "band_list_chats",
  "band_list_contacts",
  "band_add_contact",
  "band_remove_contact",
  "band_list_contact_requests",
  "band_respond_contact_request",
] as const;

const ROOM_SCOPED = new Set(["band_send_message", "band_send_event", "band_add_participant", "band_remove_participant", "band_get_participants", "band_lookup_peers"]);

const LIST_CHATS: ToolSpec = {
  name: "band_list_chats",
  category: "chat",
  effect: "observe",
  description: "List the Band rooms you are in (id and title), newest first.",
  parameters: {
    type: "object",
    properties: {
      page: { type: "integer", default: 1, description: "Page number, from 1." },
      page_size: { type: "integer", default: 50, description: "Entries per page (at most 100)." },
    },
  },
};

/** Where a tool call runs: the turn's Band room, if the turn came through this channel. */
export interface ToolTurn {
  channel?: string | undefined;
  to?: string | undefined;
  accountId?: string | undefined;
}

/** A tool as OpenClaw's `AgentTool` takes it (JSON-schema parameters). */
export interface BandAgentTool {
  name: string;
  label: string;
  description: string;
  parameters: Record<string, unknown>;
  execute: (toolCallId: string, params: unknown) => Promise<{ content: { type: "text"; text: string }[]; details: unknown }>;
}

function specOf(name: string): ToolSpec {
  if (name === LIST_CHATS.name) return LIST_CHATS;
  const spec = TOOLS.find((t) => t.name === name);
  if (!spec) throw new Error(`openband has no tool ${name}`);
  return spec;
}

function parametersOf(spec: ToolSpec): Record<string, unknown> {
  const parameters = structuredClone(spec.parameters) as { properties?: Record<string, unknown> };
  if (ROOM_SCOPED.has(spec.name)) {
    parameters.properties = {
      ...(parameters.properties ?? {}),
      room_id: { type: "string", description: "The Band room (default: the room of this conversation)." },
    };
  }
  return parameters;
}

function result(value: unknown): { content: { type: "text"; text: string }[]; details: unknown } {
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
  return { content: [{ type: "text", text }], details: value };
}

/** Run one tool call for `account` in `roomId` (null: no room known). */
export async function runTool(account: LiveAccount, roomId: string | null, name: string, params: Record<string, unknown>): Promise<unknown> {
  const { room_id: explicit, ...args } = params;
  if (name === LIST_CHATS.name) {
    const page = typeof args.page === "number" ? args.page : 1;
    const size = typeof args.page_size === "number" ? Math.min(100, args.page_size) : 50;
    const { items, metadata } = await account.link.rest.listChats(page, size);
    return { data: items.map((r) => ({ id: r.id, title: r.title ?? null })), metadata };
  }
  const room = typeof explicit === "string" && explicit ? explicit : roomId;
  if (room === null && ROOM_SCOPED.has(name)) {
    return `${name} needs a Band room: this conversation is not in one, so pass room_id`;
  }
  const participants = room ? await account.link.rest.listParticipants(room) : [];
  const tools = new AgentTools({
    rest: account.link.rest,
    roomId: room ?? "",
    agentId: account.selfId,
    participants: participants.map((p) => ({ id: p.id, name: p.name ?? null, type: p.type, handle: p.handle ?? null, description: p.description ?? null })),
  });
  return tools.executeToolCall(name, args);
}

/** The Band tools for one turn (`turn` is OpenClaw's delivery route of the conversation). */
export function bandTools(turn: ToolTurn = {}): BandAgentTool[] {
  const inBand = turn.channel === CHANNEL_ID;
  return BAND_TOOL_NAMES.map((name) => {
    const spec = specOf(name);
    return {
      name,
      label: name,
      description: spec.description,
      parameters: parametersOf(spec),
      execute: async (_toolCallId: string, params: unknown) => {
        const account = liveAccount(inBand ? turn.accountId : null);
        if (!account) throw new Error("Band is not connected: no Band account is running");
        const room = inBand && turn.to ? turn.to : null;
        return result(await runTool(account, room, name, (params ?? {}) as Record<string, unknown>));
      },
    };
  });
}
