import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";

import { DEFAULT_REST_URL, DEFAULT_WS_URL, ValidationError, loadAgentConfig, loadAgentConfigFromEnv, resolveUrls } from "../src/index.js";

function file(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "openband-config-")), "agent_config.yaml");
  writeFileSync(path, text);
  return path;
}

describe("loadAgentConfig", () => {
  it("reads the keyed entry the seed page writes", () => {
    const path = file('my_agent:\n  agent_id: "a-1"\n  api_key: "k-1"\nother:\n  agent_id: a-2\n  api_key: k-2\n');
    assert.deepEqual(loadAgentConfig("my_agent", { path }), { agentId: "a-1", apiKey: "k-1" });
  });

  it("reads ./agent_config.yaml from the working directory by default", () => {
    const path = file("my_agent:\n  agent_id: a-9\n  api_key: k-9\n");
    const before = process.cwd();
    process.chdir(join(path, ".."));
    try {
      assert.equal(loadAgentConfig("my_agent").agentId, "a-9");
    } finally {
      process.chdir(before);
    }
  });

  it("takes a flat file as one agent and keeps URLs it names", () => {
    const path = file("agent_id: a-3\napi_key: k-3\nrest_url: http://x\nws_url: ws://x/api/v1/socket/websocket\n");
    assert.deepEqual(loadAgentConfig("anything", { path }), {
      agentId: "a-3",
      apiKey: "k-3",
      restUrl: "http://x",
      wsUrl: "ws://x/api/v1/socket/websocket",
    });
  });

  it("names the file and the missing fields", () => {
    const path = file('my_agent:\n  agent_id: ""\n');
    assert.throws(() => loadAgentConfig("my_agent", { path }), (e: unknown) => e instanceof ValidationError && /agent_id, api_key/.test(e.message) && e.message.includes(path));
    assert.throws(() => loadAgentConfig("nobody", { path }), /Agent "nobody" not found/);
    assert.throws(() => loadAgentConfig("my_agent", { path: "/nonexistent/agent_config.yaml" }), /Config file not found at \/nonexistent/);
  });
});

describe("loadAgentConfigFromEnv and URLs", () => {
  it("reads BAND_AGENT_ID and BAND_API_KEY, and says which are missing", () => {
    const env = { BAND_AGENT_ID: "a", BAND_API_KEY: "k", BAND_REST_URL: "http://r" };
    assert.deepEqual(loadAgentConfigFromEnv({ env }), { agentId: "a", apiKey: "k", restUrl: "http://r" });
    assert.throws(() => loadAgentConfigFromEnv({ env: { BAND_AGENT_ID: "a" } }), /BAND_API_KEY/);
  });

  it("explicit URLs win over BAND_WS_URL / BAND_REST_URL, which win over production", () => {
    assert.deepEqual(resolveUrls(undefined, undefined, {}), { wsUrl: DEFAULT_WS_URL, restUrl: DEFAULT_REST_URL });
    const env = { BAND_WS_URL: "ws://e", BAND_REST_URL: "http://e" };
    assert.deepEqual(resolveUrls(undefined, undefined, env), { wsUrl: "ws://e", restUrl: "http://e" });
    assert.deepEqual(resolveUrls("ws://x", "http://x", env), { wsUrl: "ws://x", restUrl: "http://x" });
  });
});
