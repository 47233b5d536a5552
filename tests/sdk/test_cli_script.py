"""``run_script``: how ``band-trigger`` and ``band-kit`` end (line and exit status)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Iterator
from typing import Any

import pytest

from band.cli.script import run_script

LOGGER = logging.getLogger("tests.cli_script")


class _Kept(logging.Handler):
    """Keeps the records of ``LOGGER`` (``run_script`` configures the root logger anew)."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def kept() -> Iterator[_Kept]:
    handler = _Kept()
    LOGGER.addHandler(handler)
    yield handler
    LOGGER.removeHandler(handler)


async def _answer() -> str:
    return "room-1"


async def _refuse() -> str:
    raise ValueError("--message is required")


async def _crash() -> str:
    raise KeyError("boom")


async def _slow() -> str:
    return await asyncio.wait_for(asyncio.sleep(1, "late"), 0.01)


def _ended(work: Coroutine[Any, Any, str], *, timeout_s: float | None = None) -> int:
    with pytest.raises(SystemExit) as ended:
        run_script(work, name="band-test", logger=LOGGER, verbose=False, timeout_s=timeout_s)
    return int(ended.value.code or 0)


def test_the_result_line_goes_to_stdout_with_status_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert _ended(_answer()) == 0
    assert capsys.readouterr().out == "room-1\n"


def test_a_refusal_is_one_error_line_without_a_traceback(
    capsys: pytest.CaptureFixture[str], kept: _Kept
) -> None:
    assert _ended(_refuse()) == 1
    assert capsys.readouterr().err.endswith("Error: --message is required\n")
    assert kept.records == []


def test_an_unexpected_error_also_logs_its_traceback(
    capsys: pytest.CaptureFixture[str], kept: _Kept
) -> None:
    assert _ended(_crash()) == 1
    assert capsys.readouterr().err.endswith("Error: 'boom'\n")
    (record,) = kept.records
    assert record.getMessage() == "band-test failed" and record.exc_info is not None


def test_the_scripts_time_limit_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    assert _ended(_slow(), timeout_s=120) == 1
    assert capsys.readouterr().err.endswith("Error: timed out after 120 seconds\n")
