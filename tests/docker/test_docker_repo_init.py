"""band.docker.repo_init and the launcher's bootstrap: a real git clone of an https remote
(rewritten by git's own ``insteadOf`` to a local bare repository, so no network), the checks
on an existing checkout, and the context documents written only when the checkout changed."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from band.docker.repo_init import initialize_repo, load_context_bundle, parse_repo_config

REMOTE = "https://git.band.test/band/agent.git"


def git(cwd: Path | None, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout


@pytest.fixture
def remote(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A bare repository with one commit on ``main``, served under ``REMOTE``."""
    source = tmp_path / "source"
    source.mkdir()
    (source / "pyproject.toml").write_text("[project]\nname = 'agent'\n")
    (source / "main.py").write_text("print('hi')\n")
    (source / "test_main.py").write_text("def test(): pass\n")
    git(source, "init", "-q", "-b", "main")
    git(source, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    git(source, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first")
    bare = tmp_path / "agent.git"
    git(None, "clone", "-q", "--bare", str(source), str(bare))
    config = tmp_path / "gitconfig"
    config.write_text(f'[url "{bare.as_uri()}"]\n\tinsteadOf = {REMOTE}\n')
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    return source


def repo_config(path: Path, **more: object) -> dict[str, object]:
    return {"repo": {"url": REMOTE, "path": str(path), **more}}


def test_it_clones_then_finds_the_clone_and_indexes_only_on_change(
    remote: Path, tmp_path: Path
) -> None:
    checkout, state, context = tmp_path / "checkout", tmp_path / "state", tmp_path / "context"
    first = initialize_repo(
        repo_config(checkout, index=True), agent_key="a1", state_dir=state, context_dir=context
    )
    assert (first.enabled, first.cloned, first.indexed) == (True, True, True)
    assert (checkout / "main.py").read_text() == "print('hi')\n"
    assert "main.py" in (context / "structure.md").read_text()
    assert "- Test files: 1" in (context / "patterns.md").read_text()
    assert "name = 'agent'" in (context / "dependencies.md").read_text()
    assert first.context_bundle.startswith("## Repository Context")
    assert first.context_bundle == load_context_bundle(context)
    meta = json.loads((state / "repo_init_meta.json").read_text())
    assert meta["head_commit"] == git(checkout, "rev-parse", "HEAD").strip()
    assert set(meta["context_files"]) == {"structure.md", "patterns.md", "dependencies.md"}

    again = initialize_repo(
        repo_config(checkout, index=True), agent_key="a1", state_dir=state, context_dir=context
    )
    assert (again.cloned, again.indexed) == (False, False)


def test_an_existing_checkout_of_another_repository_is_refused(
    remote: Path, tmp_path: Path
) -> None:
    checkout = tmp_path / "checkout"
    initialize_repo(
        repo_config(checkout), agent_key="a", state_dir=tmp_path / "s", context_dir=tmp_path / "c"
    )
    git(checkout, "remote", "set-url", "origin", "git@git.band.test:other/agent.git")
    with pytest.raises(ValueError, match=r"does not match repo\.url"):
        initialize_repo(
            repo_config(checkout),
            agent_key="a",
            state_dir=tmp_path / "s",
            context_dir=tmp_path / "c",
        )
    # The SSH spelling of the same repository is the same repository.
    git(checkout, "remote", "set-url", "origin", "git@GIT.band.test:band/agent")
    done = initialize_repo(
        repo_config(checkout), agent_key="a", state_dir=tmp_path / "s", context_dir=tmp_path / "c"
    )
    assert done.cloned is False


def test_a_non_empty_directory_that_is_no_repository_is_refused(
    tmp_path: Path, remote: Path
) -> None:
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="non-empty and not a git repository"):
        initialize_repo(
            repo_config(checkout),
            agent_key="a",
            state_dir=tmp_path / "s",
            context_dir=tmp_path / "c",
        )


def test_configuration_is_validated() -> None:
    assert parse_repo_config({}) is None
    parsed = parse_repo_config({"repo": {"url": " ", "path": "/work/repo", "branch": " "}})
    assert parsed is not None and (parsed.url, parsed.branch) == (None, None)
    with pytest.raises(
        ValueError, match=r"Invalid repo configuration: path: .*must be an absolute path"
    ):
        parse_repo_config({"repo": {"path": "relative"}})
    with pytest.raises(ValueError, match="must be SSH"):
        parse_repo_config({"repo": {"url": "ftp://x/y", "path": "/r"}})
    with pytest.raises(ValueError, match="must be a mapping"):
        parse_repo_config({"repo": "https://x"})


def test_without_a_url_the_directory_must_exist(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"repo\.path does not exist"):
        initialize_repo(
            {"repo": {"path": str(tmp_path / "nowhere")}},
            agent_key="a",
            state_dir=tmp_path / "s",
            context_dir=tmp_path / "c",
        )


def test_the_launcher_clones_the_project_into_its_fenced_path(remote: Path, tmp_path: Path) -> None:
    from band.docker.launcher import LaunchError, RepoSection, ResolvedLaunch, bootstrap_repository

    sandbox = tmp_path / "sandbox"
    launch = ResolvedLaunch(
        workspace=tmp_path / "ws",
        project=tmp_path / "ws" / "app",
        entrypoint=tmp_path / "ws" / "app" / "main.py",
        environment_path=sandbox / "venv",
        state_path=sandbox / "state",
        cache_path=sandbox / "cache",
        log_path=sandbox / "logs",
        uv_binary=Path("/opt/band/bin/uv"),
        agent_id="agent-1",
        rest_url="https://band.example",
        ws_url="wss://band.example/ws",
        repo=RepoSection(url=REMOTE, branch="main", index=True),
    )
    bootstrap_repository(launch)
    assert launch.entrypoint.read_text() == "print('hi')\n"
    assert (sandbox / "state" / "context" / "structure.md").exists()
    assert (sandbox / "state" / "repo_init_meta.json").exists()
    broken = launch.model_copy(update={"repo": RepoSection(url=REMOTE, branch="nope")})
    broken = broken.model_copy(update={"project": tmp_path / "ws" / "other"})
    with pytest.raises(LaunchError, match=r"^\[repo\] Git command failed"):
        bootstrap_repository(broken)
