"""The web app's router: every page and action, each module one part of the app."""

from __future__ import annotations

from fastapi import APIRouter

from . import (
    account_routes,
    agent_routes,
    auth_routes,
    board_routes,
    contact_routes,
    file_routes,
    invite_routes,
    notify_routes,
    oidc_routes,
    password_routes,
    people_routes,
    room_routes,
    search_routes,
    turn_routes,
)

router = APIRouter(include_in_schema=False)
_MODULES = (
    auth_routes,
    password_routes,
    oidc_routes,
    account_routes,
    invite_routes,
    agent_routes,
    room_routes,
    file_routes,
    board_routes,
    contact_routes,
    people_routes,
    search_routes,
    notify_routes,
    turn_routes,
)
for _module in _MODULES:
    router.include_router(_module.router)
