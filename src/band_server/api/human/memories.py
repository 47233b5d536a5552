"""Human surface: memories."""

from fastapi import APIRouter

router = APIRouter()
