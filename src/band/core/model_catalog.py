"""A harness's advertised models and efforts, and the check of a configured selection.

``check_model_selection`` raises ``ModelSelectionError`` when a configured model is not
advertised, or a reasoning effort is not one the (selected, else current) model offers. A
catalog of ``None`` (the harness advertises nothing) and a model whose efforts are unknown
(``efforts is None``) are not checked.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from band.core.exceptions import BandConfigError
from band.core.validation import listing

__all__ = [
    "ModelCatalog",
    "ModelChoice",
    "ModelSelection",
    "ModelSelectionError",
    "ModelSetting",
    "check_model_selection",
]


class ModelSetting(StrEnum):
    """A selectable setting, named as its ``ModelSelection`` field (applied in this order)."""

    MODEL = "model"
    REASONING_EFFORT = "reasoning_effort"


class ModelSelection(BaseModel):
    """The model and effort an adapter is configured with (``None``: the harness decides)."""

    model_config = ConfigDict(frozen=True)

    model: str | None = None
    reasoning_effort: str | None = None

    def value_of(self, setting: ModelSetting) -> str | None:
        value: str | None = getattr(self, setting.value)
        return value

    @property
    def is_empty(self) -> bool:
        return self.model is None and self.reasoning_effort is None


class ModelChoice(BaseModel):
    """One advertised model; ``efforts`` is ``None`` when unknown, ``()`` when it has none."""

    model_config = ConfigDict(frozen=True)

    id: str
    label: str | None = None
    efforts: tuple[str, ...] | None = None
    default_effort: str | None = None


class ModelCatalog(BaseModel):
    """The models a harness advertises, and the one it uses now."""

    model_config = ConfigDict(frozen=True)

    models: tuple[ModelChoice, ...]
    current_model: str | None = None

    @property
    def model_ids(self) -> tuple[str, ...]:
        return tuple(choice.id for choice in self.models)

    def choice(self, model_id: str) -> ModelChoice | None:
        return next((c for c in self.models if c.id == model_id), None)


class ModelSelectionError(BandConfigError):
    """A configured model or effort the harness does not advertise."""

    def __init__(
        self, message: str, *, setting: ModelSetting, value: str, advertised: tuple[str, ...]
    ) -> None:
        super().__init__(message)
        self.setting = setting
        self.value = value
        self.advertised = advertised


def check_model_selection(selection: ModelSelection, catalog: ModelCatalog | None) -> None:
    """Raise ``ModelSelectionError`` when ``catalog`` does not offer ``selection``."""
    if catalog is None:
        return
    if selection.model is not None and catalog.choice(selection.model) is None:
        raise ModelSelectionError(
            f'model "{selection.model}" is not advertised; available: {listing(catalog.model_ids)}',
            setting=ModelSetting.MODEL,
            value=selection.model,
            advertised=catalog.model_ids,
        )
    effort = selection.reasoning_effort
    model_id = selection.model or catalog.current_model
    choice = catalog.choice(model_id) if model_id is not None else None
    if effort is None or choice is None or choice.efforts is None or effort in choice.efforts:
        return
    message = (
        f'reasoning effort "{effort}" is not advertised for model "{model_id}"; '
        f"available: {listing(choice.efforts)}"
        if choice.efforts
        else f'model "{model_id}" offers no reasoning effort'
    )
    raise ModelSelectionError(
        message,
        setting=ModelSetting.REASONING_EFFORT,
        value=effort,
        advertised=choice.efforts,
    )
