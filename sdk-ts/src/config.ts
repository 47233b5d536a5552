/** Credentials and URLs: `agent_config.yaml` (`loadAgentConfig`), the environment, defaults. */

import { readFileSync } from "node:fs";
import { resolve } from "node:path";

import { load as loadYaml } from "js-yaml";

import { ValidationError } from "./errors.js";

export const DEFAULT_REST_URL = "https://app.band.ai";
export const DEFAULT_WS_URL = "wss://app.band.ai/api/v1/socket/websocket";

/** One agent's credentials, and the platform URLs when the config names them. */
export interface AgentCredentials {
  agentId: string;
  apiKey: string;
  wsUrl?: string;
  restUrl?: string;
}

export interface LoadAgentConfigOptions {
  /** The YAML file; `./agent_config.yaml` (in the working directory) by default. */
  path?: string;
}

function text(value: unknown): string | undefined {
  if (typeof value === "string" && value.trim()) return value.trim();
  if (typeof value === "number") return String(value);
  return undefined;
}

/**
 * The agent under `key` in `agent_config.yaml` (`{key: {agent_id, api_key}}`); a file whose
 * top level has `agent_id` is one agent (the flat form). `ws_url` / `rest_url` in the entry
 * are used when present. Throws `ValidationError` naming the file and what is missing.
 */
export function loadAgentConfig(key: string, options: LoadAgentConfigOptions = {}): AgentCredentials {
  const path = resolve(options.path ?? "agent_config.yaml");
  let source: string;
  try {
    source = readFileSync(path, "utf8");
  } catch {
    throw new ValidationError(
      `Config file not found at ${path}. Create agent_config.yaml with the agent's ID and API key under "${key}".`,
    );
  }
  let data: unknown;
  try {
    data = loadYaml(source) ?? {};
  } catch (error) {
    throw new ValidationError(`${path} is not valid YAML: ${String(error)}`);
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new ValidationError(`${path}: expected a mapping at the top level`);
  }
  const top = data as Record<string, unknown>;
  let entry = top[key];
  if ((entry === undefined || entry === null) && "agent_id" in top) entry = top;
  if (entry === undefined || entry === null) {
    throw new ValidationError(`Agent "${key}" not found in ${path}. Add its agent_id and api_key under "${key}".`);
  }
  if (typeof entry !== "object" || Array.isArray(entry)) {
    throw new ValidationError(`${path}: agent "${key}" must be a mapping with agent_id and api_key`);
  }
  const fields = entry as Record<string, unknown>;
  const agentId = text(fields.agent_id);
  const apiKey = text(fields.api_key);
  const missing = [agentId ? null : "agent_id", apiKey ? null : "api_key"].filter((m) => m !== null);
  if (!agentId || !apiKey) {
    throw new ValidationError(`Missing required fields for agent "${key}" in ${path}: ${missing.join(", ")}`);
  }
  const result: AgentCredentials = { agentId, apiKey };
  const wsUrl = text(fields.ws_url);
  const restUrl = text(fields.rest_url);
  if (wsUrl) result.wsUrl = wsUrl;
  if (restUrl) result.restUrl = restUrl;
  return result;
}

export interface LoadAgentConfigFromEnvOptions {
  /** Variable name prefix; `BAND` reads BAND_AGENT_ID, BAND_API_KEY, BAND_WS_URL, BAND_REST_URL. */
  prefix?: string;
  env?: NodeJS.ProcessEnv;
}

/** Credentials from the environment (`BAND_AGENT_ID`, `BAND_API_KEY`, optional URLs). */
export function loadAgentConfigFromEnv(options: LoadAgentConfigFromEnvOptions = {}): AgentCredentials {
  const prefix = options.prefix ?? "BAND";
  const env = options.env ?? process.env;
  const read = (name: string): string | undefined => text(env[`${prefix}_${name}`]);
  const agentId = read("AGENT_ID");
  const apiKey = read("API_KEY");
  if (!agentId || !apiKey) {
    const missing = [agentId ? null : `${prefix}_AGENT_ID`, apiKey ? null : `${prefix}_API_KEY`];
    throw new ValidationError(`Missing environment variables: ${missing.filter((m) => m).join(", ")}`);
  }
  const result: AgentCredentials = { agentId, apiKey };
  const wsUrl = read("WS_URL");
  const restUrl = read("REST_URL");
  if (wsUrl) result.wsUrl = wsUrl;
  if (restUrl) result.restUrl = restUrl;
  return result;
}

/** The platform URLs: explicit ones win, then BAND_WS_URL / BAND_REST_URL, then production. */
export function resolveUrls(
  wsUrl?: string,
  restUrl?: string,
  env: NodeJS.ProcessEnv = process.env,
): { wsUrl: string; restUrl: string } {
  return {
    wsUrl: wsUrl || text(env.BAND_WS_URL) || DEFAULT_WS_URL,
    restUrl: restUrl || text(env.BAND_REST_URL) || DEFAULT_REST_URL,
  };
}
