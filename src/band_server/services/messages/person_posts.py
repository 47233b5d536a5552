"""A person posting in a room: the web app, the human API and ``band send`` share this."""

from __future__ import annotations

from collections.abc import Sequence

from band_protocol import MessageSentResponse
from band_protocol.messages import MessageCreateFields
from band_server.services.deliveries.push_claims import PushClaims
from band_server.services.identity.principals import Principal
from band_server.services.messages.mentions import mentions_in_text
from band_server.services.messages.posts import post_message
from band_server.services.rooms.membership import Member, members
from band_server.services.unit import UnitOfWork
from band_server.store.models import Room


def person_fields(
    fields: MessageCreateFields, roster: Sequence[Member], person_id: str
) -> MessageCreateFields:
    """A person's post as :func:`~band_server.services.messages.posts.post_message` takes it:
    explicit mentions are optional, and each ``@handle`` in the text the mentions do not
    name already is added to them."""
    named = mentions_in_text(fields.content, roster, person_id)
    if named:
        known = {m.id for m in fields.mentions if m.id} | {
            (m.handle or "").removeprefix("@").lower() for m in fields.mentions
        }
        extra = [
            ref for ref in named if ref.id not in known and (ref.handle or "").lower() not in known
        ]
        if extra:
            fields = fields.model_copy(update={"mentions": [*fields.mentions, *extra]})
    return fields


async def post_as_person(
    uow: UnitOfWork,
    person: Principal,
    room: Room,
    fields: MessageCreateFields,
    *,
    roster: Sequence[Member] | None = None,
    claims: PushClaims | None = None,
) -> MessageSentResponse:
    """Post a text message; explicit mentions are optional and ``@handle`` text counts too.
    The answer is the wire model (the web app, ``band send``); the human API calls
    ``post_message`` with :func:`person_fields` itself, keeping its answer's data."""
    if roster is None:
        roster = await members(uow.session, room.id)
    fields = person_fields(fields, roster, person.id)
    sent = await post_message(uow, person, room, fields, roster=roster, claims=claims)
    return MessageSentResponse.model_validate(sent)
