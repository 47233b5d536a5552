"""``parameters_of``: a forwarding function shows and takes another one's parameters.

For an entry point that takes exactly what another takes and passes it on (``configure_logging``
applies what ``build_logging_config`` builds), so a long parameter list is written once: type
checkers and ``inspect.signature`` (help, IDEs, the compat checks) both read the source's.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, TypeVar

__all__ = ["method_parameters_of", "parameters_of", "same_parameters_as"]

P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S")


def parameters_of(source: Callable[P, Any]) -> Callable[[Callable[..., R]], Callable[P, R]]:
    """Decorate a ``(*args, **kwargs)`` forwarder so it declares ``source``'s parameters."""

    def declare(forwarder: Callable[..., R]) -> Callable[P, R]:
        returns = inspect.signature(forwarder).return_annotation
        signature = inspect.signature(source).replace(return_annotation=returns)
        forwarder.__signature__ = signature  # type: ignore[attr-defined]
        return forwarder

    return declare


def method_parameters_of(
    source: Callable[P, Any],
) -> Callable[[Callable[Concatenate[S, ...], R]], Callable[Concatenate[S, P], R]]:
    """``parameters_of`` for a method: its own ``self``, then ``source``'s parameters."""

    def declare(forwarder: Callable[Concatenate[S, ...], R]) -> Callable[Concatenate[S, P], R]:
        own = inspect.signature(forwarder)
        first = next(iter(own.parameters.values()))
        theirs = inspect.signature(source)
        forwarder.__signature__ = theirs.replace(  # type: ignore[attr-defined]
            parameters=[first, *theirs.parameters.values()],
            return_annotation=own.return_annotation,
        )
        return forwarder

    return declare


def same_parameters_as(
    method: Callable[Concatenate[Any, P], Any],
) -> Callable[[Callable[Concatenate[S, ...], R]], Callable[Concatenate[S, P], R]]:
    """For a method that forwards to another method: its own ``self``, then ``method``'s
    parameters after that method's ``self``."""

    def declare(forwarder: Callable[Concatenate[S, ...], R]) -> Callable[Concatenate[S, P], R]:
        own = inspect.signature(forwarder)
        first = next(iter(own.parameters.values()))
        theirs = inspect.signature(method)
        forwarder.__signature__ = theirs.replace(  # type: ignore[attr-defined]
            parameters=[first, *list(theirs.parameters.values())[1:]],
            return_annotation=own.return_annotation,
        )
        return forwarder

    return declare
