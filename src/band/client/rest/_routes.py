"""The REST namespaces as a declared table: one ``Route`` a method, one function runs them all.

A route names the HTTP method, the path (its ``{placeholders}`` are the method's positional
arguments, in order), the answer's model and shape, and where each keyword goes: a request
model wrapped under its own name (``wrap``; its ``body()``, or with ``whole`` every field),
JSON fields (``json``), query parameters
(``query``), and any further keywords (``extra``: ``"filters"`` go to the query,
``"changes"`` to the JSON body). A field ending in ``?`` is optional (default None); None is
never sent. The method's signature and docstring come from its row, so ``help()`` and
``inspect.signature`` show them.
"""

from __future__ import annotations

import inspect
import string
from types import MethodType
from typing import Any, Literal

from pydantic import BaseModel

from ._core import Caller, Record, RequestOptions

__all__ = ["Namespace", "Route"]

Shape = Literal["one", "many", "maybe", "none"]
_P = inspect.Parameter


class Namespace:
    """One namespace of ``AsyncRestClient`` (``client.agent_api_chats`` ...)."""

    def __init__(self, caller: Caller) -> None:
        self._c = caller


def _drop_none(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


class Route:
    """One method of a namespace, declared: see the module docstring."""

    def __init__(
        self,
        http: str,
        path: str,
        model: type[BaseModel] = Record,
        shape: Shape = "one",
        *,
        wrap: str | None = None,
        whole: bool = False,
        json: tuple[str, ...] = (),
        query: tuple[str, ...] = (),
        extra: Literal["filters", "changes"] | None = None,
        doc: str | None = None,
    ) -> None:
        self.http, self.path, self.model, self.shape = http, path, model, shape
        self.wrap, self.whole, self.extra, self.doc = wrap, whole, extra, doc
        self.json = tuple(name.rstrip("?") for name in json)
        self.query = tuple(name.rstrip("?") for name in query)
        self.placeholders = tuple(f for _, f, _, _ in string.Formatter().parse(path) if f)
        keywords = [_P(wrap, _P.KEYWORD_ONLY)] if wrap else []
        for name in (*json, *query):
            default = None if name.endswith("?") else _P.empty
            keywords.append(_P(name.rstrip("?"), _P.KEYWORD_ONLY, default=default))
        keywords.append(_P("request_options", _P.KEYWORD_ONLY, default=None))
        if extra:
            keywords.append(_P(extra, _P.VAR_KEYWORD))
        positional = [_P(p, _P.POSITIONAL_OR_KEYWORD, annotation=str) for p in self.placeholders]
        self.signature = inspect.Signature([_P("self", _P.POSITIONAL_OR_KEYWORD), *positional])
        self.signature = self.signature.replace(
            parameters=[*self.signature.parameters.values(), *keywords]
        )
        self._method: Any = None

    def __set_name__(self, owner: type, name: str) -> None:
        route = self

        async def method(self: Namespace, *args: Any, **kwargs: Any) -> Any:
            return await route.call(self._c, route.signature.bind(self, *args, **kwargs).arguments)

        method.__name__ = name
        method.__qualname__ = f"{owner.__qualname__}.{name}"
        method.__doc__ = self.doc
        method.__signature__ = self.signature  # type: ignore[attr-defined]
        self._method = method

    def __get__(self, obj: Namespace | None, owner: type | None = None) -> Any:
        return self if obj is None else MethodType(self._method, obj)

    async def call(self, c: Caller, values: dict[str, Any]) -> Any:
        """Send the request the arguments describe; the answer in the route's shape."""
        path = self.path.format(**{p: values[p] for p in self.placeholders})
        extra = values.get(self.extra, {}) if self.extra else {}
        options: RequestOptions | None = values.get("request_options")
        body: Any = None
        if self.wrap:
            model = values[self.wrap]
            body = {self.wrap: model.model_dump(mode="json") if self.whole else model.body()}
        elif self.json or self.extra == "changes":
            body = _drop_none({**{n: values.get(n) for n in self.json}, **extra})
        params = {n: values.get(n) for n in self.query}
        if self.extra == "filters":
            params.update(extra)
        params = _drop_none(params)
        if self.shape == "many":
            return await c.many(self.model, path, params=params, options=options)
        if self.shape == "maybe":
            return await c.maybe(self.model, self.http, path, json=body, options=options)
        if self.shape == "none":
            await c.send(self.http, path, params=params or None, json=body, options=options)
            return None
        return await c.one(
            self.model, self.http, path, params=params or None, json=body, options=options
        )
