"""``turn_effect``: what a finished tool call does to the turn's reply obligation."""

from band.runtime.tools.names import turn_effect

__all__ = ["turn_effect"]
