"""Agent surface: participants."""

from fastapi import APIRouter

router = APIRouter()
