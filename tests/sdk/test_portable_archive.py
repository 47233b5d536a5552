"""The Band archive format (``band.portable.archive``): written whole, read back, and any
damage refused with the member and line that is wrong."""

from __future__ import annotations

import hashlib
import json
import tarfile
from pathlib import Path

import pytest

from band.portable.archive import ArchiveError, ArchiveReader, ArchiveWriter

NOW = "2026-05-01T10:00:00.000000Z"
FILE = b"the bytes of a room file"
SHA = hashlib.sha256(FILE).hexdigest()


def _write(path: Path, messages: int = 3) -> None:
    w = ArchiveWriter(path, source={"url": "http://a.test", "scope": "person"})
    w.add("person", {"id": "p1", "name": "Alice", "handle": "alice"})
    w.add("agent", {"id": "a1", "name": "Echo", "handle": "alice/echo"})
    w.add("room", {"id": "r1", "title": "Main", "inserted_at": NOW, "updated_at": NOW})
    w.add("participant", {"id": "p1", "room_id": "r1", "type": "User", "role": "owner"})
    w.add_file(SHA, FILE)
    w.add(
        "file",
        {
            "id": "f1",
            "room_id": "r1",
            "name": "a.txt",
            "content_type": "text/plain",
            "bytes": len(FILE),
            "sha256": SHA,
        },
    )
    for seq in range(1, messages + 1):
        w.add(
            "message",
            {
                "id": f"m{seq}",
                "chat_room_id": "r1",
                "seq": seq,
                "content": f"hello {seq}",
                "message_type": "text",
                "sender_id": "p1",
                "sender_type": "User",
                "attachments": [{"id": "f1"}] if seq == 1 else [],
                "inserted_at": NOW,
                "updated_at": NOW,
            },
        )
    w.close()


@pytest.mark.parametrize("name", ["archive", "archive.tar", "archive.tar.gz"])
def test_an_archive_written_reads_back_whole_as_a_folder_or_a_tar(
    tmp_path: Path, name: str
) -> None:
    path = tmp_path / name
    _write(path)
    with ArchiveReader(path) as reader:
        counts = reader.verify()
        assert counts["message"] == 3 and counts["file"] == 1 and counts["person"] == 1
        assert reader.manifest.format == "band-archive" and reader.manifest.version == 1
        assert [r.id for _, r in reader.records("message")] == ["m1", "m2", "m3"]
        assert reader.file_bytes(SHA) == FILE
    assert not (tmp_path / f"{name}.partial").exists()


def _edit_line(path: Path, member: str, number: int, edit: object) -> None:
    target = path / member
    lines = target.read_text().splitlines()
    lines[number - 1] = edit(lines[number - 1])  # type: ignore[operator]
    target.write_text("\n".join(lines) + "\n")


def test_an_altered_record_is_refused_naming_its_line(tmp_path: Path) -> None:
    path = tmp_path / "archive"
    _write(path)
    _edit_line(path, "messages.jsonl", 2, lambda line: line.replace("hello 2", "hellO 2"))
    with ArchiveReader(path) as reader, pytest.raises(ArchiveError) as refused:
        reader.verify()
    assert str(refused.value).startswith("messages.jsonl line 2: ")
    assert "sha256" in str(refused.value)


def test_a_line_that_is_not_json_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "archive"
    _write(path)
    _edit_line(path, "messages.jsonl", 3, lambda line: line[:40])
    with (
        ArchiveReader(path) as reader,
        pytest.raises(ArchiveError, match=r"^messages\.jsonl line 3: not JSON"),
    ):
        reader.verify()


def test_a_record_whose_digest_matches_but_breaks_the_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "archive"
    _write(path)

    def resealed(line: str) -> str:
        data = json.loads(line)["data"]
        data["seq"] = 0
        digest = hashlib.sha256(
            json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
        ).hexdigest()
        return json.dumps({"sha256": digest, "data": data})

    _edit_line(path, "messages.jsonl", 1, resealed)
    with ArchiveReader(path) as reader, pytest.raises(ArchiveError) as refused:
        reader.verify()
    assert str(refused.value).startswith("messages.jsonl line 1: seq:")


def test_a_member_cut_short_is_refused_by_the_manifest(tmp_path: Path) -> None:
    path = tmp_path / "archive"
    _write(path)
    target = path / "messages.jsonl"
    target.write_text("".join(target.read_text().splitlines(keepends=True)[:2]))
    with (
        ArchiveReader(path) as reader,
        pytest.raises(ArchiveError, match="2 lines, the manifest says 3"),
    ):
        reader.verify()


def test_a_message_in_a_room_the_archive_lacks_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "archive"
    w = ArchiveWriter(path, source={})
    w.add("person", {"id": "p1", "name": "Alice", "handle": "alice"})
    w.add(
        "message",
        {
            "id": "m1",
            "chat_room_id": "nowhere",
            "seq": 1,
            "content": "x",
            "message_type": "text",
            "sender_id": "p1",
            "sender_type": "User",
            "inserted_at": NOW,
            "updated_at": NOW,
        },
    )
    w.close()
    with ArchiveReader(path) as reader, pytest.raises(ArchiveError) as refused:
        reader.verify()
    assert str(refused.value) == (
        "messages.jsonl line 1: refers to room nowhere, which the archive lacks"
    )


def test_damaged_file_bytes_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "archive"
    _write(path)
    (path / "files" / SHA).write_bytes(b"other bytes")
    with ArchiveReader(path) as reader, pytest.raises(ArchiveError, match=f"files/{SHA}"):
        reader.verify()


def test_a_newer_version_and_a_foreign_tar_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "archive"
    _write(path)
    manifest = json.loads((path / "manifest.json").read_text())
    manifest["version"] = 9
    (path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ArchiveError, match="version 9 is newer"):
        ArchiveReader(path)
    other = tmp_path / "other.tar"
    with tarfile.open(other, "w") as tar:
        tar.add(path / "rooms.jsonl", "rooms.jsonl")
    with pytest.raises(ArchiveError, match=r"manifest\.json: missing"):
        ArchiveReader(other)
