/** The SDK's errors: one base class, one subclass per thing a caller may want to catch. */

/** Base of every error the SDK raises on purpose. */
export class BandError extends Error {
  public constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A configuration or argument that cannot work (bad options, missing credentials). */
export class ValidationError extends BandError {}

/** The platform could not be reached, or the socket ended for good. */
export class BandConnectionError extends BandError {}

/** Another process holds this agent's connection and the platform refused ours (409). */
export class AgentAlreadyRunningError extends BandConnectionError {}

/** A tool call the model made cannot run (unknown tool, bad arguments, unknown participant). */
export class BandToolError extends BandError {}

/** The platform stopped this room's execution: the turn ends without writing anything more. */
export class RoomExecutionStoppedError extends BandError {
  public constructor(public readonly roomId: string) {
    super(`Room ${roomId}: execution is stopped`);
  }
}

/** A non-2xx answer of the REST API, with its error envelope. */
export class BandRestError extends BandError {
  public constructor(
    public readonly status: number,
    public readonly code: string,
    message: string,
    public readonly details: Record<string, unknown> | null = null,
    public readonly requestId: string | null = null,
  ) {
    super(`${status} ${code}: ${message}`);
  }

  /** The platform refused a post because the room's execution is stopped. */
  public get isStoppedExecution(): boolean {
    return this.status === 403 && this.message.toLowerCase().includes("execution is stopped");
  }
}

/** The error's message, whatever was thrown. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
