"""Real Redis and PostgreSQL servers on loopback, started and stopped by the tests.

``redis-server`` comes from Debian's package (``scripts/test`` installs it when run as root);
PostgreSQL's ``initdb``/``pg_ctl`` come from PATH or ``/usr/lib/postgresql/*/bin``. ``initdb``
refuses to run as root, so as root the cluster belongs to the ``postgres`` OS user. When a
binary is missing, the tests that need it are skipped with the reason.
"""

from __future__ import annotations

import asyncio
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.02)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout}s")


# -- Redis -----------------------------------------------------------------------------------


@dataclass
class RedisServer:
    """One ``redis-server`` without persistence, in its own directory (``password``: AUTH
    required, via ``requirepass``)."""

    workdir: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    password: str | None = None

    @property
    def url(self) -> str:
        login = f":{self.password}@" if self.password is not None else ""
        return f"redis://{login}127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.skip("redis-server is not installed (scripts/test installs it as root)")
        self.process = subprocess.Popen(
            [
                *(binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""),
                *("--appendonly", "no", "--dir", str(self.workdir)),
                *("--logfile", str(self.workdir / "redis.log")),
                *(("--requirepass", self.password) if self.password is not None else ()),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for_port(self.port)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.process = None


# -- PostgreSQL ------------------------------------------------------------------------------


def _run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}")


def pg_binary(name: str) -> str | None:
    """A PostgreSQL program from PATH, else from Debian's versioned directory (newest first)."""
    found = shutil.which(name)
    if found:
        return found
    versions = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), reverse=True)
    return str(versions[0]) if versions else None


def _as_cluster_owner() -> list[str]:
    """The command prefix that runs PostgreSQL binaries as a non-root user."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        pytest.skip("running as root and there is no 'postgres' OS user for initdb")
    return ["runuser", "-u", "postgres", "--"]


@dataclass
class PostgresServer:
    """A throwaway PostgreSQL cluster (trust auth, role ``band``, fsync off) on loopback.

    ``durable=True`` keeps PostgreSQL's durable defaults (fsync, synchronous commit), as the
    benchmarks need. ``fast_commits=False`` keeps synchronous commit with fsync off: what was
    committed survives a crash of PostgreSQL (not of the machine), as the fault tests need.
    """

    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="band-pg-")))
    port: int = field(default_factory=free_port)
    started: bool = False
    durable: bool = False
    fast_commits: bool = True

    @property
    def admin_url(self) -> str:
        return f"postgresql://band@127.0.0.1:{self.port}/postgres"

    def url(self, database: str) -> str:
        return f"postgresql+asyncpg://band@127.0.0.1:{self.port}/{database}"

    def start(self) -> None:
        initdb, pg_ctl = pg_binary("initdb"), pg_binary("pg_ctl")
        if initdb is None or pg_ctl is None:
            pytest.skip("PostgreSQL binaries (initdb, pg_ctl) are not installed")
        prefix = _as_cluster_owner()
        data, sockets = self.root / "data", self.root / "sockets"
        sockets.mkdir()
        if prefix:
            shutil.chown(self.root, "postgres")
            shutil.chown(sockets, "postgres")
        _run([*prefix, initdb, "-D", str(data), "-A", "trust", "-U", "band", "-E", "UTF8"])
        self._pg_ctl("start")
        self.started = True

    def _pg_ctl(self, action: str, mode: str = "fast") -> None:
        pg_ctl = pg_binary("pg_ctl") or "pg_ctl"
        data, sockets = self.root / "data", self.root / "sockets"
        options = f"-p {self.port} -k {sockets} -c listen_addresses=127.0.0.1"
        if not self.durable:
            options += " -c fsync=off -c full_page_writes=off"
            # A commit still reaches the OS before it is answered unless ``fast_commits``:
            # the fault tests crash PostgreSQL (not the machine) and must keep what it answered.
            if self.fast_commits:
                options += " -c synchronous_commit=off"
        log = str(self.root / "pg.log")
        command = [pg_ctl, "-D", str(data), "-w", "-l", log, "-o", options]
        if action == "stop":
            command = [pg_ctl, "-D", str(data), "-m", mode, "-w"]
        _run([*_as_cluster_owner(), *command, action])

    def pause(self) -> None:
        """Stop the server (connections cut, the data kept); :meth:`resume` starts it again."""
        self._pg_ctl("stop")

    def resume(self) -> None:
        self._pg_ctl("start")

    def crash_and_restart(self, down_seconds: float = 0.0) -> None:
        """Stop like a crash (``-m immediate``: every connection dropped, no checkpoint),
        stay down ``down_seconds``, then start again on the same data and port."""
        self._pg_ctl("stop", mode="immediate")
        time.sleep(down_seconds)
        self._pg_ctl("start")

    def stop(self) -> None:
        if self.started:
            data = str(self.root / "data")
            pg_ctl = pg_binary("pg_ctl") or "pg_ctl"
            stop = [*_as_cluster_owner(), pg_ctl, "-D", data, "-m", "immediate", "-w", "stop"]
            subprocess.run(stop, check=False, capture_output=True)
            self.started = False
        shutil.rmtree(self.root, ignore_errors=True)

    async def create_database(self) -> str:
        """A fresh, empty database; returns its SQLAlchemy URL."""
        import asyncpg

        name = f"band_{uuid.uuid4().hex[:12]}"
        for attempt in range(50):
            try:
                conn = await asyncpg.connect(self.admin_url)
                break
            except (OSError, asyncpg.PostgresError):
                if attempt == 49:
                    raise
                await asyncio.sleep(0.1)
        try:
            await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()
        return self.url(name)
