"""Secrets masked in log lines (``band_protocol.redaction``): every shape a key or token takes
in the lines the platform's and the SDK's libraries write, and nothing else."""

from __future__ import annotations

import logging
import sys

import pytest

from band_protocol.redaction import MASK, RedactSecrets, redact

KEY = "band_a_I3ggiCqemazSI7DMFk0rWzlk4_FHfLEqKISLh8z9ldY"


@pytest.mark.parametrize(
    ("line", "masked"),
    [
        (f"> x-api-key: {KEY}", f"> x-api-key: {MASK}"),
        (f"< X-API-Key: {KEY}", f"< X-API-Key: {MASK}"),
        (
            f"GET /socket?vsn=2.0.0&api_key={KEY} HTTP/1.1",
            f"GET /socket?vsn=2.0.0&api_key={MASK} HTTP/1.1",
        ),
        (f"token {KEY} refused", f"token band_a_{MASK} refused"),
        ("[(b'set-cookie', b'band_session=abc123; HttpOnly')]", f"[(b'set-cookie', b'{MASK}')]"),
        ("< cookie: band_session=abc; band_login_csrf=def", f"< cookie: {MASK}"),
        (
            "sent band_session=abc and band_login_csrf=def",
            f"sent band_session={MASK} and band_login_csrf={MASK}",
        ),
        ("Authorization: Bearer abc.def", f"Authorization: {MASK}"),
        ("{'x-api-key': 'abc'}", f"{{'x-api-key': '{MASK}'}}"),
    ],
)
def test_every_shape_of_a_secret_is_masked(line: str, masked: str) -> None:
    assert redact(line) == masked


@pytest.mark.parametrize(
    "line",
    [
        "POST /api/v1/agent/chats/1/messages 201",
        "key_hash=abc",
        "band_x_short",
        "Authorization, then",
    ],
)
def test_lines_without_secrets_are_left_alone(line: str) -> None:
    assert redact(line) == line


def test_the_filter_keeps_arguments_a_formatter_reads_and_masks_tracebacks() -> None:
    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s"',
        ("1.2.3.4", "GET", f"/x?api_key={KEY}"),
        None,
    )
    assert RedactSecrets().filter(record) is True
    assert record.args == ("1.2.3.4", "GET", f"/x?api_key={MASK}")
    try:
        raise ValueError(f"bad key {KEY}")
    except ValueError:
        failed = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed", None, sys.exc_info())
    RedactSecrets().filter(failed)
    assert KEY not in (failed.exc_text or "") and f"band_a_{MASK}" in (failed.exc_text or "")
