"""Builds the compat suite's isolated venvs before the test groups start in parallel.

`python -m tests.compat.build_envs` (run by `scripts/test`) builds or reuses
`tests/compat/.venv` (band-sdk 6.0.1) and `tests/compat/.venv-rest-<version>` (both
band-client-rest versions), one venv per thread. More than one test group uses the band-sdk
venv, so it is built here once rather than by whichever group asks first. When PyPI cannot be
reached it says so and exits 0: the tests that need the venv skip with that reason.
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor

from .compat_harness import SDK_VENV
from .isolated_venv import Unavailable, VenvSpec, ensure_venv
from .test_rest_client import VERSIONS, rest_venv


def build(spec: VenvSpec) -> str:
    def progress(line: str) -> None:
        print(f"[compat envs] {line}", flush=True)

    try:
        ensure_venv(spec, progress)
    except Unavailable as exc:
        return f"SKIPPED: {spec.path.name}: {exc}"
    return ""


def main() -> int:
    specs = [SDK_VENV, *(rest_venv(version) for version in VERSIONS)]
    with ThreadPoolExecutor(max_workers=len(specs)) as pool:
        problems = [p for p in pool.map(build, specs) if p]
    for problem in problems:
        print(problem, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
