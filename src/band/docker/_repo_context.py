"""The repository context documents ``repo_init`` writes for an agent's system prompt.

``structure.md`` (a depth-limited tree), ``patterns.md`` (file-type counts, test files) and
``dependencies.md`` (the known manifests, truncated): static signals read from the checkout,
written atomically; ``file_hashes`` records each document's sha256.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from pathlib import Path

CONTEXT_FILENAMES = ("structure.md", "patterns.md", "dependencies.md")
SKIPPED_DIRS = frozenset({".git", ".venv", "venv", "__pycache__", "node_modules", "dist", "build"})
MANIFESTS = ("pyproject.toml", "requirements.txt", "package.json", "go.mod")
MAX_TREE_LINES = 220
MAX_DEPTH = 3
FILES_PER_DIR = 12
MANIFEST_CHARS = 6000


def write_context(checkout: Path, context_dir: Path) -> None:
    """Write the three documents for ``checkout`` into ``context_dir``."""
    documents = {
        "structure.md": _structure(checkout),
        "patterns.md": _patterns(checkout),
        "dependencies.md": _dependencies(checkout),
    }
    context_dir.mkdir(parents=True, exist_ok=True)
    for name, text in documents.items():
        scratch = context_dir / f"{name}.tmp"
        scratch.write_text(text, encoding="utf-8")
        scratch.replace(context_dir / name)


def file_hashes(context_dir: Path) -> dict[str, str]:
    """``name -> sha256:<hex>`` of each context document present."""
    return {
        name: "sha256:" + hashlib.sha256((context_dir / name).read_bytes()).hexdigest()
        for name in CONTEXT_FILENAMES
        if (context_dir / name).exists()
    }


def _structure(checkout: Path) -> str:
    lines: list[str] = []
    for root, dirs, files in os.walk(checkout):
        relative = Path(root).relative_to(checkout)
        depth = len(relative.parts)
        if depth > MAX_DEPTH:
            dirs[:] = []
            continue
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        indent = "  " * depth
        lines.append(f"{indent}{relative.name if relative.parts else checkout.name}/")
        shown = sorted(f for f in files if not f.startswith("."))[:FILES_PER_DIR]
        lines.extend(f"{indent}  {name}" for name in shown)
        if len(lines) >= MAX_TREE_LINES:
            break
    tree = "\n".join(lines[:MAX_TREE_LINES])
    return (
        f"# Architecture Overview\n\nRepository layout (depth-limited):\n\n```text\n{tree}\n```\n"
    )


def _patterns(checkout: Path) -> str:
    kinds: Counter[str] = Counter()
    tests = total = 0
    for path in checkout.rglob("*"):
        inside = path.relative_to(checkout).parts
        if not path.is_file() or any(p.startswith(".") or p in SKIPPED_DIRS for p in inside):
            continue
        total += 1
        kinds[path.suffix.lower() or "<no_ext>"] += 1
        name = path.name.lower()
        tests += name.startswith("test_") or name.endswith("_test.py")
    common = "\n".join(f"- `{kind}`: {count} files" for kind, count in kinds.most_common(8))
    return (
        "# Coding Patterns & Conventions\n\n"
        f"- Files scanned: {total}\n- Test files: {tests}\n\n"
        f"Most common file types:\n\n{common}\n"
    )


def _dependencies(checkout: Path) -> str:
    parts = ["# Dependencies\n"]
    for name in MANIFESTS:
        path = checkout / name
        if path.exists():
            text = path.read_text(encoding="utf-8", errors="ignore")[:MANIFEST_CHARS].strip()
            parts += [f"## {name}\n", f"```text\n{text}\n```\n"]
    if len(parts) == 1:
        parts.append("No known dependency manifest was found.\n")
    return "\n".join(parts)
