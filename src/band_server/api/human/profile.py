"""Human surface: profile."""

from fastapi import APIRouter

router = APIRouter()
