"""Choosing an ACP session's model and reasoning effort from the settings it advertises.

The catalog and setting it are ``band.integrations.acp.session_config``'s; this picks the
model as the select of category ``model`` and the effort as the one of category
``thought_level`` (an option whose id is ``model`` / ``thought_level`` counts as well). A
wanted value is checked against what the select offers before it is sent, so a typo is
answered with the choices instead of a broken session.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from band.integrations.acp.session_config import (
    ACPConfigError,
    ACPConfigRequest,
    SessionConfigResolver,
    apply_session_config_selections,
    select_values,
    selects,
)

__all__ = [
    "EFFORT",
    "MODEL",
    "ACPConfigError",
    "ACPConfigRequest",
    "SessionConfigResolver",
    "current",
    "offered",
    "select",
]

MODEL = "model"
EFFORT = "thought_level"
SETTING_NAMES = {MODEL: "model", EFFORT: "reasoning effort"}


def select(options: Iterable[Any], category: str) -> Any | None:
    """The select option of ``category`` (``model`` / ``thought_level``), if offered."""
    found = list(selects(list(options)))
    by_category = [o for o in found if getattr(o, "category", None) == category]
    return (by_category or [o for o in found if getattr(o, "id", None) == category] or [None])[0]


def offered(option: Any) -> list[str]:
    """The values a select offers, groups flattened."""
    return list(select_values(option))


def current(options: Iterable[Any], category: str) -> str | None:
    option = select(options, category)
    return None if option is None else str(option.current_value)


def check(options: Iterable[Any], category: str, value: str, session_id: str) -> Any:
    """The option to set ``value`` on; ACPConfigError naming the choices otherwise."""
    name = SETTING_NAMES.get(category, category)
    option = select(options, category)

    def refuse(message: str) -> ACPConfigError:
        return ACPConfigError(
            session_id=session_id, option_id=category, selected_value=value, message=message
        )

    if option is None:
        raise refuse(f"this ACP agent's sessions offer no {name} setting")
    choices = offered(option)
    if value not in choices:
        listed = ", ".join(f"`{c}`" for c in choices) or "nothing"
        raise refuse(f"{name} `{value}` is not offered; the session offers {listed}")
    return option


async def apply(
    conn: Any, session_id: str, options: list[Any], wanted: Mapping[str, str | None]
) -> list[Any]:
    """Set each wanted ``{category: value}`` the session does not run yet; the catalog
    after (as the agent answers it)."""
    chosen: dict[str, str | None] = {}
    for category, value in wanted.items():
        if value is not None and current(options, category) != value:
            chosen[check(options, category, value, session_id).id] = value
    if not chosen:
        return options
    return await set_options(conn, session_id, options, chosen)


async def set_options(
    conn: Any, session_id: str, options: list[Any], selections: Mapping[str, str | None]
) -> list[Any]:
    """Set ``{option id: value}`` through ``session/set_config_option``; the catalog after."""

    async def setter(session: str, option_id: str, value: str) -> Any:
        return await conn.set_config_option(config_id=option_id, session_id=session, value=value)

    catalog = await apply_session_config_selections(
        session_id=session_id, config_options=options, selections=selections, set_option=setter
    )
    return list(catalog)


def describe(options: list[Any]) -> str:
    """The session's model (and effort) and what it offers, for ``/model``."""
    model = select(options, MODEL)
    if model is None:
        return "This ACP agent's sessions offer no model setting."
    text = f"Model in this room: `{model.current_value}`; offered: " + ", ".join(
        f"`{v}`" for v in offered(model)
    )
    effort = select(options, EFFORT)
    if effort is not None:
        text += f". Reasoning effort `{effort.current_value}` (of {', '.join(offered(effort))})"
    return text + "."
