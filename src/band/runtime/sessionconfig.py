"""``SessionConfig``: per-room execution tuning, from arguments or the environment."""

from band.runtime.config import SessionConfig

__all__ = ["SessionConfig"]
