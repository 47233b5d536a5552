/**
 * Wire models: what the SDK reads from the platform, as zod schemas. Unknown fields are kept
 * (loose objects), so a newer platform adds fields without breaking older clients.
 * `test/wire.test.ts` checks every REST model here against the server's OpenAPI document
 * (`src/generated/contract.json`, itself checked against the live server by the Python
 * suite), so the two cannot drift apart.
 */

import { z } from "zod";

const text = z.string();
const optionalText = z.string().nullish();

export const AgentMe = z.looseObject({
  id: text,
  name: text,
  description: optionalText,
  handle: optionalText,
  owner_uuid: optionalText,
  feature_flags: z.record(z.string(), z.unknown()).nullish(),
});
export type AgentMe = z.infer<typeof AgentMe>;

export const ChatRoom = z.looseObject({
  id: text,
  title: optionalText,
  task_id: optionalText,
  inserted_at: text,
  updated_at: text,
});
export type ChatRoom = z.infer<typeof ChatRoom>;

export const Mention = z.looseObject({
  id: text,
  handle: optionalText,
  name: optionalText,
  username: optionalText,
});

export const ChatMessage = z.looseObject({
  id: text.min(1),
  content: text,
  message_type: text,
  sender_id: text.min(1),
  sender_type: text,
  sender_name: optionalText,
  chat_room_id: optionalText,
  metadata: z.record(z.string(), z.unknown()).nullish(),
  inserted_at: text,
  updated_at: text,
});
export type ChatMessage = z.infer<typeof ChatMessage>;

export const Participant = z.looseObject({
  id: text.min(1),
  name: optionalText,
  type: text,
  handle: optionalText,
  description: optionalText,
});
export type Participant = z.infer<typeof Participant>;

export const Peer = z.looseObject({
  id: text,
  name: text,
  type: text,
  handle: optionalText,
  description: optionalText,
});
export type Peer = z.infer<typeof Peer>;

export const MessageStatus = z.looseObject({
  id: text,
  status: text,
  attempt_number: z.number().int(),
  success: z.boolean(),
});

export const Recipient = z.looseObject({ id: text, handle: optionalText, name: optionalText });

export const MessageSent = z.looseObject({
  id: text.nullable(),
  success: z.boolean(),
  recipients: z.array(Recipient),
});
export type MessageSent = z.infer<typeof MessageSent>;

export const EventSent = z.looseObject({ id: text.nullable(), message_type: text.nullish(), success: z.boolean() });
export type EventSent = z.infer<typeof EventSent>;

export const Activity = z.looseObject({ working: z.boolean() });

/** Offset paging (`page`, `page_size`, `total_count`, `total_pages`), all optional. */
export const OffsetMeta = z.looseObject({
  page: z.number().int().nullish(),
  page_size: z.number().int().nullish(),
  total_count: z.number().int().nullish(),
  total_pages: z.number().int().nullish(),
});

/** Keyset paging (`has_more`, `limit`, `next_cursor`). */
export const KeysetMeta = z.looseObject({
  has_more: z.boolean(),
  limit: z.number().int().nullish(),
  next_cursor: optionalText,
});

// -- socket pushes --------------------------------------------------------------------------

export const RoomPush = z.looseObject({
  id: text.min(1),
  inserted_at: text,
  updated_at: text,
  title: optionalText,
  task_id: optionalText,
});

export const ParticipantPush = z.looseObject({
  id: text.min(1),
  name: text,
  type: text,
  handle: z.string().optional(),
  description: optionalText,
});

export const RoomDeletedPush = z.looseObject({ id: text.min(1) });

export const SupersedePush = z.looseObject({
  reason: text,
  message: text,
  correlation_id: optionalText,
  retryable: z.unknown().optional(),
  retry_after: z.unknown().optional(),
});

export const AgentControlPush = z.looseObject({
  mode: z.enum(["interrupt", "stop", "play"]),
  scope: z.enum(["agent", "room"]),
  agent_id: text.min(1),
  execution_id: optionalText,
  room_id: optionalText,
  correlation_id: text,
  type: text.optional(),
  reason: text.optional(),
});
export type AgentControl = z.infer<typeof AgentControlPush>;

export const ContactPush = z.looseObject({ id: text.min(1) });

/** The schema a pushed event's payload must satisfy, by event name. */
export const PUSH_SCHEMAS: Record<string, z.ZodType> = {
  message_created: ChatMessage,
  room_added: RoomPush,
  room_removed: RoomPush,
  participant_added: ParticipantPush,
  participant_removed: ParticipantPush,
  room_deleted: RoomDeletedPush,
  supersede: SupersedePush,
  "agent.control": AgentControlPush,
  contact_request_received: ContactPush,
  contact_request_updated: ContactPush,
  contact_added: ContactPush,
  contact_removed: ContactPush,
};

/** The REST models and the OpenAPI component each one must agree with (`test/wire.test.ts`). */
export const REST_MODELS: Record<string, z.ZodObject> = {
  AgentMe,
  ChatRoom,
  AgentChatRoomListItem: ChatRoom,
  ChatMessage,
  ChatParticipant: Participant,
  Peer,
  MessageStatusResponse: MessageStatus,
  MessageSentResponse: MessageSent,
  EventCreatedResponse: EventSent,
  ActivityResponse: Activity,
};
