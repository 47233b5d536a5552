import { Agent, ParlantAdapter, loadAgentConfig } from "openband";

const adapter = new ParlantAdapter({
  environment: process.env.PARLANT_ENVIRONMENT ?? "http://localhost:8800",
  agentId: process.env.PARLANT_AGENT_ID ?? "",
});

const agent = Agent.create({
  adapter,
  config: loadAgentConfig("my_agent"),
  agentConfig: { autoSubscribeExistingRooms: true },
});

await agent.run();
