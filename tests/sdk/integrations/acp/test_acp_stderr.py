"""``stderr``: a process's stderr drained into the log; an exit nobody asked for, with a
non-zero code, logged with the tail; an expected exit not."""

from __future__ import annotations

import asyncio
import logging
import sys

import pytest

from band.integrations.acp.stderr import STDERR_TAIL_LINES, ACPStderrDrain

SCRIPT = (
    "import sys,time\nfor i in range(30): print('line', i, file=sys.stderr)\n"
    "sys.stderr.flush()\n{end}"
)


async def run(end: str, *, expect: bool) -> tuple[ACPStderrDrain, list[str]]:
    logger = logging.getLogger("test.acp.stderr")
    drain = ACPStderrDrain(logger)
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        SCRIPT.format(end=end),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    drain.start(process)
    if expect:
        drain.expect_exit()
        process.terminate()
    await process.wait()
    await drain.finish()
    return drain, list(drain.tail)


async def test_a_crash_is_logged_with_the_stderr_tail(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, "test.acp.stderr"):
        _, tail = await run("sys.exit(2)", expect=False)
    assert len(tail) == STDERR_TAIL_LINES and tail[-1] == "line 29"
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "exited with code 2" in warnings[0] and "line 29" in warnings[0]
    assert "line 9\n" not in warnings[0]  # the tail only
    assert any(r.getMessage() == "ACP agent stderr: line 0" for r in caplog.records)


async def test_a_clean_exit_and_an_expected_stop_are_not_crashes(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, "test.acp.stderr"):
        await run("sys.exit(0)", expect=False)
        await run("time.sleep(30)", expect=True)
    assert not caplog.records
