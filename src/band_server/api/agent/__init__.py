"""The agent surface: ``/api/v1/agent/...``, authenticated by an agent's API key."""

from fastapi import APIRouter

router = APIRouter(tags=["agent"])
