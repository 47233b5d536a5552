"""How ``band export`` / ``import`` / ``replay`` show their progress (issue 36): bars from
``rich`` on a terminal, one readable line per step elsewhere (a log, a pipe)."""

from __future__ import annotations

import io

import pytest

from band.portable.progress import LineProgress, progress_for


def _run_steps(stream: io.StringIO, bars: bool | None) -> None:
    progress = progress_for(stream, bars=bars)
    progress.start("importing messages.jsonl", 5)
    progress.advance(5)
    progress.start("importing contacts.jsonl", 2)
    progress.advance(1)
    progress.finish()


def test_bars_show_each_step_with_its_count_and_total() -> None:
    pytest.importorskip("rich")
    out = io.StringIO()
    _run_steps(out, bars=True)
    lines = out.getvalue().splitlines()
    assert [line.split()[0:2] for line in lines] == [
        ["importing", "messages.jsonl"],
        ["importing", "contacts.jsonl"],
    ]
    assert "━" in lines[0] and " 5/5 " in lines[0] and " 1/2 " in lines[1]


def test_off_a_terminal_each_step_is_a_line_when_it_starts_and_ends() -> None:
    out = io.StringIO()  # not a terminal: no bars, whatever is installed
    assert isinstance(progress_for(out), LineProgress)
    _run_steps(out, bars=None)
    assert out.getvalue().splitlines() == [
        "importing messages.jsonl: 0/5",
        "importing messages.jsonl: 5/5 done",
        "importing contacts.jsonl: 0/2",
        "importing contacts.jsonl: 1/2 done",
    ]
