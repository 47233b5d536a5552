/**
 * A real platform for the tests: `band serve` (the project's `.venv/bin/band`, or `BAND_BIN`)
 * on a free loopback port with its own data folder, and a person to drive rooms with.
 * `globalSetup.ts` starts one for the whole run and hands it to each test file through
 * `BAND_TEST_PLATFORM`; a file run on its own starts its own.
 */

import { spawn, execFile, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

import { HumanRestClient } from "../../src/index.js";

const run = promisify(execFile);
const REPO = resolve(import.meta.dirname, "..", "..", "..");

export interface PlatformInfo {
  restUrl: string;
  wsUrl: string;
  port: number;
  userKey: string;
  userId: string;
  dataDir: string;
}

export interface Platform extends PlatformInfo {
  stop(): Promise<void>;
  /** Stop at once (synchronous, for the process's exit). */
  kill(): void;
}

function bandBin(): string {
  return process.env.BAND_BIN ?? join(REPO, ".venv", "bin", "band");
}

export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => {
        done(port);
      });
    });
  });
}

export async function until<T>(probe: () => Promise<T | null | undefined | false> | T | null | undefined | false, what: string, withinMs = 20_000): Promise<T> {
  const deadline = Date.now() + withinMs;
  let lastError: unknown = null;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const detail = lastError instanceof Error ? `; last error: ${lastError.message}` : "";
      throw new Error(`timed out after ${withinMs} ms waiting for ${what}${detail}`);
    }
    await new Promise((done) => setTimeout(done, 100));
  }
}

/** Start `band serve` with a fresh data folder and one person (`alice`). */
export async function startPlatform(): Promise<Platform> {
  const dataDir = mkdtempSync(join(tmpdir(), "openband-ts-"));
  const env = { ...process.env, NO_PROXY: "127.0.0.1,localhost", no_proxy: "127.0.0.1,localhost" };
  const created = await run(bandBin(), ["users", "create", "Alice", "--handle", "alice", "--email", "alice@example.org", "--data", dataDir], { env });
  const userKey = /api_key:\s*(\S+)/.exec(created.stdout)?.[1];
  const userId = /id:\s*(\S+)/.exec(created.stdout)?.[1];
  if (!userKey || !userId) throw new Error(`band users create printed no key:\n${created.stdout}`);
  const port = await freePort();
  const child: ChildProcess = spawn(bandBin(), ["serve", "--host", "127.0.0.1", "--port", String(port), "--data", dataDir], {
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  });
  // The test process ends when its tests do; the platform is killed on its way out.
  child.unref();
  (child.stderr as (NodeJS.ReadableStream & { unref?: () => void }) | null)?.unref?.();
  const restUrl = `http://127.0.0.1:${port}`;
  try {
    await until(async () => child.exitCode === null && (await fetch(`${restUrl}/health`)).ok, "band serve to answer /health", 60_000);
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error(`band serve did not start:\n${log}`, { cause: error });
  }
  return {
    restUrl,
    wsUrl: `ws://127.0.0.1:${port}/api/v1/socket/websocket`,
    port,
    userKey,
    userId,
    dataDir,
    kill: () => {
      if (child.exitCode === null) child.kill("SIGKILL");
      rmSync(dataDir, { recursive: true, force: true });
    },
    stop: async () => {
      const alive = (): boolean => child.exitCode === null && child.signalCode === null;
      if (alive()) {
        const exited = new Promise((done) => child.once("exit", done));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((done) => setTimeout(done, 10_000))]);
        if (alive()) child.kill("SIGKILL");
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

let shared: Promise<Platform> | null = null;

/** The run's one platform, started by the first file that asks; its `stop()` does nothing
 * (the platform ends with the process). */
export async function usePlatform(): Promise<Platform> {
  if (shared === null) {
    shared = startPlatform();
    const started = await shared;
    process.once("exit", () => {
      started.kill();
    });
  }
  const platform = await shared;
  return { ...platform, stop: () => Promise.resolve() };
}

/** The person's REST client. */
export function person(platform: PlatformInfo): HumanRestClient {
  return new HumanRestClient(platform.restUrl, platform.userKey);
}

let counter = 0;

/** A fresh agent of Alice's (unique name) and a room with both; the agent's credentials. */
export async function agentInRoom(platform: PlatformInfo, name = "Helper"): Promise<{ agentId: string; apiKey: string; roomId: string; handle: string }> {
  counter += 1;
  const human = person(platform);
  const unique = `${name} ${process.pid % 1000} ${counter}`;
  const { agent, apiKey } = await human.registerAgent(unique, "Answers questions in tests.");
  const room = await human.createChat(`Room ${unique}`);
  await human.addParticipant(room.id, agent.id);
  return { agentId: agent.id, apiKey, roomId: room.id, handle: typeof agent.handle === "string" ? agent.handle : "" };
}
