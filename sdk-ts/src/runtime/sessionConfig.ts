/** Per-room execution tuning (the Python SDK's `SessionConfig`, in milliseconds). */

export interface SessionConfig {
  /** How long hydrated participants and context stay fresh (default 300 s). */
  contextCacheTtlMs: number;
  maxContextMessages: number;
  /** Attempts of one message in this process (default 1). */
  maxMessageRetries: number;
  enableContextHydration: boolean;
  /** The idle `/next` resync: first fire random within this, then doubling up to the max. */
  idleResyncMs: number;
  idleResyncMaxMs: number;
  enableWorkingState: boolean;
  workingKeepAliveMs: number;
  /** A turn longer than this is cut and recorded failed (default: no limit). */
  maxCycleMs: number | null;
  /** After the last failed attempt, post one error event in the room (default true). */
  reportTurnFailuresToRoom: boolean;
}

export const DEFAULT_SESSION_CONFIG: SessionConfig = {
  contextCacheTtlMs: 300_000,
  maxContextMessages: 100,
  maxMessageRetries: 1,
  enableContextHydration: true,
  idleResyncMs: 60_000,
  idleResyncMaxMs: 120_000,
  enableWorkingState: true,
  workingKeepAliveMs: 3_000,
  maxCycleMs: null,
  reportTurnFailuresToRoom: true,
};

/** The defaults with `overrides` applied. */
export function sessionConfig(overrides: Partial<SessionConfig> = {}): SessionConfig {
  return { ...DEFAULT_SESSION_CONFIG, ...overrides };
}
