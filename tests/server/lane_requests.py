"""Hypothesis strategies for requests to the routes the fast lane serves: bodies (valid from
the route's own model, malformed, deep, huge, of wrong types, odd unicode, other encodings),
keys of every kind, path ids (the world's, foreign, malformed), headers and query strings.

A request names its keys (``"echo"``, ``"revoked"``...), not their values: each app of the
pair has its own values once a key was regenerated (``lane_pair.World.keys``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from hypothesis import strategies as st
from lane_pair import World
from pydantic import BaseModel

from band_server.http.fast_lane import Lane

AGENT_KEYS = ["echo", "helper", "mal"]
USER_KEYS = ["alice", "bob", "mallory"]
ODD_KEYS = ["revoked", "garbage", "oversized", "non-ascii"]
CONTENT_TYPES = [
    "application/json",
    "application/json; charset=utf-8",
    "Application/JSON",
    "application/vnd.band+json",
    "application/jsonx",
    "application/json-patch",
    "text/plain",
    "text/json",
    "multipart/form-data; boundary=x",
    "",
]
# None, one of each, or two (refused: http.single_headers).
TYPE_HEADERS = [[], *([t] for t in CONTENT_TYPES), ["application/json", "text/plain"]]
PATH_IDS = [
    "room",
    "foreign_room",
    "spare_room",
    "message0",
    "message1",
    "message2",
    "memory",
    "task",
    "contact_request",
    "system",
    "consent",
    "job",
    "echo",
    "helper",
    "mal",
    "alice",
    "bob",
    "mallory",
]
ODD_IDS = ["", " ", "..", "%", "00000000-0000-0000-0000-000000000000", "x" * 300, "é/ü", "\x00"]
_MARK = "@@inject@@"
_VISIBLE = st.characters(min_codepoint=0x21, max_codepoint=0x2FF, exclude_characters="\x7f")
_PARAM = re.compile(r"\{(\w+)(?::path)?\}")


@dataclass(frozen=True)
class Request:
    """One request, its keys and ids by name (resolved per app by :func:`resolve`)."""

    method: str
    template: str
    params: tuple[tuple[str, str], ...]  # path parameter -> a world id's name or "=<literal>"
    query: str
    keys: tuple[str, ...]  # one X-API-Key header per name
    headers: tuple[tuple[str, bytes], ...]
    body: bytes | None


def resolve(req: Request, world: World, app: int) -> tuple[str, list[tuple[str, bytes]]]:
    """The URL (path and query) and headers of ``req`` for app ``app`` of the pair."""
    path = req.template
    for name, ref in req.params:
        value = ref[1:] if ref.startswith("=") else world.ids[ref]
        path = re.sub(r"\{" + name + r"(?::path)?\}", quote(value, safe=""), path)
    url = path + (f"?{req.query}" if req.query else "")
    headers = [("x-api-key", key_value(name, world, app)) for name in req.keys]
    return url, headers + list(req.headers)


def key_value(name: str, world: World, app: int) -> bytes:
    odd = {"garbage": b"not-a-key", "oversized": b"k" * 6000, "non-ascii": b"\xff\xfek\xe9y"}
    if name in odd:
        return odd[name]
    return world.keys[app][name].encode()


# -- bodies --------------------------------------------------------------------------------

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


def _hinted(name: str, world: World) -> st.SearchStrategy[Any] | None:
    """World values for the fields that name someone or something, so valid bodies reach the
    services' own checks (a mention of a participant, a known handle) and not only 422s."""
    handles = sorted(world.handles.values())
    ids = sorted(world.ids.values())
    if name.endswith("_id") or name == "id":
        return st.sampled_from(ids) | st.text(max_size=8)
    if "handle" in name:
        return st.sampled_from(handles + [f"@{h}" for h in handles]) | st.text(max_size=8)
    if name == "content":
        return st.sampled_from([f"@{h} hi" for h in handles] + ["plain words"]) | st.text(
            min_size=1, max_size=40
        )
    return None


