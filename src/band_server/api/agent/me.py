"""Agent surface: me."""

from fastapi import APIRouter

router = APIRouter()
