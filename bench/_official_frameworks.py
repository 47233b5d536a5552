"""band-sdk 6.0.1 running a framework adapter, for bench/adapters.py's side-by-side rows.

Our row runs in the framework's venv (``.venvs/<name>``, built by scripts/test-adapter);
band-sdk's row (``<framework>@band-sdk``) in an isolated venv under tests/compat/ with
band-sdk and that framework's extra, built as the compat suite builds its own
(tests/compat/isolated_venv.py). Both run the same bench/_adapter_agent.py builder.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.compat.compat_harness import SDK_VERSION
from tests.compat.isolated_venv import Unavailable, VenvSpec, clean_env, ensure_venv, venv_python

ROOT = Path(__file__).resolve().parents[1]
FRAMEWORK_SCRIPT = Path(__file__).with_name("_adapter_agent.py")
SUFFIX = "@band-sdk"

# band-sdk 6.0.1's extra per framework; its agno extra lacks the openai client Agno's
# OpenAI model needs, so that venv adds it.
OFFICIAL_REQUIREMENTS: dict[str, tuple[str, ...]] = {
    "crewai": (f"band-sdk[crewai]=={SDK_VERSION}",),
    "crewai-flow": (f"band-sdk[crewai]=={SDK_VERSION}",),
    "agno": (f"band-sdk[agno]=={SDK_VERSION}", "openai>=2"),
    "strands": (f"band-sdk[strands]=={SDK_VERSION}",),
}


def official_venv(framework: str) -> VenvSpec:
    extra = "crewai" if framework == "crewai-flow" else framework
    return VenvSpec(
        ROOT / "tests" / "compat" / f".venv-sdk-{extra}",
        OFFICIAL_REQUIREMENTS[framework],
        "band-sdk",
        SDK_VERSION,
        tag=f"bench-{extra}",
    )


@dataclass(frozen=True)
class FrameworkSpec:
    """One framework row: ours (``.venvs/<venv>``) or band-sdk's (``official``)."""

    framework: str
    venv: str  # our venv under .venvs/ (scripts/test-adapter builds it)
    modules: tuple[str, ...]
    official: bool = False
    ready_within: float = 120.0
    adapter_class: str | None = None  # read by bench/adapters.py's generic code; unused

    @property
    def label(self) -> str:
        return self.framework + (SUFFIX if self.official else "")

    @property
    def python(self) -> Path:
        if self.official:
            return venv_python(official_venv(self.framework).path)
        return ROOT / ".venvs" / self.venv / "bin" / "python"

    @property
    def script(self) -> Path:
        return FRAMEWORK_SCRIPT

    def unavailable(self, progress: Callable[[str], None]) -> str | None:
        """Why this row cannot run here (building band-sdk's venv first), or None."""
        if self.official:
            try:
                ensure_venv(official_venv(self.framework), progress)
            except (Unavailable, RuntimeError) as exc:
                return f"band-sdk venv: {str(exc).splitlines()[0]}"
        elif not self.python.exists():
            return f"venv not built (.venvs/{self.venv}: scripts/test-adapter {self.venv})"
        probe = f"import band, {', '.join(self.modules)}"
        found = subprocess.run(
            [str(self.python), "-c", probe], capture_output=True, text=True, env=clean_env()
        )
        if found.returncode != 0:
            return (found.stderr.strip().splitlines() or ["?"])[-1]
        return None


_OURS = {
    "crewai": ("crewai-strands", ("crewai",)),
    "crewai-flow": ("crewai-strands", ("crewai",)),
    "agno": ("agno", ("agno", "openai")),
    "strands": ("crewai-strands", ("strands",)),
}
FRAMEWORK_SPECS = {
    spec.label: spec
    for name, (venv, modules) in _OURS.items()
    for spec in (FrameworkSpec(name, venv, modules), FrameworkSpec(name, venv, modules, True))
}


def versus(runs: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Ours beside band-sdk per framework: turns/s and agent CPU/turn, both phases."""
    out = []
    for label, theirs in runs.items():
        if not label.endswith(SUFFIX) or label.removesuffix(SUFFIX) not in runs:
            continue
        ours = runs[label.removesuffix(SUFFIX)]
        row: dict[str, Any] = {"framework": label.removesuffix(SUFFIX)}
        for phase in ("one_room", "many_rooms"):
            a, b = ours[phase], theirs[phase]
            row[f"{phase}_turns_per_s"] = (a["turns_per_s"], b["turns_per_s"])
            row[f"{phase}_cpu_ms_per_turn"] = (a["cpu_ms_per_turn"], b["cpu_ms_per_turn"])
            row[f"{phase}_ok"] = (
                a["turns_per_s"] >= b["turns_per_s"]
                and a["cpu_ms_per_turn"] <= b["cpu_ms_per_turn"]
            )
        out.append(row)
    return out


def print_versus(rows: list[dict[str, Any]], rooms: int) -> None:
    if not rows:
        return
    print("\nours vs band-sdk 6.0.1, same framework, same run (t/s and CPU ms/turn):")
    print(
        f"{'framework':<12} | {'1rm t/s':>15} | {'1rm CPU ms':>15} | {f'{rooms}rm t/s':>15}"
        f" | {f'{rooms}rm CPU ms':>15} | ours >= band-sdk"
    )
    for r in rows:
        cells = [
            f"{r[k][0]} vs {r[k][1]}"
            for k in (
                "one_room_turns_per_s",
                "one_room_cpu_ms_per_turn",
                "many_rooms_turns_per_s",
                "many_rooms_cpu_ms_per_turn",
            )
        ]
        ok = "yes" if r["one_room_ok"] and r["many_rooms_ok"] else "NO"
        print(f"{r['framework']:<12} | " + " | ".join(f"{c:>15}" for c in cells) + f" | {ok}")
