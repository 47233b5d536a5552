"""``needs_extra``: an optional dependency's import, failing with the extra that installs it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["needs_extra"]


@contextmanager
def needs_extra(what: str, extra: str) -> Iterator[None]:
    """Imports inside raise ``ImportError("<what>: pip install 'openband[<extra>]'")`` when the
    library is missing (``what`` says who needs which library)."""
    try:
        yield
    except ImportError:
        raise ImportError(f"{what}: pip install 'openband[{extra}]'") from None
