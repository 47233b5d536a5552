"""Messages render as Markdown (CommonMark, GFM tables, task lists, strikethrough, highlighted
code, mention chips), and nothing in a message runs script or breaks the page's
Content-Security-Policy: a corpus of XSS payloads (``xss_corpus``), some already in the room
when it opens (the catch-up path), the others arriving live over the socket."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, expect

from .browser_support import TIMEOUT_MS, Platform, Shots, new_room, post_as, sign_in
from .xss_corpus import PAYLOADS

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(240)]

WATCH = """
window.__hits = [];
window.xss = (n) => window.__hits.push("xss(" + n + ")");
document.addEventListener("securitypolicyviolation", (e) => {
  window.__hits.push("csp " + e.effectiveDirective + " " + (e.blockedURI || "inline"));
});
"""

# What the timeline may hold after rendering: no active element, no handler or style
# attribute, links only to http(s), mailto or this site, each with rel="noopener noreferrer".
AUDIT = """() => {
  const found = [];
  const root = document.getElementById("timeline");
  const banned = "script,iframe,object,embed,style,link,meta,base,form,button,textarea,select,"
    + "svg,math,template,noscript,video,audio,source,details,marquee,xmp,listing,title";
  root.querySelectorAll(banned).forEach((n) => found.push("element " + n.nodeName));
  root.querySelectorAll("*").forEach((n) => {
    for (const a of n.attributes) {
      const name = a.name.toLowerCase();
      if (name.startsWith("on") || ["style", "srcdoc", "formaction", "xlink:href", "action"]
          .includes(name)) found.push(n.nodeName + " @" + name);
    }
  });
  root.querySelectorAll(".body a").forEach((a) => {
    const href = a.getAttribute("href");
    if (href !== null && !/^(https?:|mailto:|#|\\?|\\/(?![\\/\\\\]))/i.test(href))
      found.push("a href " + href);
    if (a.getAttribute("rel") !== "noopener noreferrer") found.push("a rel " + a.rel);
  });
  root.querySelectorAll(".body img").forEach((i) => {
    const src = i.getAttribute("src");
    if (src !== null && !/^\\/(?![\\/\\\\])/.test(src)) found.push("img src " + src);
  });
  root.querySelectorAll(".body input").forEach((i) => {
    if (i.type !== "checkbox" || !i.disabled) found.push("input " + i.type);
  });
  return found;
}"""

FEATURES = """# Release notes
Some **bold**, _emphasis_, ~~gone~~ and `inline code`.

| Step | Owner | Done |
|:-----|:-----:|-----:|
| Plan | @[[{me}]] | yes |

- [x] write the plan
- [ ] ship it

```python
def greet(name):
    return f"hello {{name}}"
```

See [the docs](https://docs.example/guide), https://example.org/faq, not [this](javascript:1).
<b>raw html stays text</b>"""


@pytest_asyncio.fixture(loop_scope="session")
async def watched(browser: Browser) -> AsyncIterator[tuple[Page, list[str]]]:
    """A page that records every dialog (``alert``) and, through ``WATCH``, every ``xss()``
    call and Content-Security-Policy violation."""
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    await context.add_init_script(WATCH)
    tab = await context.new_page()
    dialogs: list[str] = []

    async def dismiss(dialog: Any) -> None:
        dialogs.append(f"{dialog.type}: {dialog.message}")
        await dialog.dismiss()

    tab.on("dialog", dismiss)
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        yield tab, dialogs
    finally:
        await context.close()
    assert not errors, f"the page raised: {errors}"


async def hits(page: Page, dialogs: list[str]) -> list[str]:
    await page.wait_for_timeout(700)  # error and load events fire after the rows are drawn
    return dialogs + list(await page.evaluate("window.__hits"))


async def test_markdown_renders_tables_tasks_code_links_and_mentions(
    watched: tuple[Page, list[str]], band: Platform, shots: Shots
) -> None:
    page, dialogs = watched
    key = await band.add_person("Ada Markdown", "ada_md")
    room = await new_room(band.url, key, "Markdown")
    await sign_in(page, band.url, key)
    await page.goto(f"{band.url}/rooms/{room}")
    await expect(page.locator("#live-status")).to_have_text("Live")
    me = await page.locator("#room").get_attribute("data-me")
    await post_as(band.url, key, room, FEATURES.format(me=me))

    body = page.locator("#timeline li.msg.text .body")
    await expect(body.get_by_role("heading", name="Release notes")).to_be_visible()
    await expect(body.locator("strong")).to_have_text("bold")
    await expect(body.locator("s, del")).to_have_text("gone")
    table = body.get_by_role("table")
    await expect(table.get_by_role("columnheader")).to_have_text(["Step", "Owner", "Done"])
    await expect(table.locator("th.align-center")).to_have_text("Owner")
    await expect(table.locator("td.align-right")).to_have_text("yes")
    chip = table.locator(".mention.me")
    await expect(chip).to_have_text("@Ada Markdown")
    boxes = body.get_by_role("checkbox")
    await expect(boxes).to_have_count(2)
    assert [await b.is_checked() for b in await boxes.all()] == [True, False]
    assert all([await b.is_disabled() for b in await boxes.all()])
    code = body.locator("pre code.language-python")
    await expect(code.locator(".hljs-keyword").first).to_have_text("def")
    docs = body.get_by_role("link", name="the docs")
    await expect(docs).to_have_attribute("href", "https://docs.example/guide")
    await expect(docs).to_have_attribute("rel", "noopener noreferrer")
    await expect(body.get_by_role("link", name="https://example.org/faq")).to_have_attribute(
        "rel", "noopener noreferrer"
    )
    assert await body.get_by_role("link", name="this").count() == 0  # javascript: stays text
    await expect(body).to_contain_text("<b>raw html stays text</b>")
    assert await page.evaluate(AUDIT) == []
    assert await hits(page, dialogs) == []
    await shots.take(page, "markdown-rendered")


async def test_no_xss_payload_runs_script_or_breaks_the_policy(
    watched: tuple[Page, list[str]], band: Platform, shots: Shots
) -> None:
    assert len(PAYLOADS) >= 100
    page, dialogs = watched
    key = await band.add_person("Eve Corpus", "eve_corpus")
    stored = await new_room(band.url, key, "Corpus stored")
    live = await new_room(band.url, key, "Corpus live")
    await sign_in(page, band.url, key)
    await page.goto(f"{band.url}/rooms/{live}")  # where the page says who the reader is
    me = str(await page.locator("#room").get_attribute("data-me"))
    half = len(PAYLOADS) // 2
    for payload in PAYLOADS[:half]:  # in the room before it opens: the catch-up renders them
        await post_as(band.url, key, stored, payload.replace("{me}", me))

    await page.goto(f"{band.url}/rooms/{stored}")
    rows = page.locator("#timeline li.msg.text")
    await expect(rows).to_have_count(half)
    assert await page.evaluate(AUDIT) == []
    assert await hits(page, dialogs) == []
    await shots.take(page, "corpus-stored", full_page=True)

    await page.goto(f"{band.url}/rooms/{live}")
    await expect(page.locator("#live-status")).to_have_text("Live")
    for payload in PAYLOADS[half:]:  # each arrives over the socket while the room is open
        await post_as(band.url, key, live, payload.replace("{me}", me))
    await expect(rows).to_have_count(len(PAYLOADS) - half)
    for row in (await rows.all())[:3]:
        await row.hover()
    assert await page.evaluate(AUDIT) == []
    assert await hits(page, dialogs) == []
    policy = (await page.request.get(f"{band.url}/rooms/{live}")).headers["content-security-policy"]
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    await shots.take(page, "corpus-live")
