"""``AgentRouter``: which peer an editor prompt is for (a slash command, or the session mode)."""

from __future__ import annotations

__all__ = ["AgentRouter"]


class AgentRouter:
    """``/codex fix it`` goes to the peer ``slash_commands["codex"]`` names (the text loses
    the command); otherwise the session's mode may name one (``mode_to_peer``); otherwise
    every peer in the room is asked."""

    def __init__(
        self,
        mode_to_peer: dict[str, str] | None = None,
        slash_commands: dict[str, str] | None = None,
    ) -> None:
        self._mode_to_peer = dict(mode_to_peer or {})
        self._slash_commands = {k.lower(): v for k, v in (slash_commands or {}).items()}

    def resolve(self, text: str, current_mode: str | None = None) -> tuple[str, str | None]:
        """``(text to send, peer name or handle, or None for every peer)``."""
        if text.startswith("/"):
            command, _, rest = text[1:].partition(" ")
            peer = self._slash_commands.get(command.lower())
            if peer is not None:
                return rest.strip(), peer
        if current_mode is not None and current_mode in self._mode_to_peer:
            return text, self._mode_to_peer[current_mode]
        return text, None
