"""CrewAI Flows the CrewAI Flow tests run: one that answers with a model call, and one that
delegates to the tagged peers and then synthesises their answers.

A flow gets the run as inputs (``self.state``) and returns a decision dict.
"""

from __future__ import annotations

from typing import Any

from crewai import LLM
from crewai.flow.flow import Flow, start

from band.runtime.formatters import strip_leading_mentions

SYSTEM = "You are a router in a chat room. Answer the last message."


def answer_flow(llm: LLM) -> Any:
    """A flow whose answer is one model call over the room's conversation."""

    class AnswerFlow(Flow):  # type: ignore[type-arg]
        @start()
        async def answer(self) -> dict[str, Any]:
            messages = [{"role": "system", "content": SYSTEM}, *self.state["transcript"]]
            text = await llm.acall(messages)
            return {"decision": "direct_response", "content": str(text)}

    return AnswerFlow()


def synthesis(run: dict[str, Any]) -> str:
    """One line per delegation: the peer's answer, or why there is none."""
    lines = []
    for delegation in run["delegations"]:
        peer = delegation["target"]["name"] or delegation["target"]["handle"]
        if delegation["status"] == "replied":
            lines.append(f"{peer} said: {delegation['reply_content']}")
        else:
            error = delegation.get("error") or {}
            lines.append(f"{peer} failed ({error.get('code')}): {error.get('message')}")
    return "Summary of your peers' answers:\n" + "\n".join(lines)


class DelegatingFlow(Flow):  # type: ignore[type-arg]
    """Asks every tagged peer the requester's question, each once, then posts one
    synthesised answer.

    Whatever message runs it, the flow asks the tagged peers not asked yet (with the same
    delegation ids, so a retried turn sends nothing twice): after a restart a peer's reply
    may come before the requester's message is served again.
    """

    @start()
    def decide(self) -> dict[str, Any]:
        run = self.state["run"]
        asked = {d["target"]["participant_id"] for d in run["delegations"]}
        waiting = [
            p
            for p in self.state["participants"]
            if p["normalized_key"] in run["tagged_peer_keys"] and p["participant_id"] not in asked
        ]
        message = self.state["message"]
        if run["delegations"]:
            ask = run["delegations"][0]["content"]
        elif message is not None and message["id"] == run["parent_message_id"]:
            ask = f"Please give your view on: {strip_leading_mentions(message['content'])}"
        else:
            ask = ""
        if waiting and ask:
            return {
                "decision": "delegate",
                "delegations": [
                    {
                        "delegation_id": f"ask-{p['participant_id']}",
                        "target": p["participant_id"],
                        "content": ask,
                        "mentions": [p["handle"] or p["participant_id"]],
                    }
                    for p in waiting
                ],
            }
        return {"decision": "synthesize", "content": synthesis(run)}


def subcrew_flow(llm: LLM) -> Any:
    """A flow whose answer is written by a sub-crew: the crew first posts a note to the
    requester through Band's ``band_send_message`` (``create_crewai_tools``), then the flow
    answers with the crew's result."""
    from crewai import Agent, Crew, Task

    from band.adapters.crewai_flow import get_current_flow_runtime

    class SubCrewFlow(Flow):  # type: ignore[type-arg]
        @start()
        async def work(self) -> dict[str, Any]:
            runtime = get_current_flow_runtime()
            assert runtime is not None
            worker = Agent(
                role="Researcher",
                goal="Answer the question",
                backstory="You post a note to the room before answering.",
                llm=llm,
                tools=runtime.create_crewai_tools(),
            )
            task = Task(
                description="Answer the room's question.", expected_output="An answer", agent=worker
            )
            crew = Crew(agents=[worker], tasks=[task])
            result = await crew.kickoff_async()
            return {"decision": "direct_response", "content": f"Crew says: {result.raw}"}

    return SubCrewFlow()
