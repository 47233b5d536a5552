/** The accounts this gateway runs: each one's link and runtime, the agent's identity, and the
 * last person who spoke to it in each room (whom a reply mentions). Tools and outbound sends,
 * which OpenClaw calls without an account, find theirs here.
 *
 * The registry lives on `globalThis` (under a `Symbol.for` key): OpenClaw loads a plugin's
 * entry more than once in one process (the channel runtime and the tool registry are
 * separate loads), and module-level state would not be shared between those copies. */

import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

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
  /** Where `lastSenders` is kept between runs (the account's `stateDir`), if anywhere. */
  stateFile?: string | null;
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

/** The file keeping an account's last senders in `stateDir`. */
export function lastSendersFile(stateDir: string, accountId: string): string {
  return join(stateDir, `${accountId.replace(/[^\w.-]/g, "_")}.last-senders.json`);
}

/** The last senders kept in `file` (none when it is missing or unreadable). */
export function loadLastSenders(file: string): Map<string, LastSender> {
  try {
    const data = JSON.parse(readFileSync(file, "utf8")) as Record<string, LastSender>;
    return new Map(Object.entries(data).filter(([, v]) => typeof v.id === "string"));
  } catch {
    return new Map();
  }
}

/** Remember who last spoke to the agent in `roomId` (and keep it in the state file). */
export function noteSender(account: LiveAccount, roomId: string, sender: LastSender): void {
  account.lastSenders.set(roomId, sender);
  const file = account.stateFile;
  if (!file) return;
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(`${file}.tmp`, JSON.stringify(Object.fromEntries(account.lastSenders)));
  renameSync(`${file}.tmp`, file); // whole or not at all
}
