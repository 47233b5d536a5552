"""``python -m band.cli``: the ``band`` console script."""

from band.cli import main

raise SystemExit(main())
