"""The production platform's URLs (what ``BandLink`` and ``Agent`` use when given none)."""

DEFAULT_WS_URL = "wss://app.band.ai/api/v1/socket/websocket"
DEFAULT_REST_URL = "https://app.band.ai"

__all__ = ["DEFAULT_REST_URL", "DEFAULT_WS_URL"]
