"""Human surface: agents."""

from fastapi import APIRouter

router = APIRouter()
