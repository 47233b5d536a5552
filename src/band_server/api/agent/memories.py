"""Agent surface: memories."""

from fastapi import APIRouter

router = APIRouter()
