"""Agent surface: messages."""

from fastapi import APIRouter

router = APIRouter()
