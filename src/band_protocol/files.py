"""Room files: the attachment descriptor messages carry and uploads answer."""

from __future__ import annotations

from ._base import WireModel

MAX_ATTACHMENTS = 10


class Attachment(WireModel):
    """A file stored against a room and named by a message (``sha256`` of the bytes)."""

    id: str
    name: str
    content_type: str
    bytes: int
    sha256: str
    has_thumb: bool = False
    expires_at: str | None = None
