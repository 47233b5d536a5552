"""A deterministic, offline ``NLPService`` for running Parlant in tests (needs ``parlant``).

How it works: docs/internals/sdk.md, "Fake Parlant NLP service".

Pass ``FakeNLPService(...).factory`` as ``nlp_service=``; no network, no API key.
"""

import re
import time
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from typing import Any, Generic, Literal, TypeVar, Union, get_args, get_origin

import parlant.sdk as p
from parlant.core.nlp.generation_info import GenerationInfo, UsageInfo
from pydantic import BaseModel

from ._embedding_wire import hash_vector

__all__ = [
    "FakeNLPService",
    "HashedEmbedder",
    "MinimumTokenizer",
    "ModelBackedNLPService",
    "ScriptedGenerator",
    "ScriptedModelError",
    "interaction_from_prompt",
    "minimal_instance",
]

T = TypeVar("T", bound=BaseModel)
ReplyFn = Callable[[str], str]
MatchFn = Callable[[str, str], bool]

DIMENSIONS = 128
ACTIONABLE_LINE = re.compile(r"^\s*(\d+)\) Condition: (.*?)\. Action: (.*)$", re.MULTILINE)
# The candidate tool, as the consequential and non-consequential tool prompts name it.
CONSEQUENTIAL_TOOL = re.compile(r'"name": "[^":]+:([^"]+)",')
NON_CONSEQUENTIAL_TOOL = re.compile(r"REASONING FOR RUNNING [^:\s]+:(\w+)>")


