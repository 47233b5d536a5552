"""A Band room router on a CrewAI Flow (``pip install 'openband[crewai]'``).

Ask it with peers tagged (``@router compare @scout and @sage on ...``): the flow asks each
tagged peer, waits for both (a peer silent for ``reply_timeout`` is reported as failed),
then posts one answer that sums their replies up, written by the model.

    OPENAI_MODEL=openai/gpt-5.4-mini python crewai_flow_agent.py   # "my_agent" in the config
"""

from __future__ import annotations

import asyncio
import os
from datetime import timedelta
from typing import Any

from crewai import LLM
from crewai.flow.flow import Flow, start

from band import Agent
from band.adapters import CrewAIFlowAdapter, CrewAIFlowAdapterConfig
from band.runtime.formatters import strip_leading_mentions

LLM_MODEL = os.environ.get("OPENAI_MODEL", "openai/gpt-5.4-mini")


class PanelFlow(Flow):  # type: ignore[type-arg]
    """Delegate to the tagged peers; once the round is joined, synthesise their answers."""

    @start()
    async def decide(self) -> dict[str, Any]:
        run = self.state["run"]
        if not run["delegations"]:
            question = strip_leading_mentions(self.state["message"]["content"])
            tagged = [
                p
                for p in self.state["participants"]
                if p["normalized_key"] in run["tagged_peer_keys"]
            ]
            if not tagged:
                text = await LLM(model=LLM_MODEL).acall(self.state["transcript"])
                return {"decision": "direct_response", "content": str(text)}
            return {
                "decision": "delegate",
                "delegations": [
                    {
                        "delegation_id": p["participant_id"],
                        "target": p["participant_id"],
                        "content": f"What is your view on: {question}",
                        "mentions": [p["handle"] or p["participant_id"]],
                    }
                    for p in tagged
                ],
            }
        answers = "\n".join(
            f"- {d['target']['name']}: {d['reply_content'] or 'no answer (' + d['status'] + ')'}"
            for d in run["delegations"]
        )
        prompt = f"Sum up these answers for the person who asked, in two sentences:\n{answers}"
        text = await LLM(model=LLM_MODEL).acall([{"role": "user", "content": prompt}])
        return {"decision": "synthesize", "content": str(text)}


def build_adapter() -> CrewAIFlowAdapter:
    config = CrewAIFlowAdapterConfig(reply_timeout=timedelta(minutes=2))
    return CrewAIFlowAdapter(config, flow_factory=PanelFlow)


if __name__ == "__main__":
    asyncio.run(Agent.from_config("my_agent", adapter=build_adapter()).run())
