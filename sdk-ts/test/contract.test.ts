/**
 * The TypeScript SDK agrees with the platform and the Python SDK: every REST wire model
 * accepts everything the server's OpenAPI document says it may send, and the tools and
 * prompts are the Python SDK's (`src/generated/contract.json`, which the Python suite checks
 * against the live server and SDK).
 */

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { z } from "zod";

import contract from "../src/generated/contract.json" with { type: "json" };
import { BASE_INSTRUCTIONS, TOOL_NAMES, enabledToolNames, openaiSchema, renderSystemPrompt, wire } from "../src/index.js";

type Schema = Record<string, unknown>;
const components = contract.openapi as Record<string, Schema>;

function types(node: Schema): Set<string> {
  if (Array.isArray(node.anyOf)) return new Set((node.anyOf as Schema[]).flatMap((n) => [...types(n)]));
  if (typeof node.type === "string") return new Set([node.type === "integer" ? "number" : node.type]);
  if (Array.isArray(node.type)) return new Set((node.type as string[]).map((t) => (t === "integer" ? "number" : t)));
  if ("$ref" in node) return new Set(["object"]);
  if (node.const !== undefined || Array.isArray(node.enum)) return new Set(["string"]);
  return new Set(["any"]);
}

describe("wire models against the server's OpenAPI document", () => {
  for (const [component, model] of Object.entries(wire.REST_MODELS)) {
    it(`${component}: every field is the server's, required only when the server always sends it, with its types`, () => {
      const server = components[component];
      assert.ok(server, `the contract has no component ${component}`);
      const props = (server.properties ?? {}) as Record<string, Schema>;
      const serverRequired = new Set((server.required ?? []) as string[]);
      const ours = z.toJSONSchema(model, { io: "input", unrepresentable: "any" }) as Schema;
      const ourProps = (ours.properties ?? {}) as Record<string, Schema>;
      const ourRequired = new Set((ours.required ?? []) as string[]);
      for (const [name, ourField] of Object.entries(ourProps)) {
        const field = props[name];
        assert.ok(field, `${component}.${name} is not a field of the server's ${component}`);
        if (ourRequired.has(name)) {
          assert.ok(serverRequired.has(name) || "default" in field, `${component}.${name} is required here but optional on the server`);
        }
        const accepted = types(ourField);
        if (accepted.has("any")) continue;
        for (const t of types(field)) {
          if (t === "any") continue;
          assert.ok(accepted.has(t), `${component}.${name}: the server may send ${t}, the model accepts ${[...accepted].join("|")}`);
        }
      }
    });
  }
});

describe("tools and prompts are the Python SDK's", () => {
  it("offers the chat tools, then contacts by default, in the Python registry order", () => {
    assert.deepEqual(enabledToolNames(), TOOL_NAMES.filter((n) => !/memor/.test(n)));
    assert.deepEqual(enabledToolNames([]).slice(0, 3), ["band_send_message", "band_send_event", "band_no_reply"]);
    assert.ok(enabledToolNames(["memory"]).includes("band_store_memory"));
  });

  it("gives each tool the contract's description and JSON schema", () => {
    const send = openaiSchema("band_send_message");
    const spec = contract.tools.find((t) => t.name === "band_send_message");
    assert.equal(send.function.description, spec?.description);
    assert.deepEqual(send.function.parameters, spec?.parameters);
    assert.deepEqual((send.function.parameters as { required?: string[] }).required, ["content", "mentions"]);
  });

  it("renders the system prompt with the Python SDK's sections", () => {
    const prompt = renderSystemPrompt({ agentName: "Helper", agentDescription: "helps people.", customSection: "Be brief." });
    assert.ok(prompt.startsWith("You are Helper, helps people.\n\n## Environment"));
    assert.ok(prompt.includes(BASE_INSTRUCTIONS));
    assert.ok(prompt.endsWith("## Developer Instructions\n\nBe brief."));
  });
});
