/** Sending text to a Band room: the agent's replies and OpenClaw's `message` tool. Band needs
 * at least one mention: handles written in the text, else the last person who spoke to the
 * agent in that room, else the room's first other participant. */

import { ValidationError, type MessageSent } from "openband";

import type { LiveAccount } from "./state.js";

const HANDLE = /(?:^|[\s(])@([a-z0-9][a-z0-9._-]*(?:\/[a-z0-9][a-z0-9._-]*)?)/gi;

/** Post `text` in `roomId` for `account`, mentioning whom the text or the room says. */
export async function sendToRoom(account: LiveAccount, roomId: string, text: string): Promise<MessageSent> {
  const room = roomId.trim();
  if (!room) throw new ValidationError("Band needs a room id to send to");
  if (!text.trim()) throw new ValidationError("Band does not post empty messages");
  const members = (await account.link.rest.listParticipants(room)).filter((p) => p.id !== account.selfId);
  const written = new Set([...text.matchAll(HANDLE)].map((m) => (m[1] ?? "").toLowerCase()));
  let mentions = members.filter((p) => p.handle && written.has(p.handle.toLowerCase()));
  if (mentions.length === 0) {
    const last = account.lastSenders.get(room);
    const fallback = members.find((p) => p.id === last?.id) ?? members[0];
    mentions = fallback ? [fallback] : [];
  }
  if (mentions.length === 0) throw new ValidationError(`Band room ${room} has nobody else to mention`);
  return account.link.rest.postMessage(
    room,
    text,
    mentions.map((p) => ({ id: p.id, handle: p.handle ?? "" })),
  );
}
