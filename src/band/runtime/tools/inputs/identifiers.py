"""Identifiers that travel in a REST path: checked so a value can never change the route."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator

from band.core.task_types import task_ref

__all__ = ["ResourceId", "TaskReference", "validate_resource_id", "validate_task_reference"]

ID_BODY = re.compile(r"[A-Za-z0-9_-]+")
ID_ERROR = "ID must contain only ASCII letters, digits, underscores or hyphens"


def validate_resource_id(value: str) -> str:
    """``value`` unchanged when it is letters, digits, ``_`` and ``-`` only; else ValueError."""
    if ID_BODY.fullmatch(value) is None:
        raise ValueError(ID_ERROR)
    return value


def validate_task_reference(value: str) -> str:
    """A task UUID or board number (``#3`` allowed), unchanged; else ValueError."""
    validate_resource_id(task_ref(value))
    return value


ResourceId = Annotated[str, AfterValidator(validate_resource_id)]
TaskReference = Annotated[str, AfterValidator(validate_task_reference)]
