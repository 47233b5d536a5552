"""``OperatorConsole``: Copilot's ``ask_user`` questions answered at the agent's terminal.

How it works: docs/internals/sdk.md, "Copilot: questions at the terminal".

Pass ``OperatorConsole().ask`` as ``CopilotSDKAdapter(ask_user=...)``. Agents in one process
share one console: it owns stdin and the root logger. Nothing here imports the SDK.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import sys
import threading
from typing import IO, Any

__all__ = ["NO_ANSWER_TEXT", "UNAVAILABLE_TEXT", "LogGate", "OperatorConsole"]

logger = logging.getLogger(__name__)

NO_ANSWER_TEXT = "(No answer from the operator in time; carry on without one.)"
UNAVAILABLE_TEXT = "(This agent has no operator at a terminal; carry on without one.)"


class LogGate(logging.Handler):
    """A log handler in front of another that can hold records back.

    While paused, records are kept; on the last ``resume`` they are handed to the wrapped
    handler in order (pauses nest, so a gate shared by consoles opens when all are done).
    The gate takes the wrapped handler's level when it wraps it and writes through that
    handler's own formatter.
    """

    def __init__(self, target: logging.Handler) -> None:
        super().__init__(target.level)
        self.target = target
        self._held: list[logging.LogRecord] = []
        self._pauses = 0

    def emit(self, record: logging.LogRecord) -> None:
        if self._pauses:  # ``handle`` holds this handler's lock here
            self._held.append(record)
        else:
            self.target.handle(record)

    def flush(self) -> None:
        self.target.flush()

    def close(self) -> None:
        self.target.close()
        super().close()

    def pause(self) -> None:
        self.acquire()
        try:
            self._pauses += 1
        finally:
            self.release()

    def resume(self) -> None:
        """One pause less; at none, the held records are written (under the lock, so
        records from other threads queue behind them)."""
        self.acquire()
        try:
            self._pauses = max(0, self._pauses - 1)
            if not self._pauses:
                held, self._held = self._held, []
                for record in held:
                    self.target.handle(record)
        finally:
            self.release()


class OperatorConsole:
    """The terminal as the answerer of Copilot's questions; ``ask`` is the handler.

    ``answer_timeout_s``: how long a question waits for the operator (below the adapter's
    ``turn_timeout_s``, whose default it stays under); ``input_stream``: where answers are
    read (stdin by default).
    """

    def __init__(
        self, *, answer_timeout_s: float = 90.0, input_stream: IO[str] | None = None
    ) -> None:
        self.answer_timeout_s = answer_timeout_s
        self._input = input_stream if input_stream is not None else sys.stdin
        self._turn = asyncio.Lock()
        self._gates: list[LogGate] = []
        # A thread queue: the reader thread outlives any one event loop.
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader: threading.Thread | None = None
        self._closed = False

    def gate_logging(self) -> None:
        """Put a :class:`LogGate` in front of every root-logger handler (done on the first
        question by itself). Gates already there are used as they are, so consoles sharing
        a process share them."""
        root = logging.getLogger()
        gates = [h for h in root.handlers if isinstance(h, LogGate)]
        if not gates:
            gates = [LogGate(handler) for handler in root.handlers]
            root.handlers[:] = gates
        self._gates = gates

    async def ask(self, request: dict[str, Any], context: dict[str, str]) -> dict[str, Any]:
        """Show the question, read the operator's answer (``UserInputResponse``)."""
        self._start_reader()
        if not self._gates:
            self.gate_logging()
        async with self._turn:
            for gate in self._gates:
                gate.pause()
            try:
                return await self._question(request, context)
            finally:
                for gate in self._gates:
                    gate.resume()

    async def _question(self, request: dict[str, Any], context: dict[str, str]) -> dict[str, Any]:
        self._drop_stale_lines()
        deadline = asyncio.get_running_loop().time() + self.answer_timeout_s
        _write(_render(request, context))
        while True:
            line = await self._next_line(deadline)
            if line is None:
                _write("(no answer: the agent goes on without one)\n")
                text = UNAVAILABLE_TEXT if self._closed else NO_ANSWER_TEXT
                return {"answer": text, "wasFreeform": True}
            answer = _match(line, request)
            if answer is not None:
                return answer
            _write(f"Please answer [{_hint(request)}]: ")

    def _start_reader(self) -> None:
        if self._reader is not None or self._closed:
            return
        source, lines = self._input, self._lines

        def read() -> None:
            for line in source:
                lines.put(line)
            lines.put(None)  # the end of input

        # A daemon: a thread blocked on the terminal must not keep the process alive.
        self._reader = threading.Thread(target=read, name="operator-console", daemon=True)
        self._reader.start()

    async def _next_line(self, deadline: float) -> str | None:
        """The next line typed, or None at the deadline or the end of input."""
        if self._closed:
            return None
        left = deadline - asyncio.get_running_loop().time()
        try:
            if left <= 0:
                line = self._lines.get_nowait()  # an answer that is already there counts
            else:
                # The timeout bounds the worker thread itself, so none stays blocked.
                line = await asyncio.to_thread(self._lines.get, timeout=left)
        except queue.Empty:
            return None
        return self._line(line)

    def _line(self, line: str | None) -> str | None:
        if line is None:
            self._closed = True
            return None
        return line.strip()

    def _drop_stale_lines(self) -> None:
        """Forget lines typed while no question was open (an end of input still counts)."""
        dropped = 0
        while True:
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                break
            dropped += self._line(line) is not None
        if dropped:
            _write(f"({dropped} line(s) typed between questions were ignored)\n")


def _choices(request: dict[str, Any]) -> list[str]:
    return [str(c) for c in request.get("choices") or []]


def _match(line: str, request: dict[str, Any]) -> dict[str, Any] | None:
    """The response a typed line gives, or None to ask again.

    A number picks that choice (a number out of range asks again, unless it is a choice's
    own text); a choice's text (any case) picks it; other text is a free answer when the
    request allows one (or has no choices); an empty line asks again.
    """
    choices = _choices(request)
    same = [c for c in choices if c.casefold() == line.casefold()]
    if choices and line.isdecimal():
        number = int(line)
        if 1 <= number <= len(choices):
            return {"answer": choices[number - 1], "wasFreeform": False}
        return {"answer": same[0], "wasFreeform": False} if same else None
    if same:
        return {"answer": same[0], "wasFreeform": False}
    if line and (request.get("allowFreeform", True) or not choices):
        return {"answer": line, "wasFreeform": True}
    return None


def _hint(request: dict[str, Any]) -> str:
    """The answers accepted: text, numbers, or either."""
    choices = _choices(request)
    if not choices:
        return "text"
    numbers = f"1-{len(choices)}"
    return f"{numbers} or text" if request.get("allowFreeform", True) else numbers


def _render(request: dict[str, Any], context: dict[str, str]) -> str:
    numbered = [f"    {n}) {c}" for n, c in enumerate(_choices(request), 1)]
    lines = [
        "",
        "=" * 60,
        f"Copilot has a question (session {context.get('session_id', 'unknown')}):",
        f"  {request.get('question', '')}",
        *numbered,
        f"Answer [{_hint(request)}]: ",
    ]
    return "\n".join(lines)


def _write(text: str) -> None:
    """To stdout (the console itself); a stdout that is gone is only logged, so the
    question still ends by its deadline or the end of input."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except (OSError, ValueError) as exc:  # ValueError: stdout closed
        logger.warning("The operator console cannot write to stdout: %s", exc)
