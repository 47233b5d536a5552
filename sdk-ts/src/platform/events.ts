/** Typed platform events: one per pushed event type, plus the link's own `reconnected` and
 * `websocket_disconnected`. Every event has `type`, `roomId`, `payload` and `raw`. */

import type { z } from "zod";

import type { AgentControlPush, ChatMessage, ParticipantPush, RoomPush, SupersedePush } from "../wire.js";

interface Base<T extends string, P> {
  type: T;
  roomId: string | null;
  payload: P;
  raw: Record<string, unknown>;
}

export type MessageEvent = Base<"message_created", ChatMessage> & { roomId: string };
export type RoomAddedEvent = Base<"room_added", z.infer<typeof RoomPush>> & { roomId: string };
export type RoomRemovedEvent = Base<"room_removed", z.infer<typeof RoomPush>> & { roomId: string };
export type RoomDeletedEvent = Base<"room_deleted", { id: string }> & { roomId: string };
export type ParticipantAddedEvent = Base<"participant_added", z.infer<typeof ParticipantPush>> & { roomId: string };
export type ParticipantRemovedEvent = Base<"participant_removed", z.infer<typeof ParticipantPush>> & { roomId: string };
export type AgentControlEvent = Base<"agent.control", z.infer<typeof AgentControlPush>>;
export type SupersedeEvent = Base<"supersede", z.infer<typeof SupersedePush>>;
export type ContactEvent = Base<
  "contact_request_received" | "contact_request_updated" | "contact_added" | "contact_removed",
  Record<string, unknown> & { id: string }
>;
export type ReconnectedEvent = Base<"reconnected", Record<string, never>>;
export type WebSocketDisconnectedEvent = Base<
  "websocket_disconnected",
  { code: number | null; reason: string; retryable: boolean }
>;

/** Every event a `BandLink` yields. */
export type PlatformEvent =
  | MessageEvent
  | RoomAddedEvent
  | RoomRemovedEvent
  | RoomDeletedEvent
  | ParticipantAddedEvent
  | ParticipantRemovedEvent
  | AgentControlEvent
  | SupersedeEvent
  | ContactEvent
  | ReconnectedEvent
  | WebSocketDisconnectedEvent;

export const CONTACT_EVENTS = new Set([
  "contact_request_received",
  "contact_request_updated",
  "contact_added",
  "contact_removed",
]);

/** The typed event of a validated push (`payload` already checked against `PUSH_SCHEMAS`). */
export function eventFromPush(type: string, roomId: string | null, payload: Record<string, unknown>): PlatformEvent | null {
  const known =
    type === "message_created" ||
    type === "room_added" ||
    type === "room_removed" ||
    type === "room_deleted" ||
    type === "participant_added" ||
    type === "participant_removed" ||
    type === "agent.control" ||
    type === "supersede" ||
    CONTACT_EVENTS.has(type);
  if (!known) return null;
  return { type, roomId, payload, raw: payload } as PlatformEvent;
}

/** The `message_created` event of a message served by `/next` (pushes arrive typed already). */
export function messageEvent(roomId: string, message: ChatMessage): MessageEvent {
  return { type: "message_created", roomId, payload: message, raw: message };
}
