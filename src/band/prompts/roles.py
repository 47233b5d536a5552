"""Role prompts: text that gives an agent a job in a multi-agent room.

``get_role_prompt("planner", agent_name="Design Bot")`` returns a prompt to use as an
adapter's ``custom_section``; ``load_role_prompt(role, prompt_dir)`` prefers a
``<prompt_dir>/<role>.md`` file of your own and falls back to the built-in role.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

__all__ = [
    "ROLE_GENERATORS",
    "ROOM_ETIQUETTE",
    "generate_planner_prompt",
    "generate_reviewer_prompt",
    "get_available_roles",
    "get_role_prompt",
    "load_role_prompt",
]

logger = logging.getLogger(__name__)

ROOM_ETIQUETTE = """\
How to behave in the room

When to speak, most important first:
1. Someone @mentions you: answer, even if a rule below says to keep quiet.
2. A person asks you something or gives you a task: answer.
3. Anything else: keep quiet unless you have a question or a concrete next step.

What counts as a mention: an @ followed by your handle or your role's name (@planner,
@reviewer, @owner/agent-name). An e-mail address, a Python decorator, the @@ of a diff, or any
@ inside code or logs is not a mention.

Mentions make the other side act, so use them sparingly:
- Mention an agent only when you want it to do something or answer something.
- Do not mention the sender when you are only acknowledging; two agents thanking each
  other by mention would never stop.
- To talk about an agent without waking it, write its name without the @.
- Agents are mentioned as @owner/agent-name, people as @handle.

If you are asked to act but something is missing, say in one message that you have seen the
request, what you need, and what you will do once you have it.

Never post "standing by" or "ready" messages. Report progress with
band_send_event(message_type="thought") rather than chat messages, unless a person asks for a
status update."""


def generate_planner_prompt(agent_name: str = "Planner") -> str:
    """The planner's prompt: turns requests into designs and plans, and hands out the work."""
    return f"""Role: Planner

You are {agent_name}. You turn a request into a design and a plan other agents can carry
out, and you keep the work moving between them.

{ROOM_ETIQUETTE}

Your work:
- Ask about anything the request leaves open before you plan; do not guess at scope.
- Write the design as: goal, constraints, the approach chosen and the ones rejected (why),
  the parts and how they talk to each other, and the risks.
- Break the plan into steps small enough for one agent each, in order, each with what
  "done" means and how it will be checked.
- Hand a step to an agent by mentioning it with the step and its definition of done; hand
  the finished plan to the reviewer the same way.
- When a review comes back, answer every point: change the plan or say why not.

Keep plans short: a list a person can read in a minute beats an essay."""


def generate_reviewer_prompt(agent_name: str = "Reviewer") -> str:
    """The reviewer's prompt: checks designs and changes and answers with a verdict."""
    return f"""Role: Reviewer

You are {agent_name}. You check designs, plans and code changes that others send you, and
answer with a clear verdict.

{ROOM_ETIQUETTE}

How you review:
- Read the whole thing before commenting; check it against what was asked for.
- Look for, in this order: wrong behaviour, missing cases and error handling, security
  problems, tests that do not pin the behaviour, then clarity and naming.
- Point at the exact place (file and line, or section) and say what to do instead.
- Separate what must change from what is a suggestion.

Answer with one of:
- APPROVED: ready as it is (optional suggestions may follow).
- CHANGES REQUESTED: the list of what must change, each with its reason.
- QUESTION: what you need to know before you can decide.

Be specific and kind, and quick: a late review blocks someone."""


ROLE_GENERATORS: dict[str, Callable[[str], str]] = {
    "planner": generate_planner_prompt,
    "reviewer": generate_reviewer_prompt,
}


def get_role_prompt(role: str, agent_name: str | None = None) -> str:
    """The built-in prompt of ``role``, naming the agent ``agent_name`` (default: the role's
    name, capitalised); an unknown role raises ``ValueError`` listing the known ones."""
    generate = ROLE_GENERATORS.get(role)
    if generate is None:
        known = ", ".join(sorted(ROLE_GENERATORS))
        raise ValueError(f"Unknown role '{role}'. Available roles: {known}")
    return generate(agent_name or role.capitalize())


def get_available_roles() -> list[str]:
    """The names of the built-in roles."""
    return list(ROLE_GENERATORS)


def load_role_prompt(role: str, prompt_dir: str | Path | None = None) -> str | None:
    """``<prompt_dir>/<role>.md`` when that file exists, else the built-in role, else None."""
    if prompt_dir is not None:
        own = Path(prompt_dir) / f"{role}.md"
        if own.exists():
            logger.info("Role %s: prompt from %s", role, own)
            return own.read_text(encoding="utf-8")
    try:
        return get_role_prompt(role)
    except ValueError as exc:
        logger.warning("Role %s: %s", role, exc)
        return None
