"""band.integrations.copilot_sdk.operator_console: Copilot's ``ask_user`` answered at the
terminal: choices by number or text, free text when allowed, deadlines, the end of input,
lines typed between questions, questions taking turns, and log lines held back meanwhile."""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import os
from collections.abc import Iterator

import pytest

from band.integrations.copilot_sdk import (
    NO_ANSWER_TEXT,
    UNAVAILABLE_TEXT,
    LogGate,
    OperatorConsole,
)

CHOICES = {"question": "Deploy?", "choices": ["yes", "no"]}


class Terminal(io.TextIOBase):
    """An input stream the test types into (a pipe), closable for the end of input."""

    def __init__(self) -> None:
        self.read_fd, self.write_fd = os.pipe()
        self.reader = os.fdopen(self.read_fd, "r")

    def type(self, line: str) -> None:
        os.write(self.write_fd, f"{line}\n".encode())

    def close_input(self) -> None:
        os.close(self.write_fd)

    def __iter__(self) -> Iterator[str]:
        return iter(self.reader)


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    term = Terminal()
    yield term
    with contextlib.suppress(OSError):  # closed by the test already
        term.close_input()


async def answer(console: OperatorConsole, request: dict, *lines: str, term: Terminal) -> dict:
    asking = asyncio.create_task(console.ask(request, {"session_id": "s-1"}))
    await asyncio.sleep(0.05)
    for line in lines:
        term.type(line)
        await asyncio.sleep(0.05)
    return await asyncio.wait_for(asking, 5)


async def test_a_choice_by_number_or_text(
    terminal: Terminal, capsys: pytest.CaptureFixture[str]
) -> None:
    console = OperatorConsole(input_stream=terminal)
    assert await answer(console, CHOICES, "2", term=terminal) == {
        "answer": "no",
        "wasFreeform": False,
    }
    assert await answer(console, CHOICES, "YES", term=terminal) == {
        "answer": "yes",
        "wasFreeform": False,
    }
    shown = capsys.readouterr().out
    assert "Deploy?" in shown and "1) yes" in shown and "session s-1" in shown


async def test_free_text_only_where_allowed(
    terminal: Terminal, capsys: pytest.CaptureFixture[str]
) -> None:
    console = OperatorConsole(input_stream=terminal)
    strict = {**CHOICES, "allowFreeform": False}
    reply = await answer(console, strict, "maybe", "", "7", "1", term=terminal)
    assert reply == {"answer": "yes", "wasFreeform": False}
    assert capsys.readouterr().out.count("Please answer [1-2]") == 3
    loose = await answer(console, CHOICES, "after lunch", term=terminal)
    assert loose == {"answer": "after lunch", "wasFreeform": True}
    text = await answer(console, {"question": "Name?"}, "Ada", term=terminal)
    assert text == {"answer": "Ada", "wasFreeform": True}


async def test_no_answer_in_time_and_no_terminal_at_all(terminal: Terminal) -> None:
    console = OperatorConsole(answer_timeout_s=0.1, input_stream=terminal)
    late = await answer(console, CHOICES, term=terminal)
    assert late == {"answer": NO_ANSWER_TEXT, "wasFreeform": True}
    terminal.type("1")  # typed after the deadline, between questions: dropped
    await asyncio.sleep(0.05)
    terminal.close_input()
    gone = await answer(console, CHOICES, term=terminal)
    assert gone == {"answer": UNAVAILABLE_TEXT, "wasFreeform": True}
    again = await asyncio.wait_for(console.ask(CHOICES, {}), 1)  # at once from now on
    assert again["answer"] == UNAVAILABLE_TEXT


async def test_questions_take_turns_and_logs_wait_for_the_answer(terminal: Terminal) -> None:
    root = logging.getLogger()
    saved_handlers, saved_level = root.handlers[:], root.level
    written = io.StringIO()
    root.handlers[:] = [logging.StreamHandler(written)]
    root.setLevel(logging.INFO)
    try:
        console = OperatorConsole(input_stream=terminal)
        first = asyncio.create_task(console.ask(CHOICES, {}))
        second = asyncio.create_task(console.ask({"question": "Why?"}, {}))
        await asyncio.sleep(0.1)
        assert all(isinstance(h, LogGate) for h in root.handlers)
        logging.getLogger("band.test").info("held back")
        assert "held back" not in written.getvalue()
        terminal.type("1")
        assert (await asyncio.wait_for(first, 5))["answer"] == "yes"
        terminal.type("because")
        assert (await asyncio.wait_for(second, 5))["answer"] == "because"
        assert "held back" in written.getvalue()
        OperatorConsole(input_stream=terminal).gate_logging()  # reuses the gates
        assert len(root.handlers) == 1
    finally:
        root.handlers[:] = saved_handlers
        root.setLevel(saved_level)


def test_a_gate_holds_records_until_its_last_pause_ends() -> None:
    written = io.StringIO()
    target = logging.StreamHandler(written)
    gate = LogGate(target)
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "kept", None, None)
    gate.pause()
    gate.pause()
    gate.handle(record)
    gate.resume()
    assert written.getvalue() == ""
    gate.resume()
    assert written.getvalue() == "kept\n"
    gate.resume()  # more resumes than pauses change nothing
    gate.handle(record)
    assert written.getvalue() == "kept\nkept\n"