class MinimumTokenizer(p.EstimatingTokenizer):  # type: ignore[misc]
    """About four characters a token, never zero (Parlant divides by the count)."""

    async def estimate_token_count(self, prompt: str) -> int:
        return max(1, len(prompt) // 4)


class HashedEmbedder(p.Embedder):  # type: ignore[misc]
    """Deterministic signed bag-of-words vectors. No constructor arguments: Parlant
    builds embedders by class through its container."""

    def __init__(self) -> None:
        self._tokenizer = MinimumTokenizer()

    async def embed(self, texts: list[str], hints: Mapping[str, Any] = {}) -> Any:
        return p.EmbeddingResult(vectors=[_hash_vector(t) for t in texts])

    @property
    def id(self) -> str:
        return "band-fake/hashed-embedder"

    @property
    def max_tokens(self) -> int:
        return 8192

    @property
    def tokenizer(self) -> Any:
        return self._tokenizer

    @property
    def dimensions(self) -> int:
        return DIMENSIONS


def _hash_vector(text: str) -> list[float]:
    return hash_vector(text, DIMENSIONS)


def _minimal(annotation: Any) -> Any:
    origin = get_origin(annotation)
    args = get_args(annotation)
    if annotation is type(None):
        return None
    if origin is typing.Annotated:
        return _minimal(args[0])
    if origin in (Union, types.UnionType):
        if type(None) in args:
            return None
        return _minimal(args[0])
    if origin is Literal:
        return args[0]
    if origin in (list, set, frozenset, tuple, Sequence) or annotation in (list, set, tuple):
        return []
    if origin in (dict, Mapping) or annotation is dict:
        return {}
    if isinstance(annotation, type):
        if issubclass(annotation, Enum):
            return next(iter(annotation))
        if issubclass(annotation, BaseModel):
            return _minimal_dict(annotation)
        if issubclass(annotation, bool):
            return False
        if issubclass(annotation, int):
            return 0
        if issubclass(annotation, float):
            return 0.0
        if issubclass(annotation, str):
            return ""
    return None


def _minimal_dict(schema: type[BaseModel]) -> dict[str, Any]:
    return {
        name: _minimal(field.annotation)
        for name, field in schema.model_fields.items()
        if field.is_required()
    }


def minimal_instance(schema: type[T], **overrides: Any) -> T:
    """The smallest valid ``schema`` value, with ``overrides`` on top."""
    data = _minimal_dict(schema)
    data.update(overrides)
    return schema.model_validate(data)


class ScriptedGenerator(p.SchematicGenerator[T], Generic[T]):  # type: ignore[misc]
    """Answers one schema from its service's script. Instantiate as
    ``ScriptedGenerator[Schema](...)``: Parlant registers generators by their
    parametrised class, so a bare class would collide across schemas."""

    def __init__(self, schema: type[T], service: "FakeNLPService") -> None:
        self._schema = schema
        self._service = service
        self._tokenizer = MinimumTokenizer()

    async def generate(self, prompt: Any, hints: Mapping[str, Any] = {}) -> Any:
        text = prompt.build() if hasattr(prompt, "build") else str(prompt)
        started = time.monotonic()
        content = self._service.answer(self._schema, text)
        info = GenerationInfo(
            schema_name=self._schema.__name__,
            model=self.id,
            duration=time.monotonic() - started,
            usage=UsageInfo(input_tokens=max(1, len(text) // 4), output_tokens=1, extra=None),
        )
        return p.SchematicGenerationResult(content=content, info=info)

    @property
    def id(self) -> str:
        return "band-fake/scripted"

    @property
    def max_tokens(self) -> int:
        return 128_000

    @property
    def tokenizer(self) -> Any:
        return self._tokenizer


def _always(condition: str, prompt: str) -> bool:
    return True


class FakeNLPService(p.NLPService):  # type: ignore[misc]
    """A scripted NLP service. ``reply`` is the reply text, or a function of the draft
    prompt; ``match(condition, prompt)`` says whether a listed guideline applies (all do
    by default); ``preamble`` is the text of Parlant's preamble messages; ``tool_calls``
    maps a tool name to the string arguments to call it with whenever a matched
    guideline offers it (tools not listed are never called)."""

    def __init__(
        self,
        reply: str | ReplyFn = "Happy to help.",
        *,
        match: MatchFn = _always,
        preamble: str = "One moment.",
        tool_calls: Mapping[str, Mapping[str, str]] | None = None,
    ) -> None:
        self.tool_calls = {k: dict(v) for k, v in (tool_calls or {}).items()}
        self._reply = reply
        self._match = match
        self.preamble = preamble
        self.embedder = HashedEmbedder()
        self.calls: list[tuple[str, str]] = []

    def factory(self, container: Any) -> "FakeNLPService":
        """The ``nlp_service=`` callable: also registers the embedder instance."""
        container[HashedEmbedder] = self.embedder
        return self

    def schemas_called(self) -> list[str]:
        return [name for name, _ in self.calls]

    def prompts_for(self, schema_name: str) -> list[str]:
        return [text for name, text in self.calls if name == schema_name]

    # scripting

    def answer(self, schema: type[T], prompt: str) -> T:
        name = schema.__name__
        self.calls.append((name, prompt))
        if name == "CannedResponseDraftSchema":
            reply = self._reply(prompt) if callable(self._reply) else self._reply
            return minimal_instance(schema, response_body=reply)
        if name == "CannedResponsePreambleSchema":
            return minimal_instance(schema, preamble=self.preamble)
        if name == "MessageSchema":
            reply = self._reply(prompt) if callable(self._reply) else self._reply
            revision = {"revision_number": 1, "content": reply, "followed_all_instructions": True}
            return _validate_loose(schema, {"produced_reply": True, "revisions": [revision]})
        if name.endswith("GuidelineMatchesSchema") and "Actionable" in name:
            return self._matches(schema, prompt)
        if name == "SingleToolBatchSchema":
            return self._consequential_call(schema, prompt)
        if name == "NonConsequentialToolBatchSchema":
            found = NON_CONSEQUENTIAL_TOOL.search(prompt)
            args = self.tool_calls.get(found.group(1)) if found else None
            if args is None:
                return minimal_instance(schema)
            return _validate_loose(schema, {"should_run": True, "calls": [{"args": args}]})
        return minimal_instance(schema)

    def _consequential_call(self, schema: type[T], prompt: str) -> T:
        found = CONSEQUENTIAL_TOOL.search(prompt)
        args = self.tool_calls.get(found.group(1)) if found else None
        if found is None or args is None:
            return minimal_instance(schema)
        evaluations = [
            {
                "parameter_name": key,
                "acceptable_source_for_this_argument_according_to_its_tool_definition": "any",
                "evaluate_is_it_provided_by_an_acceptable_source": "yes",
                "evaluate_was_it_already_provided_and_should_it_be_provided_again": "no",
                "evaluate_is_it_potentially_problematic_to_guess_what_the_value_is_if_it_isnt_provided": "no",  # noqa: E501
                "valid_invalid_or_missing": "valid",
                "value_as_string": value,
            }
            for key, value in args.items()
        ]
        call = {
            "applicability_rationale": "scripted call",
            "is_applicable": True,
            "argument_evaluations": evaluations,
            "same_call_is_already_staged": False,
            "relevant_subtleties": "",
        }
        return _validate_loose(
            schema,
            {"name": found.group(0).split('"')[3], "tool_calls_for_candidate_tool": [call]},
        )

    def _matches(self, schema: type[T], prompt: str) -> T:
        checks_field = schema.model_fields["checks"].annotation
        item_schema = get_args(checks_field)[0] if get_args(checks_field) else None
        checks = []
        for number, condition, _action in ACTIONABLE_LINE.findall(prompt):
            if not self._match(condition, prompt):
                continue
            values = {
                "guideline_id": number,
                "condition": condition,
                "rationale": "scripted match",
                "applies": True,
            }
            if isinstance(item_schema, type) and issubclass(item_schema, BaseModel):
                data = _minimal_dict(item_schema)
                data.update({k: v for k, v in values.items() if k in item_schema.model_fields})
                checks.append(data)
            else:
                checks.append(values)
        return _validate_loose(schema, {"checks": checks})

    async def get_schematic_generator(
        self,
        t: type[T],
        hints: Mapping[str, Any] = {},
    ) -> Any:
        return ScriptedGenerator[t](t, self)  # type: ignore[valid-type]

    async def get_streaming_text_generator(self, hints: Mapping[str, Any] = {}) -> Any:
        raise NotImplementedError("FakeNLPService does not stream")

    async def get_embedder(self, hints: Mapping[str, Any] = {}) -> Any:
        return self.embedder

    async def get_moderation_service(self) -> Any:
        return p.NoModeration()

    @property
    def supports_streaming(self) -> bool:
        return False


def _validate_loose(schema: type[T], values: dict[str, Any]) -> T:
    data = _minimal_dict(schema)
    data.update(values)
    return schema.model_validate(data)


# -- answering drafts from a FakeModel ---------------------------------------------------------

_SPEECH_BLOCK = re.compile(r"\n\n(?=\[[^\]\n]+\]: )")
_HISTORY_START = re.compile(r"interaction between you and a user: ###\s*\n", re.IGNORECASE)


class ScriptedModelError(RuntimeError):
    """The ``FakeModel`` behind a :class:`ModelBackedNLPService` answered with a failure."""


def interaction_from_prompt(prompt: str) -> list[tuple[str, str]]:
    """``(role, text)`` pairs of the interaction a Parlant draft prompt shows the model.

    Parlant renders the session's events as a list of JSON strings; customer messages
    become ``user`` and the agent's messages ``assistant``. Other events are left out.
    """
    import ast
    import json

    found = _HISTORY_START.search(prompt)
    if found is None:
        return []
    line = prompt[found.end() :].split("\n###", 1)[0].strip()
    try:
        items = ast.literal_eval(line)
    except (ValueError, SyntaxError):
        return []
    out: list[tuple[str, str]] = []
    for item in items if isinstance(items, list) else []:
        try:
            event = json.loads(item)
        except (TypeError, ValueError):
            continue
        if event.get("event_kind") != "message":
            continue
        source = event.get("event_source")
        message = str((event.get("data") or {}).get("message") or "")
        if source in ("user", "customer"):
            # one customer message may carry ``[System Update]: ...`` blocks before the speech
            out.extend(("user", part) for part in _SPEECH_BLOCK.split(message) if part.strip())
        elif source in ("ai_agent", "human_agent_on_behalf_of_ai_agent"):
            out.append(("assistant", message))
    return out


class ModelBackedNLPService(FakeNLPService):
    """A ``FakeNLPService`` whose reply drafts come from a :class:`FakeModel`.

    Each draft prompt becomes one OpenAI-shaped ``ModelRequest`` (the interaction as
    user/assistant messages, no tools) recorded in ``model.requests``; a text answer is the
    draft, a ``band_send_message`` call's ``content`` is too, and a ``Failure`` raises
    :class:`ScriptedModelError`. Parlant retries a failed draft with the same prompt; the
    retry re-raises without asking the model again, so one turn is one model request.
    """

    def __init__(self, model: Any, **kwargs: Any) -> None:
        super().__init__(self._draft, **kwargs)
        self.model = model
        self._failed: dict[str, str] = {}

    def _draft(self, prompt: str) -> str:
        from band.testing._model_script import ChatEntry, Failure, ModelRequest

        if prompt in self._failed:
            raise ScriptedModelError(self._failed[prompt])
        entries = tuple(ChatEntry(role, text) for role, text in interaction_from_prompt(prompt))  # type: ignore[arg-type]
        body = {
            "model": "parlant-draft",
            "messages": [{"role": e.role, "content": e.text} for e in entries],
        }
        request = ModelRequest("openai", "/v1/chat/completions", {}, body, entries, ())
        outcome = self.model.answer(request)
        if isinstance(outcome, Failure):
            text = f"scripted model failure {outcome.status}: {outcome.message}"
            self._failed[prompt] = text
            raise ScriptedModelError(text)
        if outcome.text:
            return str(outcome.text)
        for call in outcome.tool_calls:
            args = call.arguments if isinstance(call.arguments, Mapping) else {}
            if call.name == "band_send_message" and args.get("content"):
                return str(args["content"])
        return ""
