/**
 * The Band channel plugin: accounts from the config, Band's instructions as the channel's
 * agent prompt, open DMs (Band already decided who may reach the agent: only mentions are
 * delivered), outbound sends to a room, and the gateway (`gateway.ts`), which is left out of
 * the setup entry so setup never opens a connection.
 */

import { createChannelPluginBase, createChatChannelPlugin, type ChannelPlugin, type OpenClawConfig } from "openclaw/plugin-sdk/core";
import { dispatchInboundMessageWithBufferedDispatcher } from "openclaw/plugin-sdk/reply-runtime";
import { resolveAgentRoute } from "openclaw/plugin-sdk/routing";

import { CHANNEL_ID, inspectAccount, listAccountIds, resolveAccount, type BandAccount } from "./config.js";
import { runAccount, stopAccount, type Dispatch, type GatewayContextLike } from "./gateway.js";
import { sendToRoom } from "./outbound.js";
import { BAND_INSTRUCTIONS } from "./prompts.js";
import { liveAccount } from "./state.js";

const ROOM_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** OpenClaw's buffered inbound dispatch: the room's route (agent and session, one per room),
 * then the agent's turn; each reply goes to `deliver`. */
const dispatch: Dispatch = async ({ ctx, cfg, deliver }) => {
  const config = cfg as OpenClawConfig;
  const route = resolveAgentRoute({
    cfg: config,
    channel: CHANNEL_ID,
    accountId: ctx.AccountId,
    peer: { kind: ctx.ChatType, id: ctx.To },
  });
  let failure: unknown = null;
  await dispatchInboundMessageWithBufferedDispatcher({
    ctx: { ...ctx, SessionKey: route.sessionKey, AgentId: route.agentId },
    cfg: config,
    dispatcherOptions: {
      deliver: async (payload) => {
        await deliver(payload);
      },
      onError: (error) => {
        failure ??= error;
      },
    },
  });
  if (failure !== null) throw failure instanceof Error ? failure : new Error(`OpenClaw reply failed: ${JSON.stringify(failure)}`);
};

async function send(accountId: string | null | undefined, to: string, text: string): Promise<{ messageId: string }> {
  const account = liveAccount(accountId);
  if (!account) throw new Error(`Band account "${accountId ?? "default"}" is not connected`);
  const sent = await sendToRoom(account, to, text);
  return { messageId: sent.id ?? "" };
}

/** The channel plugin; `withGateway: false` builds the setup entry's copy. */
export function createBandChannel(withGateway = true): ChannelPlugin<BandAccount> {
  const config = {
    listAccountIds: (cfg: OpenClawConfig) => listAccountIds(cfg),
    resolveAccount: (cfg: OpenClawConfig, accountId?: string | null) => resolveAccount(cfg, accountId),
    inspectAccount: (cfg: OpenClawConfig, accountId?: string | null) => inspectAccount(cfg, accountId),
  };
  const capabilities = { chatTypes: ["direct", "group"] as ("direct" | "group")[] };
  const gateway = withGateway
    ? {
        startAccount: (ctx: unknown) => runAccount(ctx as GatewayContextLike, dispatch),
        stopAccount: async (ctx: { accountId: string }) => {
          await stopAccount(ctx.accountId);
        },
      }
    : {};
  return createChatChannelPlugin<BandAccount>({
    base: {
      ...createChannelPluginBase<BandAccount>({
        id: CHANNEL_ID,
        meta: {
          label: "Band",
          selectionLabel: "Band (openband)",
          blurb: "Band rooms: people and AI agents, triggered by @mentions.",
          aliases: ["openband"],
          docsPath: "/channels/band",
        },
        capabilities,
        config,
        agentPrompt: { messageToolHints: () => [BAND_INSTRUCTIONS] },
        groups: { resolveRequireMention: () => false },
      }),
      capabilities,
      config,
      gateway,
      messaging: {
        targetResolver: {
          looksLikeId: (raw: string) => ROOM_ID.test(raw.trim()),
          hint: "<room id> (a Band room id, from the [Band Room: ...] line)",
        },
      },
    },
    security: {
      dm: {
        channelKey: CHANNEL_ID,
        resolvePolicy: () => "open",
        resolveAllowFrom: () => null,
        defaultPolicy: "open",
      },
    },
    threading: { topLevelReplyToMode: "off" },
    outbound: {
      base: { deliveryMode: "direct" },
      attachedResults: {
        channel: CHANNEL_ID,
        sendText: (ctx) => send(ctx.accountId, ctx.to, ctx.text),
        sendMedia: (ctx) => send(ctx.accountId, ctx.to, [ctx.text, ctx.mediaUrl].filter(Boolean).join("\n\n")),
      },
    },
  });
}
