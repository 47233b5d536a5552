"""band-sdk 6.0.1's whole module layout, generated from the package, holds on our ``band``.

At collection, ``layout/upstream_layout.py`` runs inside the band-sdk venv
(``tests/compat/.venv``) and writes every public module of band-sdk with the names it exports
and their facts (kind, ``inspect.signature`` parameters with kinds and defaults, enum members,
constant values). One test per module then imports our module of the same path and compares
every name (``layout/compare.py``). The list is generated, so it cannot drift from the package.

A module band-sdk imports only with an optional extra must, where that extra's framework is
absent, fail like band-sdk's does with our install hint (``pip install 'openband[<extra>]'``);
its names are then checked in the environment that has the framework (``scripts/test-adapter``
runs this file with ``-k <extra>``: test ids carry the extra).

``PENDING`` lists the modules (and single names) of adapters other issues are building; each
is expected to fail until built, and the test fails once it passes, so the list only shrinks.
``ALLOWED`` is the allow-list (at most 2% of the names), each entry with its reason.
"""

from __future__ import annotations

from typing import Any

import pytest

from .compat_harness import VENV_DIR, CompatUnavailable, ensure_compat_venv
from .layout.compare import check_module, extra_of, generate

# Adapters being built under other issues: "module" (and everything under it) or "module:Name",
# each with the issue that builds it. Empty: every adapter band-sdk 6.0.1 ships is built.
PENDING: dict[str, str] = {}

# Names we do not provide as band-sdk does, each with the reason; at most 2% of band-sdk's
# names. "module:Name" is one name; a bare "module" is the whole module (all its names count).
_OWN_PROSE = (
    "prompt prose is written in our own words (band-sdk's may not be copied), so the text "
    "differs by design; the template names and where the text goes are the same"
)
ALLOWED: dict[str, str] = {
    "band:CHATTY_LOGGERS": (
        "the value names the third-party loggers to quiet; band-sdk's socket library is "
        "phoenix_channels_python_client, ours is websockets"
    ),
    "band.runtime:BASE_INSTRUCTIONS": _OWN_PROSE,
    "band.runtime:TEMPLATES": _OWN_PROSE,
    "band.integrations.copilot_sdk:ROOM_ASK_USER_GUIDANCE": _OWN_PROSE,
    "band.integrations.copilot_sdk:QUESTION_DELIVERED_ANSWER": _OWN_PROSE,
    **dict.fromkeys(
        [
            "band.integrations.copilot_sdk:NO_ANSWER_TEXT",
            "band.integrations.copilot_sdk:UNAVAILABLE_TEXT",
        ],
        "the operator console's answers to the model (no answer in time; no operator) are "
        "written in our own words (band-sdk's may not be copied); when each is given is the same",
    ),
    # Band's own turn-completion guidance (band.runtime.prompts), re-exported: it tells the
    # model to end each turn with band_send_message or band_no_reply, as our prompts do.
    "band.integrations.copilot_sdk:TURN_COMPLETION_GUIDANCE": _OWN_PROSE,
    "band.integrations.copilot_sdk.prompts:TURN_COMPLETION_GUIDANCE": _OWN_PROSE,
    "band.integrations.opencode:UNKNOWN_OPENCODE_ERROR": (
        "the message shown when OpenCode reports an error without details is written in "
        "our own words (band-sdk's text may not be copied)"
    ),
    "band.converters.langchain:PendingToolCall": (
        "internal pairing record of band-sdk's LangChain converter; ours pairs tool calls "
        "and results once for every converter (band.converters.tool_history)"
    ),
    "band.converters.langchain:LangChainParsedToolResult": (
        "internal pairing record of band-sdk's LangChain converter; ours pairs tool calls "
        "and results once for every converter (band.converters.tool_history)"
    ),
    "band.integrations.codex.winspawn": (
        "Windows-only: spawns the Codex CLI inside a Windows job object through ctypes; we "
        "support the Codex adapter on Linux and macOS and cannot build or test this here"
    ),
    "band.integrations.codex.winmain": (
        "Windows-only: the entry point of the job-object spawner above (no names of its own)"
    ),
}
ALLOWED_SHARE = 0.02

