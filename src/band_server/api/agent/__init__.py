"""The agent surface: ``/api/v1/agent/...``, authenticated by an agent's API key."""

from fastapi import APIRouter

from . import chats, contacts, files, me, memories, messages, participants, peers, tasks

router = APIRouter(tags=["agent"])
for _module in (me, chats, messages, participants, files, tasks, contacts, memories, peers):
    router.include_router(_module.router)
