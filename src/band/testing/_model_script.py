"""What a fake model answers: scripted replies, recorded requests and the default policy.

This module knows nothing about HTTP or wire formats. The wire modules turn each incoming
request into a :class:`ModelRequest` (one neutral view of OpenAI and Anthropic requests)
and render the :class:`Reply` or :class:`Failure` chosen here in their own format.
"""

from __future__ import annotations

import re
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from ._turns import ScriptedTurn, TextTurn, ToolTurn

Api: TypeAlias = Literal["openai", "responses", "anthropic", "gemini"]
Role: TypeAlias = Literal["system", "user", "assistant", "tool"]

SEND_MESSAGE_TOOL = "band_send_message"
NO_REPLY_TOOL = "band_no_reply"
OFFLINE_MODEL_LABEL = "offline scripted model"


@dataclass(frozen=True)
class ChatEntry:
    """One conversation item, reduced to a role and its text (tool calls are not kept)."""

    role: Role
    text: str


@dataclass(frozen=True)
class ModelRequest:
    """A request the fake received, in a form shared by every wire format.

    ``body`` is the JSON body as sent; for Gemini, whose model and streaming choice are in
    the path, ``model`` and ``stream`` are added to it.
    """

    api: Api
    path: str
    headers: Mapping[str, str]
    body: dict[str, Any]
    entries: tuple[ChatEntry, ...]
    tool_names: tuple[str, ...]

    @property
    def model(self) -> str:
        """The model name the client asked for."""
        return str(self.body.get("model", ""))

    @property
    def stream(self) -> bool:
        """Whether the client asked for a streamed (SSE) answer."""
        return bool(self.body.get("stream", False))

    @property
    def system(self) -> str:
        """All system text of the request, joined by blank lines."""
        return "\n\n".join(e.text for e in self.entries if e.role == "system")

    @property
    def last(self) -> ChatEntry | None:
        """The last non-system entry, or None for an empty conversation."""
        rest = [e for e in self.entries if e.role != "system"]
        return rest[-1] if rest else None

    def texts(self, role: Role) -> list[str]:
        """The texts of every entry with ``role``, oldest first."""
        return [e.text for e in self.entries if e.role == role]

    def answering_tool(self) -> ChatEntry | None:
        """The tool result the model answers now: the last ``tool`` entry, when only nudges
        follow it (user text without a new ``[Name]:`` speaker, as Claude Code's reminders
        and Copilot's "Please continue", and empty assistant turns); None when the model
        answers a message."""
        for entry in reversed([e for e in self.entries if e.role != "system"]):
            if entry.role == "tool":
                return entry
            nudge = entry.role == "user" and not _speaks(entry.text)
            if not nudge and not (entry.role == "assistant" and not entry.text.strip()):
                return None
        return None

    def offered(self, name: str) -> str | None:
        """The offered tool that is ``name``: by that name, or under an MCP server's prefix
        (``mcp__band__band_send_message`` from Claude Code, ``band_band_send_message`` from
        OpenCode, ``band-band_send_message`` from Copilot); None when it is not offered."""
        if name in self.tool_names:
            return name
        endings = (f"__{name}", f"_{name}", f"-{name}")
        return next((t for t in self.tool_names if t.endswith(endings)), None)


@dataclass(frozen=True)
class ToolCall:
    """A tool call the model makes. ``arguments`` may be a raw (even malformed) JSON string."""

    name: str
    arguments: Mapping[str, Any] | str = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True)
class Reply:
    """A successful model answer: text, tool calls, or both. ``reasoning`` is a reasoning
    summary the model shows before them (the Responses wire; Chat Completions as
    ``reasoning_content``, as compatible servers send it)."""

    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    reasoning: str | None = None
    delay: float = 0.0  # seconds the endpoint waits before answering


@dataclass(frozen=True)
class Failure:
    """An HTTP error answer. ``type`` defaults to the provider's name for the status."""

    status: int = 500
    message: str = "scripted failure"
    type: str | None = None
    delay: float = 0.0


Outcome: TypeAlias = Reply | Failure
Policy: TypeAlias = Callable[[ModelRequest], Outcome]


