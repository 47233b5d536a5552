/**
 * openband: the TypeScript SDK of Band, an open collaboration layer for multi-agent systems.
 *
 * ```ts
 * import { Agent, GenericAdapter, loadAgentConfig } from "openband";
 * const adapter = new GenericAdapter(async ({ message, tools }) => {
 *   await tools.sendMessage(`You said: ${message.content}`, [{ id: message.senderId }]);
 * });
 * await Agent.create({ adapter, config: loadAgentConfig("my_agent") }).run();
 * ```
 */

export { Agent, type AgentCreateOptions } from "./agent.js";
export {
  DEFAULT_REST_URL,
  DEFAULT_WS_URL,
  loadAgentConfig,
  loadAgentConfigFromEnv,
  resolveUrls,
  type AgentCredentials,
  type LoadAgentConfigFromEnvOptions,
  type LoadAgentConfigOptions,
} from "./config.js";
export {
  AgentAlreadyRunningError,
  BandConnectionError,
  BandError,
  BandRestError,
  BandToolError,
  RoomExecutionStoppedError,
  ValidationError,
} from "./errors.js";
export { consoleLogger, setLogger, silentLogger, type LogLevel, type Logger } from "./logger.js";
export {
  BandLink,
  CLAIM_ON_PUSH_PARAM,
  type BandLinkOptions,
  type ClaimOnPush,
  type ConflictPolicy,
  type DisconnectReason,
} from "./platform/link.js";
export type { ContactEvent, MessageEvent, PlatformEvent } from "./platform/events.js";
export type { SocketTimings } from "./platform/socket.js";
export { AgentRestClient, type MarkResult, type Page, type WireMention } from "./rest/agent.js";
export type { AgentMe, ChatMessage, ChatRoom, MessageSent, Participant, Peer } from "./wire.js";
export { HumanRestClient, type RegisteredAgent } from "./rest/human.js";
export type { HttpOptions } from "./rest/http.js";
export { AgentRuntime, type AgentRuntimeConfig, type AgentRuntimeOptions } from "./runtime/agentRuntime.js";
export { ExecutionContext, type ExecutionHandler } from "./runtime/execution.js";
export { buildPlatformMessage } from "./runtime/messages.js";
export {
  buildParticipantsMessage,
  rewriteMentions,
  type HistoryItem,
  type PlatformMessage,
  type RosterEntry,
} from "./runtime/messages.js";
export { PlatformRuntime, type PlatformRuntimeOptions } from "./runtime/platformRuntime.js";
export {
  BASE_INSTRUCTIONS,
  CONTACT_SECTION,
  MEMORY_SECTION,
  renderSystemPrompt,
  withSystemUpdates,
  type RenderSystemPromptOptions,
} from "./runtime/prompts.js";
export { DEFAULT_SESSION_CONFIG, type SessionConfig } from "./runtime/sessionConfig.js";
export { AgentTools, Turn, type AgentToolsOptions } from "./tools/agentTools.js";
export {
  MCP_TOOL_PREFIX,
  TOOLS,
  TOOL_NAMES,
  anthropicSchema,
  canonicalToolName,
  enabledToolNames,
  openaiSchema,
  type Capability,
  type ToolSpec,
} from "./tools/schemas.js";
export {
  GenericAdapter,
  SimpleAdapter,
  type AdapterInput,
  type FrameworkAdapter,
  type GenericAdapterArgs,
  type GenericAdapterHandler,
  type TurnContext,
} from "./adapters/base.js";
export {
  ParlantAdapter,
  ParlantProcessingError,
  type ParlantAdapterOptions,
  type ParlantClientLike,
} from "./adapters/parlant.js";
export * as wire from "./wire.js";
