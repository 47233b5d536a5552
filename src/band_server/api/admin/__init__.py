"""The admin surface: ``/api/v1/admin/...``, a person's key whose role is ``admin``.

What moves a whole deployment: its directory and every room read for ``band export``
(``directory``, ``rooms``), archive imports for ``band import`` (``imports``), and who may
invite people by email (``invitations``).
"""

from fastapi import APIRouter

from ...http.json_body import JsonRoute
from . import directory, imports, invitations, rooms

router = APIRouter(tags=["admin"], route_class=JsonRoute)
for _module in (directory, rooms, imports, invitations):
    router.include_router(_module.router)