class FakeModel:
    """A scripted model behind the fake endpoints.

    Each request consumes the oldest queued outcome; with nothing queued the ``policy``
    answers (by default :func:`default_policy`), or, with ``strict=True``, the request gets
    a 500 so a test notices an unexpected extra call. Every request is recorded in
    :attr:`requests`. Safe to use from a test thread while a server thread answers.
    """

    def __init__(self, policy: Policy | None = None, *, strict: bool = False) -> None:
        self.policy: Policy = policy or default_policy
        self.strict = strict
        self.requests: list[ModelRequest] = []
        self._queue: deque[Outcome] = deque()
        self._lock = threading.Lock()
        self._counter = 0

    # -- scripting -------------------------------------------------------------------------

    def queue(self, *outcomes: Outcome) -> FakeModel:
        """Queue outcomes, answered in order by the next requests."""
        with self._lock:
            self._queue.extend(outcomes)
        return self

    def reply(self, text: str) -> FakeModel:
        """Queue a plain text answer."""
        return self.queue(Reply(text=text))

    def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | str | None = None,
        *,
        text: str | None = None,
        id: str | None = None,
    ) -> FakeModel:
        """Queue an answer that calls one tool (optionally with some text before it)."""
        call = ToolCall(name, {} if arguments is None else arguments, id)
        return self.queue(Reply(text=text, tool_calls=(call,)))

    def call_tools(self, *calls: ToolCall, text: str | None = None) -> FakeModel:
        """Queue an answer that calls several tools at once."""
        return self.queue(Reply(text=text, tool_calls=calls))

    def script(self, *turns: ScriptedTurn) -> FakeModel:
        """Queue scripted turns: a ``ToolTurn`` calls a tool, a ``TextTurn`` answers, an
        ``ErrorTurn`` fails the call (HTTP 500 carrying the error's text)."""
        for turn in turns:
            if isinstance(turn, ToolTurn):
                self.call_tool(turn.name, dict(turn.args))
            elif isinstance(turn, TextTurn):
                self.reply(turn.text)
            else:
                self.fail(500, str(turn.error) or type(turn.error).__name__)
        return self

    def fail(
        self, status: int = 500, message: str = "scripted failure", type: str | None = None
    ) -> FakeModel:
        """Queue an HTTP error. Real clients retry 429/5xx unless built with max_retries=0."""
        return self.queue(Failure(status, message, type))

    # -- inspection --------------------------------------------------------------------------

    @property
    def pending(self) -> int:
        """How many queued outcomes are still unanswered."""
        with self._lock:
            return len(self._queue)

    @property
    def last_request(self) -> ModelRequest:
        """The most recent request; AssertionError when there was none."""
        with self._lock:
            if not self.requests:
                raise AssertionError("the fake model received no request")
            return self.requests[-1]

    def reset(self) -> None:
        """Forget queued outcomes and recorded requests."""
        with self._lock:
            self._queue.clear()
            self.requests.clear()

    # -- answering (used by the wire layer) ------------------------------------------------

    def answer(self, request: ModelRequest) -> Outcome:
        """Record ``request`` and choose its outcome."""
        with self._lock:
            self.requests.append(request)
            queued = self._queue.popleft() if self._queue else None
        if queued is not None:
            return queued
        if self.strict:
            return Failure(500, "FakeModel: no scripted reply left for this request")
        return self.policy(request)

    def next_id(self, prefix: str) -> str:
        """A fresh id such as ``call_fake3`` (unique within this fake)."""
        with self._lock:
            self._counter += 1
            return f"{prefix}{self._counter}"


# -- the default policy ----------------------------------------------------------------------

_SPEAKER = re.compile(r"^\[([^\]\n]+)\]:\s?(.*)$", re.DOTALL)
# Some frameworks wrap the message ("Current Task: [Alice]: hi") or put updates first
# ("[System]: ...\n[Alice]: hi"): the last speaker tag inside the text then counts.
_SPEAKER_TAG = re.compile(r"(?:^|(?<=\s))\[([^\]\n]+)\]:\s?")
_IDENTITY = re.compile(r"You are ([^,.\n]+)")
# A roster line as the SDK renders participants: "- @<handle> — <name> (<type>)".
_ROSTER = re.compile(r"^- @(\S+) — (.+?) \((\w+)\)", re.MULTILINE)
_MENTION = re.compile(r"@\S+\s*")


