"""What a module-level name is, as JSON-able facts both sides of the layout test compare.

Used by ``upstream_layout.py`` inside the band-sdk venv and by the test on our side, so both
describe names the same way: the kind (module, class, enum, function, alias, constant), the
call signature as ``inspect.signature`` reads it (each parameter's name, kind and default),
an enum's members and values, a plain constant's value. Standard library only.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import inspect
import json
import math
import re
import types
import typing
from pathlib import PurePath
from typing import Any

STUB = {"stub": True}  # a value made by a stand-in for a missing library: not compared


def _is_stub(value: Any) -> bool:
    kind = value if isinstance(value, type) else type(value)
    return type(kind).__name__ == "_Stub" or getattr(kind, "__module__", "") == "stub"


def normalise(value: Any, depth: int = 0) -> Any:
    """A default or constant as comparable JSON: literals as themselves, the rest by kind."""
    if depth > 4:
        return {"object": type(value).__name__}
    if _is_stub(value):
        return STUB
    if isinstance(value, enum.Enum) and not isinstance(value, str | int):
        return {"enum": f"{type(value).__name__}.{value.name}"}
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):  # a StrEnum member equals its value, and is compared as one
        return str.__str__(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else {"float": repr(value)}
    if isinstance(value, tuple | list):
        return {type(value).__name__: [normalise(v, depth + 1) for v in value]}
    if isinstance(value, set | frozenset):
        items = sorted((normalise(v, depth + 1) for v in value), key=json.dumps)
        return {"set": items}
    if isinstance(value, dict):
        pairs = [[normalise(k, depth + 1), normalise(v, depth + 1)] for k, v in value.items()]
        return {"dict": sorted(pairs, key=json.dumps)}
    if isinstance(value, PurePath):
        return {"path": str(value)}
    if isinstance(value, datetime.timedelta):
        return {"timedelta": value.total_seconds()}
    if isinstance(value, re.Pattern):
        return {"regex": value.pattern}
    if isinstance(value, types.MappingProxyType):
        return normalise(dict(value), depth)
    if type(value).__name__ == "_HAS_DEFAULT_FACTORY_CLASS":  # a dataclass field's factory
        return {"factory": True}
    if isinstance(value, type | types.FunctionType | types.BuiltinFunctionType):
        return {"callable": getattr(value, "__name__", type(value).__name__)}
    return {"object": type(value).__name__}


def signature(value: Any) -> list[dict[str, Any]] | None:
    """``inspect.signature`` as a list of parameters, or None where it has none."""
    target = value
    if isinstance(value, type) and type(value).__name__ == "_Stub":
        return None
    if isinstance(value, type) and _is_stub_subclass(value):
        target = value.__init__  # the stand-in metaclass hides the real constructor
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    if target is not value and params and params[0].name == "self":
        params = params[1:]
    described = []
    for param in params:
        item: dict[str, Any] = {"name": param.name, "kind": param.kind.name}
        if param.default is not inspect.Parameter.empty:
            item["default"] = normalise(param.default)
        described.append(item)
    return described


def _is_stub_subclass(cls: type) -> bool:
    return any(type(base).__name__ == "_Stub" for base in cls.__mro__[1:])


def _is_alias(value: Any) -> bool:
    origin = typing.get_origin(value)
    return (
        origin is not None
        or isinstance(value, typing.TypeVar | typing.NewType | types.UnionType)
        or type(value).__name__ in {"TypeAliasType", "_SpecialForm", "ParamSpec"}
    )


def describe(value: Any, stubbed: bool = False) -> dict[str, Any]:
    """The facts of one exported name (``stubbed``: its module loaded with stand-ins)."""
    if isinstance(value, types.ModuleType):
        return {"kind": "module"}
    if _is_stub(value) and not (isinstance(value, type) and _is_stub_subclass(value)):
        return {"kind": "stub"}
    if isinstance(value, type) and issubclass(value, enum.Enum):
        members = {m.name: normalise(m.value) for m in value}
        return {"kind": "enum", "members": members}
    if isinstance(value, type):
        facts: dict[str, Any] = {"kind": "class", "signature": signature(value)}
        if issubclass(value, BaseException):
            facts["exception"] = True
        if isinstance(getattr(value, "__required_keys__", None), frozenset):  # a TypedDict
            facts["keys"] = sorted(value.__annotations__)
        if dataclasses.is_dataclass(value):
            facts["dataclass"] = True
        return facts
    if _is_alias(value):
        return {"kind": "alias"}
    if callable(value) and (inspect.isroutine(value) or inspect.isfunction(value)):
        return {
            "kind": "function",
            "async": inspect.iscoroutinefunction(value) or inspect.isasyncgenfunction(value),
            "signature": signature(value),
        }
    return {"kind": "constant", "value": normalise(value), "type": type(value).__name__}
