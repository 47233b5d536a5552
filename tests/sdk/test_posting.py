"""band.platform.posting: the platform's content rules, applied to posts through a REST client."""

from __future__ import annotations

import pytest

from band.client.rest import AsyncRestClient
from band.core.exceptions import MessagePostError, MessagePostKind, RoomExecutionStoppedError
from band.platform.errors import BandRestError
from band.platform.posting import (
    PostedMessage,
    classified_post_error,
    post_event,
    post_message,
    unconfirmed_recipients,
)
from band.testing import LocalPlatform
from band_protocol import MAX_EVENT_CHARS
from band_protocol.requests import (
    ChatEventRequest,
    ChatMessageRequest,
    ChatMessageRequestMentionsItem,
)


async def test_posts_follow_the_platforms_rules_end_to_end() -> None:
    async with LocalPlatform() as platform:
        alice = await platform.person("alice", "Alice")
        bob = await platform.person("bob", "Bob")
        echo = await platform.agent(alice, "Echo")
        room = await platform.room(alice, echo)
        rest = AsyncRestClient(base_url=platform.rest_url, api_key=echo.key)
        try:
            to_alice = [ChatMessageRequestMentionsItem(id=alice.id)]
            blank = ChatMessageRequest(content=" \n\t", mentions=to_alice)
            assert await post_message(rest=rest, room_id=room, request=blank) is None
            sent = await post_message(
                rest=rest, room_id=room, request=ChatMessageRequest(content="hi", mentions=to_alice)
            )
            assert [r.handle for r in sent.recipients] == [alice.handle]
            with pytest.raises(MessagePostError) as refused:
                await post_message(
                    rest=rest,
                    room_id=room,
                    request=ChatMessageRequest(
                        content="hi bob", mentions=[ChatMessageRequestMentionsItem(id=bob.id)]
                    ),
                )
            long = ChatEventRequest.model_construct(
                content="a" * (MAX_EVENT_CHARS + 500) + "THE END", message_type="thought"
            )
            await post_event(rest=rest, room_id=room, request=long)
        finally:
            await rest.aclose()
        shown = await platform.messages(alice, room)
    assert refused.value.kind is MessagePostKind.MENTION_NOT_IN_ROOM
    texts = [m["content"] for m in shown if m["message_type"] == "text"]
    assert len(texts) == 1 and texts[0].endswith(" hi")
    thought = next(m["content"] for m in shown if m["message_type"] == "thought")
    assert len(thought) == MAX_EVENT_CHARS and thought.endswith("THE END")


def test_a_stopped_rooms_refusal_is_its_own_error() -> None:
    stopped = BandRestError(403, "forbidden", "Agent execution is stopped in this room")
    assert isinstance(classified_post_error(stopped, "r1"), RoomExecutionStoppedError)
    other = BandRestError(403, "forbidden", "not your room")
    assert classified_post_error(other, "r1") is other


def test_a_recipient_without_a_handle_means_delivered_but_unconfirmed() -> None:
    answer = {"id": "m1", "recipients": [{"id": "u1", "handle": "alice"}, {"id": "u2"}]}
    problem = unconfirmed_recipients(answer)
    assert problem is not None and problem.kind is MessagePostKind.UNCONFIRMED_RECIPIENT
    assert "m1 was delivered; do not resend" in str(problem) and "id=u2" in str(problem)
    assert unconfirmed_recipients({"id": "m1", "recipients": [{"id": "u1", "handle": "a"}]}) is None
    assert PostedMessage.model_validate(answer).recipients[1].handle is None
