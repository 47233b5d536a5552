"""``GET /metrics``: the node's Prometheus registry (``observability.Metrics``), scraped."""

from __future__ import annotations

from prometheus_client import CONTENT_TYPE_LATEST
from starlette.requests import Request
from starlette.responses import Response

from ..observability import Scraped


async def metrics(request: Request) -> Response:
    """The node's metrics in the Prometheus text format."""
    platform: Scraped = request.app.state.platform
    return Response(await platform.metrics.render(platform), media_type=CONTENT_TYPE_LATEST)
