"""Agent surface: chats."""

from fastapi import APIRouter

router = APIRouter()
