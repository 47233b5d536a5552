/** The system prompt for agents in Band rooms (the Python SDK's sections, from the contract). */

import contract from "../generated/contract.json" with { type: "json" };
import type { Capability } from "../tools/schemas.js";

export const BASE_INSTRUCTIONS: string = contract.prompts.base_instructions;
export const CONTACT_SECTION: string = contract.prompts.contact_section;
export const MEMORY_SECTION: string = contract.prompts.memory_section;
export const TURN_COMPLETION_GUIDANCE: string = contract.prompts.turn_completion_guidance;
export const SYSTEM_UPDATE_PREFIX: string = contract.prompts.system_update_prefix;

export interface RenderSystemPromptOptions {
  agentName?: string;
  agentDescription?: string;
  /** Appended under `## Developer Instructions`. */
  customSection?: string;
  includeBaseInstructions?: boolean;
  capabilities?: Iterable<Capability>;
  extraSections?: string[];
}

/** Identity, base instructions, capability sections, extras, then the developer's section. */
export function renderSystemPrompt(options: RenderSystemPromptOptions = {}): string {
  const description = (options.agentDescription ?? "An AI assistant").trim().replace(/\.+$/, "");
  const includeBase = options.includeBaseInstructions ?? true;
  const sections = [`You are ${options.agentName ?? "Agent"}, ${description}.`];
  if (includeBase) sections.push(BASE_INSTRUCTIONS);
  const capabilities = new Set(options.capabilities ?? []);
  if (capabilities.has("memory")) sections.push(MEMORY_SECTION);
  if (capabilities.has("contacts")) sections.push(CONTACT_SECTION);
  for (const extra of options.extraSections ?? []) if (extra.trim()) sections.push(extra.trim());
  const custom = (options.customSection ?? "").trim();
  if (custom) sections.push(includeBase ? `## Developer Instructions\n\n${custom}` : custom);
  return sections.join("\n\n");
}

/** `content` preceded by its `[System]: ` update lines. */
export function withSystemUpdates(content: string, ...updates: (string | null | undefined)[]): string {
  const lines = updates.filter((u): u is string => Boolean(u)).map((u) => `${SYSTEM_UPDATE_PREFIX}${u}`);
  return [...lines, content].join("\n");
}
