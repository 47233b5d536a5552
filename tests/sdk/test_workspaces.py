"""band.workspaces: each live room gets its own folder, and gives it back when it leaves."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from band.workspaces import (
    RoomWorkspaces,
    claim_room_workspace,
    is_host_absolute,
    release_room_workspace,
    resolve_room_workspace,
    workspace_resolver_for,
)


def test_two_live_rooms_never_share_a_folder(tmp_path: Path) -> None:
    shared = str(tmp_path / "same")
    workspaces = RoomWorkspaces(lambda room: shared)
    assert workspaces.claim("r1") == os.path.realpath(shared)
    assert Path(shared).is_dir()
    with pytest.raises(ValueError, match="'r1' works there"):
        workspaces.claim("r2")
    workspaces.release("r1")
    assert workspaces.claim("r2") == os.path.realpath(shared)
    assert workspaces.rooms == ("r2",)


def test_a_room_keeps_its_folder_until_released(tmp_path: Path) -> None:
    answers = iter([str(tmp_path / "first"), str(tmp_path / "second")])
    workspaces = RoomWorkspaces(lambda room: next(answers))
    first = workspaces.claim("r1")
    assert workspaces.claim("r1") == first == workspaces.workspace("r1")
    workspaces.release("r1", workspace=str(tmp_path / "elsewhere"))  # not its folder: kept
    assert workspaces.rooms == ("r1",)
    workspaces.release("r1")
    assert workspaces.claim("r1").endswith("second")


def test_a_failed_setup_gives_the_folder_back(tmp_path: Path) -> None:
    workspaces = RoomWorkspaces(lambda room: str(tmp_path / room))
    with pytest.raises(RuntimeError), workspaces.claiming("r1"):
        raise RuntimeError("agent did not start")
    assert workspaces.rooms == ()


def test_a_stale_release_leaves_the_new_holder_alone() -> None:
    holders: dict[str, str] = {}
    claim_room_workspace("r1", "/w", holders)
    release_room_workspace("r1", "/w", holders)
    claim_room_workspace("r2", "/w", holders)
    release_room_workspace("r1", "/w", holders)
    assert holders == {"/w": "r2"}


def test_resolvers_must_answer_absolute_paths(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="absolute path"):
        resolve_room_workspace("r1", lambda room: "relative/dir")
    assert is_host_absolute(str(tmp_path)) and not is_host_absolute("a/b")


def test_the_default_folder_is_under_band_workspaces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    folder = Path(resolve_room_workspace("room/../x", None))
    assert folder.parent == tmp_path.resolve() / ".band-workspaces" and folder.is_dir()


def test_cwd_is_a_root_of_room_folders(tmp_path: Path) -> None:
    resolver = workspace_resolver_for(str(tmp_path), None)
    assert resolver is not None and Path(resolver("r1")) == tmp_path.resolve() / "r1"
    mine = lambda room: "/x"  # noqa: E731
    assert workspace_resolver_for(None, mine) is mine
    with pytest.raises(ValueError, match="either cwd or workspace_for_room"):
        workspace_resolver_for(str(tmp_path), mine)
