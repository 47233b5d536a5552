"""The ACP adapter's model and reasoning effort: what a room asks for, checked and applied.

Reading the catalog, finding the model and effort selects and setting them are
``band.integrations.acp``'s (``session_config``, ``model_selection``); this words the
answers for a room: a model the session does not offer is refused naming the choices, and
``/model`` describes what runs and what is offered.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from band.core.model_catalog import ModelSelection
from band.integrations.acp.model_selection import (
    MODEL_CATEGORY,
    THOUGHT_LEVEL_CATEGORY,
    apply_model_selection,
    locate_model_options,
)
from band.integrations.acp.session_config import (
    ACPConfigError,
    ACPConfigRequest,
    SessionConfigResolver,
    apply_session_config_selections,
    select_values,
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

MODEL = MODEL_CATEGORY
EFFORT = THOUGHT_LEVEL_CATEGORY
SETTING_NAMES = {MODEL: "model", EFFORT: "reasoning effort"}


def select(options: Iterable[Any], category: str) -> Any | None:
    """The model (``model``) or effort (``thought_level``) select, if offered."""
    located = locate_model_options(list(options))
    return located.model if category == MODEL else located.effort if category == EFFORT else None


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
    """Set the wanted ``{MODEL: ..., EFFORT: ...}`` the session does not run yet (the model
    first); the catalog after, as the agent answers it."""
    changed = {c: v for c, v in wanted.items() if v is not None and current(options, c) != v}
    if not changed:
        return options
    for category in (MODEL,) if MODEL in changed else (EFFORT,):
        check(options, category, str(changed[category]), session_id)  # names the choices
    latest = list(options)

    async def setter(session: str, option_id: str, value: str) -> Any:
        answer = await conn.set_config_option(config_id=option_id, session_id=session, value=value)
        refreshed = getattr(answer, "config_options", None)
        if isinstance(refreshed, list):
            latest[:] = refreshed
        return answer

    await apply_model_selection(
        session_id=session_id,
        catalog=lambda: latest,
        selection=ModelSelection(model=changed.get(MODEL), reasoning_effort=changed.get(EFFORT)),
        locate=locate_model_options,
        set_option=setter,
    )
    return latest


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
