"""Our ``band`` against band-sdk 6.0.1's generated layout: what matches, what does not.

``generate`` runs ``upstream_layout.py`` in the band-sdk venv (cached beside that venv, keyed
by the generator's own source) and returns the layout. ``check_module`` imports one of our
modules and lists every difference from upstream's entry for it: a missing name, another
kind, other parameter names, kinds or defaults, other enum members or constant values, and,
for a module that needs an optional extra, an import failure without our install hint.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import subprocess
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .describe import describe

HERE = Path(__file__).resolve().parent

# The library a module of band-sdk fails to import without -> the extra that installs it.
# The extras are named as band-sdk names them; ours are spelled the same.
EXTRA_OF_LIBRARY = {
    "a2a": "a2a",
    "acp": "acp",
    "agno": "agno",
    "anthropic": "anthropic",
    "claude_agent_sdk": "claude_sdk",
    "google": "gemini",
    "langchain_core": "langgraph",
    "langgraph": "langgraph",
    "letta_client": "letta",
    "nooa": "nooa",
    "parlant": "parlant",
    "pydantic_ai": "pydantic-ai",
    "slack_sdk": "slack",
    "starlette": "slack",
    "strands": "strands",
    "uvicorn": "acp",
}
# A module's own extra where the library alone does not say it (mcp serves several extras).
EXTRA_OF_MODULE_PREFIX = {
    "band.integrations.desktop_app": "desktop",
    "band.adapters.claude_sdk": "claude_sdk",
    "band.adapters.letta": "letta",
    "band.integrations.letta": "letta",
    "band.adapters.opencode": "opencode",
    "band.adapters.slack": "slack",
    "band.integrations.slack": "slack",
    "band.adapters.a2a_gateway": "a2a_gateway",
    "band.integrations.a2a.gateway": "a2a_gateway",
    "band.runtime.mcp_server": "desktop",
    "band.integrations.mcp": "desktop",
    "band.integrations.uvicorn_server": "acp",
    "band.adapters.gemini": "gemini",
    "band.converters.gemini": "gemini",
    "band.adapters.strands": "strands",
    "band.converters.strands": "strands",
    "band.testing.strands": "strands",
    "band.converters.langchain": "langgraph",
    "band.converters.pydantic_ai": "pydantic-ai",
    "band.converters.agno": "agno",
}
# The top-level module each extra's framework imports as (to tell "absent here" apart).
FRAMEWORK_OF_EXTRA = {
    "a2a": "a2a",
    "a2a_gateway": "a2a",
    "acp": "acp",
    "agno": "agno",
    "anthropic": "anthropic",
    "claude_sdk": "claude_agent_sdk",
    "crewai": "crewai",
    "desktop": "mcp",
    "gemini": "google.genai",
    "google_adk": "google.adk",
    "langgraph": "langgraph",
    "letta": "letta_client",
    "nooa": "nooa",
    "opencode": "mcp",
    "parlant": "parlant",
    "pydantic-ai": "pydantic_ai",
    "slack": "slack_sdk",
    "strands": "strands",
}


def installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:  # a dotted name whose parent package is absent
        return False


def extra_of(module: str, entry: dict[str, Any]) -> str | None:
    """The extra band-sdk needs for ``module`` to import, or None when it imports bare."""
    failure = entry.get("without_extra")
    if not failure:
        return None
    for prefix, extra in EXTRA_OF_MODULE_PREFIX.items():
        if module == prefix or module.startswith(prefix + "."):
            return extra
    missing = str(failure.get("missing") or "").split(".")[0]
    return EXTRA_OF_LIBRARY.get(missing, missing or "unknown")


def install_hint(extra: str) -> str:
    return f"pip install 'openband[{extra}]'"


def generate(compat_python: Path, cache_dir: Path) -> dict[str, Any]:
    """band-sdk's layout, generated in its venv (cached while the generator is unchanged)."""
    digest = hashlib.sha256()
    for name in ("upstream_layout.py", "describe.py"):
        digest.update((HERE / name).read_bytes())
    digest.update(str(compat_python.resolve()).encode())
    cache = cache_dir / f"band-layout-{digest.hexdigest()[:16]}.json"
    if not cache.exists():
        scratch = cache.with_suffix(f".{os.getpid()}.tmp")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "BAND_"))}
        subprocess.run(
            [str(compat_python), str(HERE / "upstream_layout.py"), str(scratch)],
            check=True,
            timeout=600,
            env=env,
            cwd=str(cache_dir),
        )
        scratch.replace(cache)
    data: dict[str, Any] = json.loads(cache.read_text(encoding="utf-8"))
    return data


