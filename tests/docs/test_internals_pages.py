"""Every module docstring's "How it works" pointer names a section of its internals page,
and every section of those pages names a module that exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
POINTER = re.compile(r'How it works: (docs/internals/\w+\.md), "([^"]+)"')
PAGES = sorted((ROOT / "docs" / "internals").glob("*.md"))


def _headings(page: Path) -> set[str]:
    return {line[3:].strip() for line in page.read_text().splitlines() if line.startswith("## ")}


def _pointers() -> list[tuple[Path, str, str]]:
    found = []
    for module in sorted((ROOT / "src").rglob("*.py")):
        doc = ast.get_docstring(ast.parse(module.read_text())) or ""
        for page, heading in POINTER.findall(" ".join(doc.split())):
            found.append((module, page, heading))
    return found


def test_the_pages_exist_and_modules_point_at_them() -> None:
    assert [page.name for page in PAGES] == ["sdk.md", "server.md"]
    pointers = _pointers()
    assert len(pointers) >= 60
    assert {page for _, page, _ in pointers} == {f"docs/internals/{p.name}" for p in PAGES}


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_each_pointer_names_a_section_of_its_page(page: Path) -> None:
    headings = _headings(page)
    relative = f"docs/internals/{page.name}"
    missing = [
        f"{module.relative_to(ROOT)}: {heading!r}"
        for module, target, heading in _pointers()
        if target == relative and heading not in headings
    ]
    assert not missing, missing


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_each_section_names_a_module_that_exists(page: Path) -> None:
    sections = page.read_text().split("\n## ")[1:]
    assert sections
    for section in sections:
        named = re.findall(r"`((?:band|band_server|band_protocol)/[\w/]+\.py)`", section)
        assert named, f"section {section.splitlines()[0]!r} names no module"
        for path in named:
            assert (ROOT / "src" / path).exists(), f"{page.name}: {path} does not exist"