# What this issue (33) has not built yet, by area: xfailed like PENDING and, like it, a
# failure once an entry matches, so the list only shrinks. Empty: nothing is left.
REMAINING: dict[str, str] = {}


def _pending_reason(module: str, name: str | None = None) -> str | None:
    for key, reason in {**PENDING, **REMAINING}.items():
        path, _, single = key.partition(":")
        if single and (module != path or name != single):
            continue
        if not single and name is None and (module == path or module.startswith(path + ".")):
            return reason
        if single and name == single:
            return reason
    return None


def _layout() -> dict[str, Any]:
    try:
        python = ensure_compat_venv(lambda line: print(f"[compat] {line}", flush=True))
    except CompatUnavailable as exc:
        pytest.skip(f"official band-sdk unavailable: {exc}", allow_module_level=True)
    return generate(python, VENV_DIR)


LAYOUT = _layout()


def _test_id(module: str) -> str:
    extra = extra_of(module, LAYOUT[module])
    return f"{module}+{extra}" if extra else module


def test_the_layout_is_band_sdk_6_0_1s_whole_public_surface() -> None:
    """The generator found what the issue counted: 313 public modules, 1,686 names."""
    assert len(LAYOUT) == 313
    assert sum(len(entry["names"]) for entry in LAYOUT.values()) == 1686


def _allowed_names() -> set[tuple[str, str]]:
    names: set[tuple[str, str]] = set()
    for key in ALLOWED:
        module, _, name = key.partition(":")
        names |= {(module, name)} if name else {(module, n) for n in LAYOUT[module]["names"]}
    return names


def test_the_allow_list_is_short_and_every_entry_says_why() -> None:
    total = sum(len(entry["names"]) for entry in LAYOUT.values())
    assert len(_allowed_names()) <= ALLOWED_SHARE * total
    for key, reason in ALLOWED.items():
        module, _, name = key.partition(":")
        assert module in LAYOUT, f"{key} is not a band-sdk module"
        assert not name or name in LAYOUT[module]["names"], f"{key} is not a band-sdk name"
        assert len(reason.split()) >= 4, f"{key}: say why"


def test_pending_entries_name_modules_and_names_band_sdk_has() -> None:
    for key in {**PENDING, **REMAINING}:
        module, _, name = key.partition(":")
        known = any(m == module or m.startswith(module + ".") for m in LAYOUT)
        assert known, f"{key} is no band-sdk module"
        assert not name or name in LAYOUT[module]["names"], f"{key} is no band-sdk name"


@pytest.mark.parametrize("module", sorted(LAYOUT), ids=_test_id)
def test_module_imports_and_defines_band_sdks_names(module: str) -> None:
    entry = LAYOUT[module]
    if module in ALLOWED:
        pytest.skip(f"allowed: {ALLOWED[module]}")
    allowed = {name for m, name in _allowed_names() if m == module}
    pending_names = {n for n in entry["names"] if _pending_reason(module, n)}
    check = check_module(module, entry, allowed | pending_names)
    module_pending = _pending_reason(module)
    if check.skipped:
        pytest.skip(check.skipped)
    if module_pending:
        if check.problems:
            pytest.xfail(f"pending, {module_pending}")
        pytest.fail(f"{module} now matches band-sdk: remove it from PENDING ({module_pending})")
    for name in sorted(pending_names):
        # A pending name that now resolves and matches is no longer pending.
        solo = check_module(module, {**entry, "names": {name: entry["names"][name]}}, set())
        assert solo.problems, f"{module}:{name} now matches band-sdk: remove it from PENDING"
    report = "\n".join(f"  {name}: {'; '.join(p)}" for name, p in sorted(check.problems.items()))
    assert not check.problems, f"{module} differs from band-sdk 6.0.1:\n{report}"
