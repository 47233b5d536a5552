"""The human surface: ``/api/v1/me/...``, authenticated by a person's API key."""

from fastapi import APIRouter

from . import (
    agents,
    bulk_deletions,
    chats,
    contacts,
    delegation,
    files,
    memories,
    messages,
    participants,
    peers,
    profile,
    search,
    tasks,
)

router = APIRouter(tags=["human"])
_MODULES = (bulk_deletions, profile, agents, chats, messages, participants, files, tasks)
for _module in (*_MODULES, contacts, memories, peers, delegation, search):
    router.include_router(_module.router)
