/**
 * The channel's gateway: one Band connection per account, on openband's `BandLink` and
 * `AgentRuntime`. The runtime joins the agent's rooms, drains `/next` at start and after a
 * reconnect, and claims and acknowledges each message around the handler; the handler hands
 * the message to OpenClaw's agent (its inbound dispatch) and posts the agent's replies in the
 * room. A dispatch that fails marks the message failed (the room gets Band's error notice).
 */

import {
  AgentRuntime,
  BandLink,
  buildPlatformMessage,
  type ExecutionContext,
  type PlatformEvent,
} from "openband";

import { connectionOf, type BandAccount } from "./config.js";
import { inboundContext, type BandInboundContext } from "./inbound.js";
import { sendToRoom } from "./outbound.js";
import { dropLive, lastSendersFile, loadLastSenders, noteSender, setLive, type LastSender, type LiveAccount } from "./state.js";

/** A reply OpenClaw delivers (the part of its `ReplyPayload` we post). */
export interface ReplyLike {
  text?: string | null;
  mediaUrl?: string | null;
  mediaUrls?: string[] | null;
}

/** Hands one inbound context to OpenClaw's agent; `deliver` posts each reply. */
export type Dispatch = (params: {
  ctx: BandInboundContext;
  cfg: unknown;
  deliver: (reply: ReplyLike) => Promise<void>;
}) => Promise<void>;

/** What `startAccount` needs of OpenClaw's gateway context. */
export interface GatewayContextLike {
  accountId: string;
  account: BandAccount;
  cfg: unknown;
  abortSignal: AbortSignal;
  log?: { info?: (message: string) => void; warn?: (message: string) => void; error?: (message: string) => void } | undefined;
  setStatus?: (next: { accountId: string; running?: boolean; connected?: boolean; lastError?: string | null }) => void;
}

function replyText(reply: ReplyLike): string {
  const media = [...(reply.mediaUrls ?? []), ...(reply.mediaUrl ? [reply.mediaUrl] : [])];
  return [reply.text ?? "", ...media].filter((part) => part.trim()).join("\n\n");
}

/** Run one account until `ctx.abortSignal` fires, then stop it cleanly. */
export async function runAccount(ctx: GatewayContextLike, dispatch: Dispatch): Promise<void> {
  const log = ctx.log;
  const connection = connectionOf(ctx.account);
  const link = new BandLink(connection);
  const me = await link.rest.getMe();
  const stateFile = ctx.account.stateDir ? lastSendersFile(ctx.account.stateDir, ctx.accountId) : null;
  const account: LiveAccount = {
    accountId: ctx.accountId,
    link,
    runtime: undefined as unknown as AgentRuntime,
    selfId: me.id,
    ownerId: me.owner_uuid ?? null,
    lastSenders: stateFile ? loadLastSenders(stateFile) : new Map<string, LastSender>(),
    stateFile,
  };

  const onExecute = async (room: ExecutionContext, event: PlatformEvent): Promise<void> => {
    if (event.type !== "message_created") return;
    const message = buildPlatformMessage(event.payload, room.roomId, room.room.roster);
    const sender = room.room.roster.get(message.senderId);
    noteSender(account, room.roomId, { id: message.senderId, handle: sender?.handle ?? null });
    const inbound = inboundContext(message, {
      accountId: ctx.accountId,
      selfId: account.selfId,
      ownerId: account.ownerId,
      participants: room.participants,
    });
    await dispatch({
      ctx: inbound,
      cfg: ctx.cfg,
      deliver: async (reply) => {
        const text = replyText(reply);
        if (text) await sendToRoom(account, room.roomId, text);
      },
    });
  };

  account.runtime = new AgentRuntime({
    link,
    agentId: me.id,
    agentConfig: { autoSubscribeExistingRooms: true },
    onExecute,
    onError: (error, event) => log?.error?.(`[band:${ctx.accountId}] ${event.type}: ${String(error)}`),
  });
  setLive(account);
  try {
    await account.runtime.start();
    log?.info?.(`[band:${ctx.accountId}] connected to Band as ${me.name} (${me.id})`);
    ctx.setStatus?.({ accountId: ctx.accountId, running: true, connected: true, lastError: null });
    await Promise.race([
      new Promise<void>((resolve) => {
        if (ctx.abortSignal.aborted) resolve();
        ctx.abortSignal.addEventListener("abort", () => {
          resolve();
        });
      }),
      link.runForever(),
    ]);
  } finally {
    await stopAccount(ctx.accountId);
    ctx.setStatus?.({ accountId: ctx.accountId, running: false, connected: false });
    log?.info?.(`[band:${ctx.accountId}] disconnected from Band`);
  }
}

/** Stop an account's runtime (settling its rooms) and forget it. */
export async function stopAccount(accountId: string): Promise<void> {
  const account = dropLive(accountId);
  if (account) await account.runtime.stop(30_000);
}
