"""Setting an ACP session's model and reasoning effort from a ``ModelSelection``.

ACP reserves two select categories: ``model`` and ``thought_level`` (the reasoning effort).
``locate_model_options`` finds them in a session's catalog (an agent that leaves the
category out but names the select ``model`` / ``thought_level`` is understood too);
``apply_model_selection`` sets the model first and only then the effort, each checked
against the catalog as it stands at that moment, since a model change may replace the
effort select.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from band.core.model_catalog import (
    ModelCatalog,
    ModelChoice,
    ModelSelection,
    ModelSelectionError,
    ModelSetting,
    check_model_selection,
)
from band.core.validation import listing
from band.integrations.acp.session_config import (
    ACPConfigError,
    SessionConfigOption,
    SessionConfigSetter,
    apply_session_config_selections,
    flatten_select_options,
    select_ids,
    select_values,
    selects,
)

__all__ = [
    "MODEL_CATEGORY",
    "THOUGHT_LEVEL_CATEGORY",
    "ACPModelOptions",
    "apply_model_selection",
    "locate_model_options",
]

MODEL_CATEGORY = "model"
THOUGHT_LEVEL_CATEGORY = "thought_level"


@dataclass(frozen=True)
class ACPModelOptions:
    """The selects of a session's catalog that hold its model and its reasoning effort."""

    model: Any | None
    effort: Any | None

    def option_for(self, setting: ModelSetting) -> Any | None:
        return self.model if setting is ModelSetting.MODEL else self.effort

    def current_selection(self) -> ModelSelection:
        """The model and effort the session runs now (None where it offers none)."""
        return ModelSelection(
            model=None if self.model is None else self.model.current_value,
            reasoning_effort=None if self.effort is None else self.effort.current_value,
        )

    def model_catalog(self) -> ModelCatalog | None:
        """The offered models; efforts are known only for the model running now."""
        if self.model is None:
            return None
        current = str(self.model.current_value)
        efforts = select_values(self.effort) if self.effort is not None else ()
        default = None if self.effort is None else str(self.effort.current_value)
        choices = tuple(
            ModelChoice(
                id=str(entry.value),
                label=getattr(entry, "name", None),
                efforts=efforts if entry.value == current else None,
                default_effort=default if entry.value == current else None,
            )
            for entry in flatten_select_options(self.model.options)
        )
        return ModelCatalog(models=choices, current_model=current)


def _select(options: Sequence[SessionConfigOption], category: str) -> Any | None:
    found = list(selects(options))
    by_category = (o for o in found if getattr(o, "category", None) == category)
    by_id = (o for o in found if getattr(o, "id", None) == category)
    return next(by_category, None) or next(by_id, None)


def locate_model_options(options: Sequence[SessionConfigOption]) -> ACPModelOptions:
    """The model and effort selects of a catalog (by category, else by id)."""
    return ACPModelOptions(
        _select(options, MODEL_CATEGORY), _select(options, THOUGHT_LEVEL_CATEGORY)
    )


async def apply_model_selection(
    *,
    session_id: str,
    catalog: Callable[[], Sequence[SessionConfigOption]],
    selection: ModelSelection,
    locate: Callable[[Sequence[SessionConfigOption]], ACPModelOptions],
    set_option: SessionConfigSetter,
) -> None:
    """Set ``selection``'s model, then its effort; ``catalog()`` is read before each.

    A value the catalog does not offer raises ``ACPConfigError`` before anything is sent.
    """
    for setting in ModelSetting:
        value = selection.value_of(setting)
        if value is None:
            continue
        options = tuple(catalog())
        located = locate(options)
        option = located.option_for(setting)
        option_id = str(option.id) if option is not None else setting.value

        def refuse(message: str, value: str = value, option_id: str = option_id) -> ACPConfigError:
            return ACPConfigError(
                session_id=session_id, option_id=option_id, selected_value=value, message=message
            )

        try:
            check_model_selection(ModelSelection(**{setting.value: value}), located.model_catalog())
        except ModelSelectionError as exc:
            raise refuse(str(exc)) from exc
        if option is None:
            offered = listing(select_ids(options))
            raise refuse(f"the session offers no {setting.value} option; offered: {offered}")
        await apply_session_config_selections(
            session_id=session_id,
            config_options=options,
            selections={option_id: value},
            set_option=set_option,
        )
