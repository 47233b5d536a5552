from pydantic import BaseModel
from band.core import AgentToolsProtocol
from band.runtime.custom_tools import declares_turn_effect, execute_custom_tool
from band.runtime.tools import TurnEffect
class EscalateInput(BaseModel):
    """Hand the conversation to a person on call."""
    reason: str
@declares_turn_effect(TurnEffect.ACT)
async def escalate(args: EscalateInput) -> str:
    return f"Escalated to the on-call person: {args.reason}"
async def run_escalation(
    tools: AgentToolsProtocol, arguments: dict[str, str]
) -> str:
    return await execute_custom_tool(
        (EscalateInput, escalate), arguments, turn=tools.turn
    )
