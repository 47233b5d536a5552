/** A Band message as OpenClaw's inbound context: the text the agent sees (mentions as
 * handles, then the room's roster, then the room marker), who sent it and in which room (the
 * conversation: OpenClaw routes each room to its own session). Command fields keep the raw
 * text. */

import { buildParticipantsMessage, type PlatformMessage, type RosterEntry } from "openband";

import { CHANNEL_ID } from "./config.js";
import { ROOM_MARKER } from "./prompts.js";

/** The inbound context fields this channel sets (a subset of OpenClaw's `MsgContext`). */
export interface BandInboundContext {
  Body: string;
  BodyForAgent: string;
  BodyForCommands: string;
  CommandBody: string;
  From: string;
  SenderId: string;
  SenderName: string;
  To: string;
  AccountId: string;
  Surface: string;
  Provider: string;
  OriginatingChannel: string;
  OriginatingTo: string;
  MessageSid: string;
  Timestamp: number;
  ChatType: "direct" | "group";
  CommandAuthorized: boolean;
}

export interface InboundFacts {
  accountId: string;
  selfId: string;
  ownerId: string | null;
  participants: RosterEntry[];
}

/** The inbound context of `message` (already mention-rewritten by openband). */
export function inboundContext(message: PlatformMessage, facts: InboundFacts): BandInboundContext {
  const roster = buildParticipantsMessage(facts.participants, facts.selfId);
  const others = facts.participants.filter((p) => p.id !== facts.selfId).length;
  const body = [message.content, roster, `[${ROOM_MARKER}: ${message.roomId}]`].join("\n\n");
  return {
    Body: body,
    BodyForAgent: body,
    BodyForCommands: message.content,
    CommandBody: message.content,
    From: message.senderId,
    SenderId: message.senderId,
    SenderName: message.senderName ?? message.senderType,
    To: message.roomId,
    AccountId: facts.accountId,
    Surface: CHANNEL_ID,
    Provider: CHANNEL_ID,
    OriginatingChannel: CHANNEL_ID,
    OriginatingTo: message.roomId,
    MessageSid: message.id,
    Timestamp: message.createdAt.getTime(),
    ChatType: others <= 1 ? "direct" : "group",
    // Fail closed: only the agent's owner may run OpenClaw commands from a room.
    CommandAuthorized: facts.ownerId !== null && message.senderId === facts.ownerId,
  };
}
