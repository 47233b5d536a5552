"""The human surface: ``/api/v1/me/...``, authenticated by a person's API key."""

from fastapi import APIRouter

router = APIRouter(tags=["human"])
