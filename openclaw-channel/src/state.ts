/** The accounts this gateway runs: each one's link and runtime, the agent's identity, and the
 * last person who spoke to it in each room (whom a reply mentions). Tools and outbound sends,
 * which OpenClaw calls without an account, find theirs here.
 *
 * The registry lives on `globalThis` (under a `Symbol.for` key): OpenClaw loads a plugin's
 * entry more than once in one process (the channel runtime and the tool registry are
 * separate loads), and module-level state would not be shared between those copies. */

import type { AgentRuntime, BandLink } from "openband";

export interface LastSender {
  id: string;
  handle: string | null;
}

export interface LiveAccount {
  accountId: string;
  link: BandLink;
  runtime: AgentRuntime;
  /** The agent's own participant id. */
  selfId: string;
  /** The person who owns the agent (commands are theirs to give). */
  ownerId: string | null;
  lastSenders: Map<string, LastSender>;
}

const KEY = Symbol.for("openband.openclaw-channel.accounts");
const holder = globalThis as { [KEY]?: Map<string, LiveAccount> };
const live: Map<string, LiveAccount> = (holder[KEY] ??= new Map<string, LiveAccount>());

export function setLive(account: LiveAccount): void {
  live.set(account.accountId, account);
}

export function dropLive(accountId: string): LiveAccount | undefined {
  const account = live.get(accountId);
  live.delete(accountId);
  return account;
}

/** The account `accountId`, or (without one) `default`, or the only account running. */
export function liveAccount(accountId?: string | null): LiveAccount | undefined {
  if (accountId) return live.get(accountId);
  return live.get("default") ?? (live.size === 1 ? [...live.values()][0] : undefined);
}

/** Every running account (a copy). */
export function liveAccounts(): LiveAccount[] {
  return [...live.values()];
}
