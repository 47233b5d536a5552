"""The socket endpoint ``/api/v1/socket/websocket`` (Phoenix Channels v2)."""

from fastapi import APIRouter

router = APIRouter(tags=["socket"])
