"""Agent surface: contacts."""

from fastapi import APIRouter

router = APIRouter()