def _same_default(theirs: Any, ours: Any) -> bool:
    if theirs == {"stub": True}:
        return True
    return bool(theirs == ours)


def compare_names(theirs: dict[str, Any], ours: dict[str, Any]) -> list[str]:
    """The differences between two descriptions of one name (empty when they match)."""
    if theirs["kind"] in {"stub", "unknown"}:
        return []
    if theirs["kind"] != ours["kind"]:
        return [f"is a {ours['kind']}, band-sdk's is a {theirs['kind']}"]
    problems: list[str] = []
    if theirs["kind"] == "enum" and theirs["members"] != ours["members"]:
        problems.append(f"members {ours['members']} != band-sdk's {theirs['members']}")
    if theirs["kind"] == "constant":
        plain = not (isinstance(theirs["value"], dict) and "object" in theirs["value"])
        if plain and theirs["value"] != ours["value"]:
            problems.append(f"value {ours['value']!r} != band-sdk's {theirs['value']!r}")
        elif not plain and theirs["type"] != ours["type"]:
            problems.append(f"a {ours['type']}, band-sdk's is a {theirs['type']}")
    if theirs["kind"] == "function" and theirs["async"] != ours["async"]:
        problems.append("async" if ours["async"] else "not async, band-sdk's is async")
    if theirs.get("keys") is not None and theirs.get("keys") != ours.get("keys"):
        problems.append(f"keys {ours.get('keys')} != band-sdk's {theirs['keys']}")
    problems.extend(_compare_signatures(theirs.get("signature"), ours.get("signature")))
    return problems


def _protocol_init(params: list[dict[str, Any]]) -> bool:
    kinds = [(p["name"], p["kind"]) for p in params]
    return kinds == [("args", "VAR_POSITIONAL"), ("kwargs", "VAR_KEYWORD")]


