"""Human surface: participants."""

from fastapi import APIRouter

router = APIRouter()
