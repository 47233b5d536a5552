"""Fixtures of the coding-agent end-to-end tests (Codex, ACP): one ``band serve`` for the
whole session, Alice, a fresh room per test and the module's fake model endpoint. Framework
adapter folders bring their own ``alice`` (``framework_support.py``)."""

from __future__ import annotations

import importlib.util

from .band_serve import alice, band_serve, room
from .coding_e2e import anthropic_url, model_url

__all__ = ["alice", "anthropic_url", "band_serve", "model_url", "room"]

# The ACP client's modules need the ACP SDK to import, as band-sdk's do: a framework's own
# environment without the ``acp`` extra (Parlant's) does not collect the tests that drive ACP
# agents. The main environment has it, and runs them.
if importlib.util.find_spec("acp") is None:
    collect_ignore_glob = [
        "acp/*",
        "copilot_sdk/test_copilot_sdk_e2e.py",
        "test_coding_converters.py",
        "test_coding_examples.py",
        "test_coding_knobs.py",
    ]
