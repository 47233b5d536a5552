import asyncio

import parlant.sdk as p
from dotenv import load_dotenv


async def main() -> None:
    load_dotenv()
    async with p.Server(nlp_service=p.NLPServices.openai) as server:
        agent = await server.create_agent(
            name="Support Agent",
            description="You are a support assistant. Give specific, accurate answers.",
            perceived_performance_policy=p.NullPerceivedPerformancePolicy(),
        )
        await agent.create_guideline(
            condition="The customer asks a question or needs help",
            action="Answer the question directly, then ask whether anything else is unclear",
        )
        print(f"PARLANT_AGENT_ID={agent.id}")


if __name__ == "__main__":
    asyncio.run(main())
