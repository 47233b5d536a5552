import asyncio
from dotenv import load_dotenv
from band import Agent, configure_logging
from chat_adapter import ChatCompletionsAdapter
async def main() -> None:
    load_dotenv()
    configure_logging()
    agent = Agent.from_config("my_agent", adapter=ChatCompletionsAdapter())
    await agent.run()
asyncio.run(main())
