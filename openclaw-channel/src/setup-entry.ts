/** The setup-only entry: the channel without its gateway, so setup opens no connection. */

import { defineSetupPluginEntry } from "openclaw/plugin-sdk/core";

import { createBandChannel } from "./channel.js";

export default defineSetupPluginEntry(createBandChannel(false));
