/**
 * openband's OpenClaw channel: Band rooms as an OpenClaw channel. The gateway holds one Band
 * connection per account (openband's `BandLink` and `AgentRuntime`), hands each mention to
 * OpenClaw's agent and posts its replies in the room; Band's tools are registered as OpenClaw
 * tools bound to the conversation's room, and Band's instructions are the channel's agent
 * prompt.
 */

import { defineChannelPluginEntry } from "openclaw/plugin-sdk/core";

import { createBandChannel } from "./channel.js";
import { CHANNEL_ID } from "./config.js";
import { BAND_TOOL_NAMES, bandTools } from "./tools.js";

/** The entry's portable shape (OpenClaw loads the whole object; its own type names
 * internal chunks that declaration files cannot reference). */
export interface BandPluginEntry {
  id: string;
  name: string;
  description: string;
}

const entry: BandPluginEntry = defineChannelPluginEntry({
  id: CHANNEL_ID,
  name: "Band",
  description: "Band rooms as an OpenClaw channel (openband)",
  plugin: createBandChannel(),
  registerFull(api) {
    // Plain JSON Schema parameters: what OpenClaw's TypeBox schemas are at run time.
    api.registerTool(
      (context) =>
        bandTools({
          channel: context.deliveryContext?.channel ?? context.messageChannel,
          to: context.deliveryContext?.to,
          accountId: context.deliveryContext?.accountId ?? context.agentAccountId,
        }),
      { names: [...BAND_TOOL_NAMES] },
    );
  },
});

export default entry;
export { createBandChannel } from "./channel.js";
export { CHANNEL_ID, connectionOf, inspectAccount, listAccountIds, resolveAccount, type BandAccount } from "./config.js";
export { inboundContext } from "./inbound.js";
export { sendToRoom } from "./outbound.js";
export { BAND_INSTRUCTIONS } from "./prompts.js";
export { BAND_TOOL_NAMES, bandTools, runTool } from "./tools.js";
