"""The agent surface: ``/api/v1/agent/...``, authenticated by an agent's API key."""

from fastapi import APIRouter

from . import (
    chats,
    contacts,
    delegation,
    files,
    me,
    memories,
    messages,
    participants,
    peers,
    tasks,
)

router = APIRouter(tags=["agent"])
_MODULES = (me, chats, messages, participants, files, tasks, contacts, memories, peers)
for _module in (*_MODULES, delegation):
    router.include_router(_module.router)
