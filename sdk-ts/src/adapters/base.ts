/**
 * The adapter contract: what the `Agent` calls (`FrameworkAdapter`), a base class that turns
 * it into one `onMessage` call per message (`SimpleAdapter`), and `GenericAdapter`, which
 * runs a plain function.
 */

import type { HistoryItem, PlatformMessage } from "../runtime/messages.js";
import type { AgentTools } from "../tools/agentTools.js";

/** One turn's input, as the runtime hands it to an adapter. */
export interface AdapterInput {
  message: PlatformMessage;
  tools: AgentTools;
  /** The room's history before this message, on the session's first turn; else empty. */
  history: HistoryItem[];
  /** The roster text when it changed since the adapter last saw it (always on the first turn). */
  participantsMessage: string | null;
  /** Pending system notes (contact events), if any. */
  contactsMessage: string | null;
  isSessionBootstrap: boolean;
  roomId: string;
  /** Aborts when the turn is cut (interrupt, stop, time limit). */
  signal: AbortSignal | null;
}

/** What the `Agent` needs of an adapter. */
export interface FrameworkAdapter {
  /** Called once the agent's identity is known, before any room runs. */
  onStarted?(agentName: string, agentDescription: string): Promise<void>;
  onEvent(input: AdapterInput): Promise<void>;
  /** The agent left the room, or is stopping: forget its session. */
  onCleanup?(roomId: string): Promise<void>;
  /** The runtime is stopping (after every room's cleanup). */
  onStopped?(): Promise<void>;
  /** A control cut the room's turn (`interrupt` or `stop`). */
  onInterrupt?(roomId: string, mode: "interrupt" | "stop"): Promise<void>;
}

export interface TurnContext {
  isSessionBootstrap: boolean;
  roomId: string;
  signal: AbortSignal | null;
}

/** An adapter written as one `onMessage` per message, with the history converted by
 * `convertHistory` (identity by default). */
export abstract class SimpleAdapter<H = HistoryItem[]> implements FrameworkAdapter {
  public agentName = "";
  public agentDescription = "";

  public onStarted(agentName: string, agentDescription: string): Promise<void> {
    this.agentName = agentName;
    this.agentDescription = agentDescription;
    return Promise.resolve();
  }

  /** The raw history items as this adapter's framework wants them. */
  protected convertHistory(raw: HistoryItem[]): H {
    return raw as unknown as H;
  }

  public abstract onMessage(
    message: PlatformMessage,
    tools: AgentTools,
    history: H,
    participantsMessage: string | null,
    contactsMessage: string | null,
    context: TurnContext,
  ): Promise<void>;

  public onEvent(input: AdapterInput): Promise<void> {
    return this.onMessage(input.message, input.tools, this.convertHistory(input.history), input.participantsMessage, input.contactsMessage, {
      isSessionBootstrap: input.isSessionBootstrap,
      roomId: input.roomId,
      signal: input.signal,
    });
  }

  public onCleanup(_roomId: string): Promise<void> {
    return Promise.resolve();
  }
}

/** The arguments a `GenericAdapter` handler receives: the turn's input and who the agent is. */
export type GenericAdapterArgs = AdapterInput & { agentName: string; agentDescription: string };

export type GenericAdapterHandler = (args: GenericAdapterArgs) => Promise<void>;

/** An adapter that runs `handler` for every message. */
export class GenericAdapter extends SimpleAdapter {
  public constructor(private readonly handler: GenericAdapterHandler) {
    super();
  }

  public onMessage(
    message: PlatformMessage,
    tools: AgentTools,
    history: HistoryItem[],
    participantsMessage: string | null,
    contactsMessage: string | null,
    context: TurnContext,
  ): Promise<void> {
    return this.handler({
      message,
      tools,
      history,
      participantsMessage,
      contactsMessage,
      ...context,
      agentName: this.agentName,
      agentDescription: this.agentDescription,
    });
  }
}
