/**
 * `Agent`: the top-level handle: `Agent.create({ adapter, config, agentConfig })`, then
 * `await agent.run()` (connect, serve until SIGINT/SIGTERM or the link ends, stop cleanly).
 */

import type { FrameworkAdapter } from "./adapters/base.js";
import type { AgentCredentials } from "./config.js";
import { log } from "./logger.js";
import { PlatformRuntime, type PlatformRuntimeOptions } from "./runtime/platformRuntime.js";

export interface AgentCreateOptions extends Omit<PlatformRuntimeOptions, "agentId" | "apiKey"> {
  adapter: FrameworkAdapter;
  /** Credentials, e.g. from `loadAgentConfig("my_agent")`. */
  config?: AgentCredentials;
  agentId?: string;
  apiKey?: string;
  /** How long `stop()` waits for running turns (default 30 s). */
  shutdownTimeoutMs?: number;
}

/** One agent on the platform, driven by a framework adapter. */
export class Agent {
  private started: Promise<void> | null = null;

  private constructor(
    public readonly runtime: PlatformRuntime,
    public readonly adapter: FrameworkAdapter,
    private readonly shutdownTimeoutMs: number,
  ) {}

  /** Build an agent from credentials and an adapter (URLs: explicit, then BAND_WS_URL /
   * BAND_REST_URL, then production). */
  public static create(options: AgentCreateOptions): Agent {
    const { adapter, config, agentId, apiKey, shutdownTimeoutMs, ...rest } = options;
    const wsUrl = rest.wsUrl ?? config?.wsUrl;
    const restUrl = rest.restUrl ?? config?.restUrl;
    const runtime = new PlatformRuntime({
      ...rest,
      agentId: agentId ?? config?.agentId ?? "",
      apiKey: apiKey ?? config?.apiKey ?? "",
      ...(wsUrl ? { wsUrl } : {}),
      ...(restUrl ? { restUrl } : {}),
    });
    return new Agent(runtime, adapter, shutdownTimeoutMs ?? 30_000);
  }

  public get isRunning(): boolean {
    return this.started !== null;
  }

  /** Connect and admit the agent's rooms (idempotent). */
  public start(): Promise<void> {
    this.started ??= this.runtime.start(this.adapter).catch(async (error: unknown) => {
      this.started = null;
      await this.runtime.stop(0).catch(() => undefined);
      throw error;
    });
    return this.started;
  }

  /** Settle the rooms (waiting up to the shutdown timeout) and disconnect. */
  public async stop(timeoutMs?: number): Promise<boolean> {
    if (this.started === null) return true;
    try {
      await this.started;
    } catch {
      return true;
    }
    this.started = null;
    return this.runtime.stop(timeoutMs ?? this.shutdownTimeoutMs);
  }

  /** Start, serve until SIGINT/SIGTERM (or the link ends), then stop. */
  public async run(options: { signals?: boolean } = {}): Promise<void> {
    await this.start();
    const signals = options.signals ?? true;
    let interrupt = (): void => undefined;
    const interrupted = new Promise<void>((resolve) => {
      interrupt = resolve;
    });
    const onSignal = (): void => {
      log().info("Signal received; stopping");
      interrupt();
    };
    if (signals) {
      process.once("SIGINT", onSignal);
      process.once("SIGTERM", onSignal);
    }
    try {
      await Promise.race([this.runtime.runForever(), interrupted]);
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      await this.stop();
    }
  }
}
