"""Agent surface: peers."""

from fastapi import APIRouter

router = APIRouter()
