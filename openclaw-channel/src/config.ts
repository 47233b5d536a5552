/**
 * The channel's accounts: `channels.band.accounts.<id>` in the OpenClaw config (or the plugin
 * entry's `plugins.entries.band.config.accounts`), each `{ apiKey, agentId, wsUrl, restUrl,
 * stateDir, enabled }`; a field left out falls back to `BAND_API_KEY`, `BAND_AGENT_ID`,
 * `BAND_WS_URL`, `BAND_REST_URL`, then production. `stateDir` keeps, across restarts, whom the
 * agent's next reply in each room mentions (the last person who spoke to it there).
 */

import { ValidationError, resolveUrls } from "openband";

export const CHANNEL_ID = "band";
export const DEFAULT_ACCOUNT = "default";

/** One Band account as the config writes it. */
export interface BandAccountConfig {
  enabled?: boolean;
  apiKey?: string;
  agentId?: string;
  wsUrl?: string;
  restUrl?: string;
  stateDir?: string;
}

/** An account resolved for the gateway: the config entry with environment fallbacks. */
export interface BandAccount extends BandAccountConfig {
  accountId: string;
  enabled: boolean;
}

/** What a link needs. */
export interface BandConnection {
  agentId: string;
  apiKey: string;
  wsUrl: string;
  restUrl: string;
}

type Accounts = Record<string, BandAccountConfig>;

function accountsOf(cfg: unknown): Accounts {
  const root = (cfg ?? {}) as {
    channels?: Record<string, { accounts?: Accounts } | undefined>;
    plugins?: { entries?: Record<string, { config?: { accounts?: Accounts } } | undefined> };
  };
  return {
    ...(root.plugins?.entries?.[CHANNEL_ID]?.config?.accounts ?? {}),
    ...(root.channels?.[CHANNEL_ID]?.accounts ?? {}),
  };
}

/** The configured account ids (`default` alone when only the environment names an agent). */
export function listAccountIds(cfg: unknown, env: NodeJS.ProcessEnv = process.env): string[] {
  const ids = Object.keys(accountsOf(cfg));
  if (ids.length === 0 && env.BAND_API_KEY && env.BAND_AGENT_ID) return [DEFAULT_ACCOUNT];
  return ids;
}

/** The account `accountId` (default: `default`) with the environment's fallbacks. */
export function resolveAccount(cfg: unknown, accountId?: string | null, env: NodeJS.ProcessEnv = process.env): BandAccount {
  const id = accountId ?? DEFAULT_ACCOUNT;
  const entry = accountsOf(cfg)[id] ?? {};
  const account: BandAccount = { ...entry, accountId: id, enabled: entry.enabled ?? true };
  account.apiKey ??= env.BAND_API_KEY;
  account.agentId ??= env.BAND_AGENT_ID;
  return account;
}

/** Secret-free status of an account, for OpenClaw's diagnostics. */
export function inspectAccount(cfg: unknown, accountId?: string | null): Record<string, unknown> {
  const account = resolveAccount(cfg, accountId);
  const { wsUrl, restUrl } = resolveUrls(account.wsUrl, account.restUrl);
  return {
    enabled: account.enabled,
    configured: Boolean(account.apiKey && account.agentId),
    apiKeyStatus: account.apiKey ? "available" : "missing",
    agentId: account.agentId ?? null,
    wsUrl,
    restUrl,
  };
}

/** The link settings of an account; a `ValidationError` names what is missing. */
export function connectionOf(account: BandAccount): BandConnection {
  if (!account.apiKey) throw new ValidationError(`Band account "${account.accountId}": apiKey is required (or BAND_API_KEY)`);
  if (!account.agentId) throw new ValidationError(`Band account "${account.accountId}": agentId is required (or BAND_AGENT_ID)`);
  return { agentId: account.agentId, apiKey: account.apiKey, ...resolveUrls(account.wsUrl, account.restUrl) };
}
