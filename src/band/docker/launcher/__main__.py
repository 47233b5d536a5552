"""``python -m band.docker.launcher``."""

from __future__ import annotations

from band.docker.launcher.run import main

main()
