"""What the room tools call: the REST client itself.

``ToolBackend`` names ``BandRestClient`` for the tools; ``band.testing.FakePlatform`` is one
too, over an in-memory platform, so the tools and their fake send the same requests.
"""

from __future__ import annotations

from band.platform._social import Page
from band.platform.rest import BandRestClient

__all__ = ["Page", "ToolBackend"]

ToolBackend = BandRestClient
