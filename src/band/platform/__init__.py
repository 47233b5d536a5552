"""The link to the platform: the REST client (and the realtime socket client)."""

from .errors import BandRestError
from .rest import BandRestClient, MarkResult

__all__ = ["BandRestClient", "BandRestError", "MarkResult"]
