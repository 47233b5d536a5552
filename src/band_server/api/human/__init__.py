"""The human surface: ``/api/v1/me/...``, authenticated by a person's API key."""

from fastapi import APIRouter

from . import agents, chats, contacts, files, memories, messages, participants, peers, profile

router = APIRouter(tags=["human"])
for _module in (profile, agents, chats, messages, participants, files, contacts, memories, peers):
    router.include_router(_module.router)