def from_schema(schema: dict[str, Any], defs: dict[str, Any], world: World) -> Any:
    """Values valid for ``schema`` (the subset of JSON Schema our request models use), with
    world values for fields that name something (:func:`_hinted`)."""
    if "$ref" in schema:
        return from_schema(defs[schema["$ref"].rsplit("/", 1)[-1]], defs, world)
    if "anyOf" in schema:
        return st.one_of([from_schema(s, defs, world) for s in schema["anyOf"]])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "object":
        props = schema.get("properties")
        if not props:
            return st.dictionaries(st.text(max_size=6), json_values, max_size=3)
        required = set(schema.get("required", ()))
        fields = {}
        for k, v in props.items():
            hinted = _hinted(k, world)
            fields[k] = from_schema(v, defs, world) if hinted is None else hinted
        return st.fixed_dictionaries(
            {k: s for k, s in fields.items() if k in required},
            optional={k: s for k, s in fields.items() if k not in required},
        )
    if kind == "array":
        return st.lists(from_schema(schema.get("items", {}), defs, world), max_size=3)
    if kind == "string":
        if "pattern" in schema:
            return st.from_regex(schema["pattern"], fullmatch=True).filter(
                lambda s: schema.get("minLength", 0) <= len(s) <= schema.get("maxLength", 60)
            )
        low = schema.get("minLength", 0)
        return st.text(min_size=low, max_size=max(low, min(schema.get("maxLength", 40), 40)))
    if kind == "boolean":
        return st.booleans()
    if kind in ("integer", "number"):
        return st.integers(-5, 5)
    if kind == "null":
        return st.none()
    return json_values


def valid_values(model: type[BaseModel], world: World) -> st.SearchStrategy[Any]:
    schema = model.model_json_schema()
    result: st.SearchStrategy[Any] = from_schema(schema, schema.get("$defs", {}), world)
    return result


# Raw JSON text put in place of one value of a valid body.
_DEEP = [99, 100, 101, 300, 1_000, 60_000, 100_000]
INJECTED = st.one_of(
    st.sampled_from(_DEEP).map(lambda n: "[" * n + "]" * n),
    st.sampled_from(_DEEP).map(lambda n: '{"a":' * n + "1" + "}" * n),
    st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "-1e999", "1e308", "-0.0"]),
    st.sampled_from(["9" * 4300, "9" * 4301, "1" + "0" * 5000]),
    st.sampled_from(
        ['"\\ud800"', '"a\\udfffb"', '"\\ud83d\\ude00"', '"\\u0000"', '"\u202e\u200b"']
    ),
    st.sampled_from(['"' + "x" * 200_000 + '"', '"' + "y" * (1 << 20) + '"']),
    json_values.map(json.dumps),
)


def _with_mark(value: Any, path: list[int]) -> Any:
    """``value`` with one of its values (chosen by ``path``) replaced by the mark."""
    if isinstance(value, dict) and value:
        keys = sorted(value)
        if not path:
            return {**value, "extra": _MARK}
        key = keys[path[0] % len(keys)]
        inner = value[key]
        if len(path) == 1 or not isinstance(inner, dict):
            return {**value, key: _MARK}
        return {**value, key: _with_mark(inner, path[1:])}
    return _MARK


ENCODINGS = ["utf-8", "utf-8", "utf-8", "ascii-escaped", "utf-8-sig", "utf-16", "utf-32", "latin-1"]


def encode(value: Any, encoding: str, injected: str | None = None) -> bytes:
    text = json.dumps(value, ensure_ascii=encoding == "ascii-escaped", allow_nan=True)
    if injected is not None:
        text = text.replace(json.dumps(_MARK), injected, 1)
    if encoding in ("ascii-escaped", "utf-8"):
        return text.encode("utf-8", "surrogatepass")
    if encoding == "latin-1":
        return text.encode("latin-1", "replace")
    return text.encode(encoding, "surrogatepass")


@st.composite
def bodies(draw: st.DrawFn, model: type[BaseModel] | None, world: World) -> bytes | None:
    """A body for a route whose model is ``model`` (None: a route without a body)."""
    kind = draw(
        st.sampled_from(
            ["valid", "valid", "valid", "injected", "wrong", "truncated", "binary", "none"]
        )
    )
    if model is None and kind != "binary":
        return None if draw(st.booleans()) else b"{}"
    if kind == "none":
        return draw(st.sampled_from([None, b""]))
    if kind == "binary":
        return draw(st.binary(max_size=64))
    value = draw(valid_values(model, world)) if model is not None else {}
    encoding = draw(st.sampled_from(ENCODINGS))
    if kind == "valid":
        return encode(value, encoding)
    path = draw(st.lists(st.integers(0, 5), max_size=3))
    marked = _with_mark(value, path)
    if kind == "wrong":
        return encode(marked, encoding, json.dumps(draw(json_values)))
    if kind == "injected":
        return encode(marked, "utf-8", draw(INJECTED))
    text = encode(value, encoding)
    return text[: draw(st.integers(0, max(0, len(text) - 1)))]


