"""``LaunchError``: the one way a launch fails, tagged with the phase that failed."""

from __future__ import annotations

__all__ = ["LaunchError"]


class LaunchError(ValueError):
    """A launch failure: ``[phase] message``. Messages never carry secret values."""

    def __init__(self, phase: str, message: str) -> None:
        self.phase = phase
        super().__init__(f"[{phase}] {message}")
