from typing import Any
from band import Capability
from band.core import AgentToolsProtocol
def band_tools_for_framework(
    tools: AgentToolsProtocol, capabilities: frozenset[Capability]
) -> list[dict[str, Any]]:
    """Describe each Band room tool as a name, description, schema, and callable."""
    wrapped = []
    for schema in tools.get_openai_tool_schemas(capabilities=capabilities):
        spec = schema["function"]
        async def call(_name: str = spec["name"], **arguments: Any) -> Any:
            return await tools.execute_tool_call(_name, arguments)
        wrapped.append(
            {
                "name": spec["name"],
                "description": spec["description"],
                "parameters": spec["parameters"],
                "call": call,
            }
        )
    return wrapped
