"""Browser tests: one Chromium per session, a shared platform, screenshots per test.

Every page a test opens is watched for Content-Security-Policy violations (the
``securitypolicyviolation`` events, and Chromium's "Refused to ..." console errors): a test
whose pages report one fails, as it does when a page raises."""

from __future__ import annotations

import importlib.util
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from .browser_support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    FILE_LIMIT,
    SCREENSHOTS,
    TIMEOUT_MS,
    Platform,
    ServerChild,
    Shots,
    bootstrap,
)

if importlib.util.find_spec("playwright") is None:
    pytest.skip(
        "playwright is not installed (pip install -e '.[browser]')", allow_module_level=True
    )
if not CHROMIUM.exists():
    pytest.skip(
        f"{CHROMIUM} is missing (scripts/test installs chromium with apt)", allow_module_level=True
    )

from playwright.async_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    async_playwright,
    expect,
)

# Assertions wait as long as actions do (Playwright's own default is 5 s): on a loaded 2-core
# machine a live update can take longer to show, and a condition met early returns at once.
expect.set_options(timeout=TIMEOUT_MS)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if SCREENSHOTS.exists() and any(SCREENSHOTS.iterdir()):
        terminalreporter.write_line(f"browser screenshots: {SCREENSHOTS}")


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as pw:
        chromium = await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            await chromium.close()


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def band(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Platform]:
    """One server for the tests that do not restart it (each uses its own people)."""
    base = tmp_path_factory.mktemp("browser-platform")
    server = ServerChild(base / "data", base / "logs", env={"BAND_MAX_FILE_BYTES": str(FILE_LIMIT)})
    try:
        yield Platform(server, await bootstrap(server))
    finally:
        server.stop()


@pytest.fixture
def shots(request: pytest.FixtureRequest) -> Shots:
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", request.node.name)
    folder = SCREENSHOTS / name
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.png"):
        old.unlink()
    print(f"screenshots of {request.node.name}: {folder}")
    return Shots(folder)


CSP_WATCH = """
document.addEventListener("securitypolicyviolation", (e) => {
  const where = `${e.sourceFile || location.pathname}:${e.lineNumber}`;
  const what = e.blockedURI || "inline";
  window.__bandCspViolation(`${e.effectiveDirective} blocked ${what} at ${where}`);
});
"""


@pytest.fixture
def csp_violations() -> list[str]:
    """The Content-Security-Policy violations the test's pages reported (``page`` fails the
    test on any; a test that provokes one on purpose clears the list)."""
    return []


@pytest_asyncio.fixture(loop_scope="session")
async def context(browser: Browser, csp_violations: list[str]) -> AsyncIterator[BrowserContext]:
    ctx = await browser.new_context(viewport={"width": 1280, "height": 820})
    ctx.set_default_timeout(TIMEOUT_MS)

    def report(violation: str) -> None:
        csp_violations.append(violation)

    await ctx.expose_function("__bandCspViolation", report)
    await ctx.add_init_script(CSP_WATCH)
    try:
        yield ctx
    finally:
        await ctx.close()


@pytest_asyncio.fixture(loop_scope="session")
async def page(context: BrowserContext, csp_violations: list[str]) -> AsyncIterator[Page]:
    tab = await context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))

    def console(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text:
            csp_violations.append(message.text)

    tab.on("console", console)
    yield tab
    assert not errors, f"the page raised: {errors}"
    assert not csp_violations, f"the pages broke their Content-Security-Policy: {csp_violations}"