def _compare_signatures(theirs: list[dict[str, Any]] | None, ours: Any) -> list[str]:
    """Positional parameters in order, keyword-only ones by name, each with its default.

    Parameters named ``_*`` are left out on both sides (pydantic-settings' private knobs,
    which move between its versions). Ours may add keyword-only parameters that have a
    default (a seam such as a transport): every call written for band-sdk binds the same.
    """
    if theirs is None:
        return []
    if ours is None:
        return ["has no signature, band-sdk's has one"]
    theirs = [p for p in theirs if not p["name"].startswith("_")]
    ours = [p for p in ours if not p["name"].startswith("_")]
    if _protocol_init(theirs) and (not ours or _protocol_init(ours)):
        # A class deriving from a typing.Protocol without an __init__ of its own reads as
        # (*args, **kwargs) until its first instance, () after: both take no arguments.
        return []

    def positional(params: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [p for p in params if p["kind"] != "KEYWORD_ONLY"]

    def text(params: list[dict[str, Any]]) -> str:
        return ", ".join(f"{p['name']}:{p['kind'][:3].lower()}" for p in params)

    problems: list[str] = []
    their_pos, our_pos = positional(theirs), positional(ours)
    if [(p["name"], p["kind"]) for p in their_pos] != [(p["name"], p["kind"]) for p in our_pos]:
        problems.append(f"parameters ({text(our_pos)}) != band-sdk's ({text(their_pos)})")
        their_pos = our_pos = []
    their_kw = {p["name"]: p for p in theirs if p["kind"] == "KEYWORD_ONLY"}
    our_kw = {p["name"]: p for p in ours if p["kind"] == "KEYWORD_ONLY"}
    missing = sorted(set(their_kw) - set(our_kw))
    if missing:
        problems.append(f"lacks keyword-only {', '.join(missing)}")
    required = sorted(n for n in set(our_kw) - set(their_kw) if "default" not in our_kw[n])
    if required:
        problems.append(f"requires keyword-only {', '.join(required)} that band-sdk has not")
    pairs = list(zip(their_pos, our_pos, strict=True))
    pairs += [(their_kw[n], our_kw[n]) for n in sorted(set(their_kw) & set(our_kw))]
    for t, o in pairs:
        if ("default" in t) != ("default" in o) or (
            "default" in t and not _same_default(t["default"], o["default"])
        ):
            problems.append(
                f"default of {t['name']} is {o.get('default', '<none>')!r},"
                f" band-sdk's is {t.get('default', '<none>')!r}"
            )
    return problems


@dataclass
class ModuleCheck:
    """One module's outcome: imported or not, and each name's problems."""

    module: str
    extra: str | None
    imported: bool = False
    skipped: str = ""  # why names were not checked here (the extra is not installed)
    problems: dict[str, list[str]] = field(default_factory=dict)
    matched: list[str] = field(default_factory=list)


def check_module(module: str, entry: dict[str, Any], allowed: set[str]) -> ModuleCheck:
    """Import our ``module`` and compare every name band-sdk exports from it."""
    result = ModuleCheck(module, extra_of(module, entry))
    try:
        with warnings.catch_warnings():
            # A framework's own deprecation or import warnings (pydantic's, CrewAI's) on
            # first import say nothing about our layout.
            warnings.simplefilter("ignore", DeprecationWarning)
            warnings.simplefilter("ignore", ImportWarning)
            ours = importlib.import_module(module)
    except ImportError as exc:
        framework = FRAMEWORK_OF_EXTRA.get(result.extra or "")
        absent = framework is not None and not installed(framework)
        hint = install_hint(result.extra) if result.extra else None
        if absent and hint and hint in str(exc):
            result.skipped = f"{result.extra} is not installed here; fails with {hint}"
            return result
        result.problems["<import>"] = [f"{type(exc).__name__}: {exc}"]
        return result
    except Exception as exc:
        result.problems["<import>"] = [f"{type(exc).__name__}: {exc}"]
        return result
    result.imported = True
    for name, theirs in entry["names"].items():
        if name in allowed:
            continue
        try:
            value = getattr(ours, name)
        except ImportError as exc:
            result.problems[name] = [f"fails to resolve: {exc}"]
            continue
        except AttributeError:
            result.problems[name] = ["missing"]
            continue
        found = compare_names(theirs, describe(value))
        if found:
            result.problems[name] = found
        else:
            result.matched.append(name)
    return result


def main() -> int:
    """``python -m tests.compat.layout.compare``: the counts, module by module."""
    root = HERE.parents[2]
    layout = generate(root / "tests/compat/.venv/bin/python", root / "tests/compat/.venv")
    sys.path.insert(0, str(root / "src"))
    total_names = sum(len(e["names"]) for e in layout.values())
    present = names = 0
    for module, entry in layout.items():
        check = check_module(module, entry, set())
        ok = check.imported or bool(check.skipped)
        present += ok
        names += len(check.matched)
        if check.problems and "-q" not in sys.argv:
            missing = sorted(check.problems)
            print(f"{module}: {len(missing)} of {len(entry['names'])}: {', '.join(missing)}")
    print(f"modules present {present} / {len(layout)}; names matching {names} / {total_names}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