# -- requests ------------------------------------------------------------------------------


def _params(template: str) -> list[str]:
    return _PARAM.findall(template)


ids_of_path = st.sampled_from(PATH_IDS) | st.sampled_from(ODD_IDS).map(lambda s: "=" + s)
queries = st.sampled_from(["", "", "", "limit=1", "a=%ff&b", "x=" + "y" * 300]) | st.text(
    st.characters(min_codepoint=0x21, max_codepoint=0x7E, exclude_characters="#"), max_size=20
)


# The world's ids each path parameter names (any world id, or a malformed one, when odd).
IDS_OF_PARAM = {
    "chat_id": ["room", "room", "foreign_room", "spare_room"],
    "message_id": ["message0", "message1", "message2"],
    "memory_id": ["memory"],
    "task_id": ["task"],
    "request_id": ["contact_request"],
    "system_id": ["system"],
    "consent_id": ["consent"],
    "job_id": ["job"],
    "agent_id": ["echo", "helper", "mal"],
    "participant_id": ["helper", "echo", "bob", "mal"],
}


def _odd(draw: st.DrawFn, odd: bool) -> bool:
    """Whether this part of the request is of the odd kind (one time in four, when odd)."""
    return odd and draw(st.integers(0, 3)) == 0


@st.composite
def requests(draw: st.DrawFn, lanes: list[Lane], world: World, *, odd: bool = True) -> Request:
    """A request to one of ``lanes``, its body and content type of every kind; ``odd``: its
    keys, ids, headers and query too, each odd one time in four (else Echo's or Alice's key,
    the world's room and ids, no query)."""
    lane = draw(st.sampled_from(lanes))
    method = draw(st.sampled_from(sorted(lane.route.methods or ())))
    own_keys = AGENT_KEYS if lane.principal_kind == "agent" else USER_KEYS
    keys: tuple[str, ...] = (own_keys[0],)  # Echo or Alice: in the world's room
    if odd:
        keys = (draw(st.sampled_from(own_keys)),)
    if _odd(draw, odd):
        keys = draw(
            st.sampled_from([(), ("echo", "alice"), ("echo", "echo"), ("alice", "bob")])
            | st.tuples(st.sampled_from(AGENT_KEYS + USER_KEYS + ODD_KEYS))
        )
    params = []
    for name in _params(lane.template):
        choices = IDS_OF_PARAM.get(name, PATH_IDS)
        ref = draw(st.sampled_from(choices)) if odd else choices[0]
        if _odd(draw, odd):
            ref = draw(ids_of_path)
        params.append((name, ref))
    query = draw(queries) if _odd(draw, odd) else ""
    headers: list[tuple[str, bytes]] = []
    if lane.body_model is not None or method in ("POST", "PUT", "PATCH"):
        types = ["application/json"]
        if _odd(draw, True):  # part of the body's encoding: odd in both properties
            types = draw(st.sampled_from(TYPE_HEADERS))
        headers += [("content-type", t.encode()) for t in types]
    if draw(st.integers(0, 4)) == 0:
        # (h11 sends no value with control characters or edge whitespace)
        key = draw(st.sampled_from(["k1", "k2", "", "k" * 201]) | st.text(_VISIBLE, max_size=10))
        headers.append(("idempotency-key", key.encode("utf-8")))
    for _, name in lane.header_args:
        if draw(st.booleans()):
            value = draw(st.sampled_from([b"true", b"false", b"TRUE", b"", b"\xff"]))
            headers.append((name.decode(), value))
    if _odd(draw, odd) and draw(st.booleans()):
        headers.append(("x-request-id", draw(st.sampled_from([b"r-1", b"\xe9\xe9"]))))
    body = draw(bodies(lane.body_model, world))
    return Request(method, lane.template, tuple(params), query, keys, tuple(headers), body)
