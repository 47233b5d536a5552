"""``band_protocol`` is the wire package: importable alone, and every earlier path still names
the same objects (``band.protocol``, its submodules, ``band_sdk_core``)."""

from __future__ import annotations

import importlib
import subprocess
import sys
from inspect import ismodule

import pytest

import band.protocol
import band_protocol
import band_sdk_core

SUBMODULES = (
    "agents",
    "contacts",
    "delegation",
    "errors",
    "files",
    "jobs",
    "messages",
    "pushes",
    "requests",
    "rooms",
    "socket",
    "tasks",
)


def test_importing_the_wire_package_loads_neither_the_sdk_nor_the_server() -> None:
    code = (
        "import sys, band_protocol, band_protocol.requests, band_protocol.pushes\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('band', 'band_server')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_band_protocol_re_exports_every_name_as_the_same_object() -> None:
    assert band.protocol.__all__ == band_protocol.__all__
    for name in band_protocol.__all__:
        assert getattr(band.protocol, name) is getattr(band_protocol, name), name


@pytest.mark.parametrize("name", SUBMODULES)
def test_each_band_protocol_submodule_names_what_the_wire_module_holds(name: str) -> None:
    old = importlib.import_module(f"band.protocol.{name}")
    new = importlib.import_module(f"band_protocol.{name}")
    public = [n for n, v in vars(new).items() if not n.startswith("_") and not ismodule(v)]
    assert public
    for attr in public:
        assert getattr(old, attr) is getattr(new, attr), f"band.protocol.{name}.{attr}"
    assert getattr(band.protocol, name) is old  # bound on the package, as before


def test_the_servers_imports_of_the_sdk_paths_still_resolve() -> None:
    from band.core._text import has_visible_text
    from band.protocol.messages import MAX_MESSAGE_CHARS, MessageCreateFields
    from band.protocol.tasks import STATE_MOVES, overall_status

    assert has_visible_text is band_protocol.has_visible_text
    assert MessageCreateFields is band_protocol.messages.MessageCreateFields
    assert MAX_MESSAGE_CHARS == band_protocol.MAX_MESSAGE_CHARS
    assert (STATE_MOVES, overall_status) == (
        band_protocol.tasks.STATE_MOVES,
        band_protocol.tasks.overall_status,
    )


def test_band_sdk_core_names_the_wire_packages_core() -> None:
    for name in band_sdk_core.__all__:
        assert getattr(band_sdk_core, name) is getattr(band_protocol, name), name
    from band_sdk_core.failure import AgentFailure
    from band_sdk_core.turn import TurnLedger
    from band_sdk_core.validation import validate_event_payload

    assert (AgentFailure, TurnLedger, validate_event_payload) == (
        band_protocol.AgentFailure,
        band_protocol.TurnLedger,
        band_protocol.validate_event_payload,
    )
