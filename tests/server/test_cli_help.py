"""Every command-line option of every ``band`` command and benchmark has a help text."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from band.bridge import cli as bridge_cli
from band.portable import cli as portable_cli
from band_server import cli as server_cli
from band_server import demo

BENCHES = [
    "bench.adapters",
    "bench.agent_turn",
    "bench.cold_code",
    "bench.commit_pages",
    "bench.idle_sockets",
    "bench.keyed_posts",
    "bench.mention_instructions_http",
    "bench.mention_latency",
    "bench.portable",
    "bench.rest_calls",
    "bench.sdk_overhead",
]


class _Parsed(Exception):
    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self.parser = parser


def _parser_of(
    entry: Callable[[], Any], monkeypatch: pytest.MonkeyPatch
) -> argparse.ArgumentParser:
    """The parser ``entry`` builds, caught when it parses (nothing runs)."""

    def caught(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> Any:
        raise _Parsed(self)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", caught)
    with pytest.raises(_Parsed) as parsed:
        entry()
    return parsed.value.parser


def _options(parser: argparse.ArgumentParser, path: str) -> Iterator[tuple[str, argparse.Action]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _options(sub, f"{path} {name}")
        elif not isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            yield path, action


def _entries() -> list[tuple[str, Callable[[], Any]]]:
    entries: list[tuple[str, Callable[[], Any]]] = [
        ("band", lambda: server_cli.main(["serve"])),
        ("band bridge|runtime", lambda: bridge_cli.main(["bridge"])),
        ("band demo", lambda: demo.parse_args([])),
        ("band export", lambda: portable_cli.main_export(["x"])),
        ("band import", lambda: portable_cli.main_import(["x"])),
        ("band replay", lambda: portable_cli.main_replay(["x"])),
    ]
    for name in BENCHES:
        entries.append((f"python -m {name}", importlib.import_module(name).main))
    return entries


@pytest.mark.parametrize(("command", "entry"), _entries(), ids=lambda v: str(v))
def test_every_option_has_a_help_text(
    command: str, entry: Callable[[], Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    parser = _parser_of(entry, monkeypatch)
    options = list(_options(parser, command))
    assert options, f"{command}: no option found (is this its parser?)"
    missing = [
        f"{path} {'/'.join(action.option_strings) or action.dest}"
        for path, action in options
        if not action.help
    ]
    assert missing == [], f"options without a help text: {missing}"
