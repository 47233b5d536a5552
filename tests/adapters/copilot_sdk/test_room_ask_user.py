"""The answers Copilot's ``ask_user`` gets when the question goes to the room (band-sdk names)."""

from __future__ import annotations

from band.integrations.copilot_sdk.room_ask_user import (
    QUESTION_DELIVERED_ANSWER,
    delivery_failed_answer,
    freeform_answer,
    question_delivered_answer,
    render_room_question,
    room_inactive_answer,
)


def test_every_answer_is_a_freeform_user_input_response() -> None:
    assert freeform_answer("yes") == {"answer": "yes", "wasFreeform": True}
    for reply in (
        question_delivered_answer("Deploy?"),
        delivery_failed_answer(RuntimeError("boom")),
        room_inactive_answer(),
    ):
        assert set(reply) == {"answer", "wasFreeform"} and reply["wasFreeform"] is True


def test_a_delivered_question_is_echoed_and_the_turn_told_to_end() -> None:
    rendered = render_room_question({"question": "Deploy?", "choices": ["yes", "no"]})
    text = question_delivered_answer(rendered)["answer"]
    assert f"---\n{rendered}\n---" in text
    assert "End your turn now" in text
    assert text == QUESTION_DELIVERED_ANSWER.format(rendered=rendered)  # band-sdk's template


def test_a_failed_delivery_names_the_error_and_an_inactive_room_says_go_on() -> None:
    assert "connection reset" in delivery_failed_answer(OSError("connection reset"))["answer"]
    assert "go on without" in room_inactive_answer()["answer"]
