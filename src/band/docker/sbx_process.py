"""Running one ``sbx`` (Docker Sandboxes CLI) command, with any secret kept out of errors.

A failure raises ``RuntimeError`` naming the command and what ``sbx`` printed; the secret
given as ``redact`` (piped on stdin or present in argv) is replaced by ``***`` wherever it
would appear in that message.
"""

from __future__ import annotations

import subprocess  # nosec B404 # runs git, uv or sbx with fixed argv, no shell

__all__ = ["run_sbx_subprocess"]


def _masked(text: str, secret: str | None) -> str:
    return text.replace(secret, "***") if secret else text


def run_sbx_subprocess(
    argv: list[str],
    *,
    timeout: int,
    input: str | None = None,
    redact: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` (text mode, output captured); raise ``RuntimeError`` unless it exits 0."""
    command = _masked(" ".join(argv), redact)
    try:
        done = subprocess.run(  # nosec B603 # fixed argv, no shell
            argv, input=input, capture_output=True, text=True, check=False, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"{command} timed out after {timeout}s") from None
    if done.returncode != 0:
        said = _masked((done.stderr or done.stdout or "").strip(), redact)
        raise RuntimeError(f"{command} failed (exit {done.returncode}): {said}")
    return done
