/**
 * The platform tools' names, groups, turn effects and JSON schemas, generated from the Python
 * SDK into `generated/contract.json` (so both SDKs offer the same tools to models), in the
 * OpenAI and Anthropic formats, filtered by capability.
 */

import { z } from "zod";

import contract from "../generated/contract.json" with { type: "json" };

export type ToolCategory = "chat" | "contacts" | "memory";
export type TurnEffect = "reply" | "decline" | "act" | "observe";
/** Capabilities that add tool groups to the chat tools. */
export type Capability = "contacts" | "memory";

/** One platform tool as the contract describes it. */
export interface ToolSpec {
  name: string;
  category: ToolCategory;
  effect: TurnEffect;
  description: string;
  parameters: Record<string, unknown>;
}

export interface OpenAIToolSchema {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface AnthropicToolSchema {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/** Every tool, in the Python SDK's registry order. */
export const TOOLS: readonly ToolSpec[] = contract.tools as ToolSpec[];
export const TOOL_NAMES: readonly string[] = TOOLS.map((t) => t.name);
export const MCP_TOOL_PREFIX = "mcp__band__";
const BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));
const VALIDATORS = new Map(TOOLS.map((t) => [t.name, z.fromJSONSchema(t.parameters as z.core.JSONSchema.JSONSchema)]));

/** Map MCP (`mcp__band__x`, `band-x`) and legacy spellings to the tool name. */
export function canonicalToolName(name: string): string {
  let out = name.startsWith(MCP_TOOL_PREFIX) ? name.slice(MCP_TOOL_PREFIX.length) : name;
  if (out.startsWith("band-")) out = out.slice("band-".length);
  return out === "create_agent_chat_message" ? "band_send_message" : out;
}

export function toolSpec(name: string): ToolSpec | undefined {
  return BY_NAME.get(canonicalToolName(name));
}

/** Tool names in registry order for these capabilities (chat always; default: contacts). */
export function enabledToolNames(capabilities?: Iterable<Capability>): string[] {
  const groups = new Set<string>(["chat", ...(capabilities ?? ["contacts"])]);
  return TOOLS.filter((t) => groups.has(t.category)).map((t) => t.name);
}

function copy<T>(value: T): T {
  return structuredClone(value);
}

export function openaiSchema(name: string): OpenAIToolSchema {
  const spec = BY_NAME.get(name);
  if (!spec) throw new Error(`unknown tool ${name}`);
  return { type: "function", function: { name, description: spec.description, parameters: copy(spec.parameters) } };
}

export function anthropicSchema(name: string): AnthropicToolSchema {
  const spec = BY_NAME.get(name);
  if (!spec) throw new Error(`unknown tool ${name}`);
  return { name, description: spec.description, input_schema: copy(spec.parameters) };
}

/** Validate a tool call's arguments; the parsed arguments, or the error text for the model. */
export function validateToolArguments(name: string, args: Record<string, unknown>): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  const validator = VALIDATORS.get(name);
  if (!validator) return { ok: false, error: `Unknown tool: ${name}` };
  const parsed = validator.safeParse(args);
  if (parsed.success) return { ok: true, value: parsed.data as Record<string, unknown> };
  const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(arguments)"}: ${i.message}`);
  return { ok: false, error: `Invalid arguments for ${name}: ${problems.join(", ")}` };
}
