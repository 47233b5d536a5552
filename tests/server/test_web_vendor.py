"""The web app's vendored browser libraries: each folder is the npm package's files as
``scripts/vendor-phoenix`` / ``scripts/vendor-markdown`` copied them (checksums), with its
licence, and the room page loads each one from its own address, scripts only as files."""

from __future__ import annotations

import hashlib
import re
from importlib import resources

import httpx
from socket_testkit import make_room
from web_testkit import sign_in

from band_server.context import Platform
from band_server.web.render import VENDORED, vendored
from conftest import Seeded

LICENCES = {
    "phoenix": "MIT License",
    "markdown-it": "Permission is hereby granted",
    "markdown-it-task-lists": "Permission to use, copy, modify",
    "highlight.js": "BSD 3-Clause License",
    "dompurify": "Apache License",
}


def test_every_vendored_folder_matches_its_checksums_and_has_its_licence() -> None:
    vendor = resources.files("band_server.web").joinpath("static", "vendor")
    folders = sorted(p.name for p in vendor.iterdir() if p.is_dir())
    assert folders == sorted(f"{name}-{version}" for name, version in VENDORED.items())
    for name, version in VENDORED.items():
        folder = vendor.joinpath(f"{name}-{version}")
        lines = folder.joinpath("SHA256SUMS").read_text().splitlines()
        sums = {file: digest for digest, file in (line.split() for line in lines)}
        present = {p.name for p in folder.iterdir()} - {"SHA256SUMS"}
        assert set(sums) == present, name
        for file, digest in sums.items():
            assert hashlib.sha256(folder.joinpath(file).read_bytes()).hexdigest() == digest, file
        licence = next(f for f in sums if f.startswith("LICENSE"))
        assert LICENCES[name] in folder.joinpath(licence).read_text(), name


async def test_the_room_page_loads_the_markdown_renderer_and_its_sanitiser(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    room = await make_room(platform, seeded.user_id)
    await sign_in(client, seeded.user_key)
    page = await client.get(f"/rooms/{room}")
    for name, file in (
        ("markdown-it", "markdown-it.umd.min.js"),
        ("markdown-it-task-lists", "markdown-it-task-lists.min.js"),
        ("highlight.js", "highlight.min.js"),
        ("dompurify", "purify.min.js"),
    ):
        assert f'<script src="{vendored(name, file)}" defer>' in page.text
        served = await client.get(vendored(name, file))
        assert served.status_code == 200 and "javascript" in served.headers["content-type"]
    theme = await client.get(vendored("highlight.js", "github.min.css"))
    assert theme.status_code == 200 and theme.headers["content-type"].startswith("text/css")
    scripts = re.findall(r"<script[^>]*>", page.text)
    assert page.text.index("purify.min.js") < page.text.index("/static/room_markdown.js")
    assert all(re.fullmatch(r'<script src="/static/[^"]+" defer>', t) for t in scripts)
