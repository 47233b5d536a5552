"""MkDocs hook: write the platform's OpenAPI document before the site is built.

``mkdocs build`` imports this (``hooks:`` in ``mkdocs.yml``); before the pages are read it asks
``band_server``'s app for ``/openapi.json`` (as ``create_app().openapi()``, no server started)
and writes it to ``docs/reference/openapi.json`` (git-ignored), which the REST reference page
renders with neoteroi's ``[OAD(...)]`` tag. So the reference is the code's own, every build.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

TARGET = Path("reference") / "openapi.json"


def on_pre_build(config: Any) -> None:
    from band_server.app import create_app
    from band_server.config import Settings

    with tempfile.TemporaryDirectory() as data:
        document = create_app(Settings(data_dir=Path(data))).openapi()
    target = Path(config["docs_dir"]) / TARGET
    target.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(document, indent=1, sort_keys=False) + "\n"
    if not target.exists() or target.read_text() != text:
        target.write_text(text)
