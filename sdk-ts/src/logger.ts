/** Logging: silent by default; `setLogger(consoleLogger("info"))` or BAND_LOG_LEVEL turns it on. */

export type LogLevel = "debug" | "info" | "warn" | "error";

/** Where the SDK's log lines go: one readable line per event. */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const NOOP = (): void => undefined;

/** A logger that writes `<time> [LEVEL] <scope>: <message>` lines to stderr from `level` up. */
export function consoleLogger(level: LogLevel = "info", scope = "band"): Logger {
  const line =
    (name: LogLevel) =>
    (message: string): void => {
      if (ORDER[name] < ORDER[level]) return;
      const stamp = new Date().toISOString().replace("T", " ").slice(0, 19);
      process.stderr.write(`${stamp} [${name.toUpperCase()}] ${scope}: ${message}\n`);
    };
  return { debug: line("debug"), info: line("info"), warn: line("warn"), error: line("error") };
}

/** A logger that drops everything (the default: the SDK logs nothing unless asked). */
export const silentLogger: Logger = { debug: NOOP, info: NOOP, warn: NOOP, error: NOOP };

function fromEnvironment(): Logger {
  const level = process.env.BAND_LOG_LEVEL?.toLowerCase();
  return level !== undefined && level in ORDER ? consoleLogger(level as LogLevel) : silentLogger;
}

let current: Logger = fromEnvironment();

/** Route the SDK's log lines to `logger` (e.g. `consoleLogger("debug")`). */
export function setLogger(logger: Logger): void {
  current = logger;
}

/** The SDK's logger now (modules call this at log time, so `setLogger` applies at once). */
export function log(): Logger {
  return current;
}