@dataclass(frozen=True)
class _Participant:
    handle: str
    name: str
    type: str


def _roster(entries: Iterable[ChatEntry]) -> dict[str, _Participant]:
    """Participants named in roster updates the conversation carried, keyed by name."""
    found: dict[str, _Participant] = {}
    for entry in entries:
        for handle, name, kind in _ROSTER.findall(entry.text):
            found[name] = _Participant(handle, name, kind)
    return found


def _speaks(text: str) -> bool:
    """Whether ``text`` holds a ``[Name]:`` line of someone other than [System]."""
    return any(t.group(1) != "System" for t in _SPEAKER_TAG.finditer(text.strip()))


def _last_speech(request: ModelRequest) -> tuple[str, str] | None:
    """(speaker, content) of the latest ``[Name]: content`` user message, skipping [System]."""
    for text in reversed(request.texts("user")):
        match = _SPEAKER.match(text.strip())
        if match and match.group(1) != "System":
            return match.group(1), match.group(2).strip()
        tags = [t for t in _SPEAKER_TAG.finditer(text.strip()) if t.group(1) != "System"]
        if tags:
            return tags[-1].group(1), text.strip()[tags[-1].end() :].strip()
    return None


def default_policy(request: ModelRequest) -> Outcome:
    """Answer like a polite, deterministic agent that follows Band's rules.

    * After a tool result: an empty final text, or, when the tool reported an error, the
      reply itself as text (so an adapter that relays final text still reaches the room).
    * A ``[Name]: content`` message with ``band_send_message`` offered: a call to it that
      mentions the speaker (by handle when a roster update named one). When the speaker is
      another agent and ``band_no_reply`` is offered, decline instead, so two scripted
      agents never talk to each other forever.
    * Otherwise: a plain text answer.

    A tool that requires ``chat_id`` (Band's tools on a shared MCP server) gets the id the
    conversation names (``chat_id: <id>`` or ``chat_id <id>``).
    """
    speech = _last_speech(request)
    reply_text = _reply_text(request, speech)
    last = request.answering_tool()
    if last is not None:
        failed = last.text.lower().lstrip('"').startswith("error")
        return Reply(text=reply_text if failed else "")
    send = request.offered(SEND_MESSAGE_TOOL)
    if speech is None or send is None:
        return Reply(text=reply_text)
    speaker = _roster(request.entries).get(speech[0])
    decline = request.offered(NO_REPLY_TOOL)
    if speaker is not None and speaker.type == "Agent" and decline is not None:
        args: dict[str, Any] = {"reason": "another agent spoke; nothing to add"}
        return Reply(tool_calls=(ToolCall(decline, _with_room(request, decline, args)),))
    mention = speaker.handle if speaker is not None else speech[0]
    args = {"content": reply_text, "mentions": [mention]}
    return Reply(tool_calls=(ToolCall(send, _with_room(request, send, args)),))


_CHAT_ID = re.compile(r"\bchat_id\b\W{1,4}([A-Za-z0-9][A-Za-z0-9_-]{7,})")


def _with_room(request: ModelRequest, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """``args`` plus the conversation's ``chat_id`` when ``tool`` requires one."""
    if "chat_id" not in _required(request, tool):
        return args
    for entry in reversed(request.entries):
        found = _CHAT_ID.search(entry.text)
        if found:
            return {**args, "chat_id": found.group(1)}
    return args


def _required(request: ModelRequest, tool: str) -> set[str]:
    for item in request.body.get("tools") or []:
        function = item.get("function", item) if isinstance(item, dict) else {}
        if function.get("name") == tool:
            schema = function.get("parameters") or function.get("input_schema") or {}
            return set(schema.get("required") or [])
    return set()


def _reply_text(request: ModelRequest, speech: tuple[str, str] | None) -> str:
    identity = _IDENTITY.search(request.system)
    me = f"{identity.group(1).strip()} here, answering" if identity else "Answering"
    if speech is None:
        return f"{me} from the {OFFLINE_MODEL_LABEL}."
    name, content = speech
    said = _MENTION.sub("", content).strip()[:200] or "(nothing)"
    return f"Hi {name}! {me} from the {OFFLINE_MODEL_LABEL}. You said: {said}"
