// Messages as Markdown: markdown-it (CommonMark, GFM tables and strikethrough, task lists,
// fenced code highlighted by highlight.js), then DOMPurify with an allow-list of tags and
// attributes. Raw HTML in a message is never HTML (markdown-it's html option is off: it shows
// as text); links keep only http(s), mailto and same-site addresses and get
// rel="noopener noreferrer"; images show only from this site (a room's files), any other
// image is a link. @[[id]] mention tokens become @Name chips. The result is a DOM fragment
// appended to the container; CSP (no inline script or style) stays the last line of defence.
// Band.Markdown.render(container, content, names) where names = { of(id), me }.
(function () {
  "use strict";
  var Band = (window.Band = window.Band || {});
  var MENTION = /^@\[\[([0-9A-Za-z-]{1,64})\]\]/;
  var SAFE_HREF = /^(https?:|mailto:)/i;
  var TAGS = [
    "a", "blockquote", "br", "code", "del", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr",
    "img", "input", "li", "ol", "p", "pre", "s", "span", "strong", "table", "tbody", "td",
    "th", "thead", "tr", "ul",
  ];
  var ATTRS = ["alt", "checked", "class", "disabled", "href", "src", "start", "title", "type"];

  // A same-site address: a path ("/rooms/…"), a fragment or a query; never "//host".
  function sameSite(url) {
    return /^[/#?]/.test(url) && !/^[/\\]{2}/.test(url);
  }

  function linkAllowed(url) {
    var trimmed = String(url).trim();
    return SAFE_HREF.test(trimmed) || sameSite(trimmed);
  }

  // The inline rule for @[[id]]: before links, whose brackets it would otherwise start.
  function mentions(md) {
    md.inline.ruler.before("link", "band_mention", function (state, silent) {
      if (state.src.charCodeAt(state.pos) !== 0x40 /* @ */) return false;
      var match = MENTION.exec(state.src.slice(state.pos));
      if (!match) return false;
      if (!silent) state.push("band_mention", "", 0).meta = { id: match[1] };
      state.pos += match[0].length;
      return true;
    });
    md.renderer.rules.band_mention = function (tokens, idx, options, env) {
      var id = tokens[idx].meta.id;
      var name = (env.names && env.names.of(id)) || "someone";
      var mine = env.names && id === env.names.me ? " me" : "";
      return '<span class="mention' + mine + '" data-mention="' + md.utils.escapeHtml(id) + '">@' +
        md.utils.escapeHtml(name) + "</span>";
    };
  }

  // Table cells align by class (an inline style would break the style-src policy).
  function alignByClass(md) {
    md.core.ruler.push("band_align", function (state) {
      state.tokens.forEach(function (token) {
        if (token.type !== "th_open" && token.type !== "td_open") return;
        var style = token.attrGet("style");
        if (!style) return;
        var side = /text-align:\s*(left|right|center)/.exec(style);
        token.attrs = token.attrs.filter(function (a) { return a[0] !== "style"; });
        if (side) token.attrJoin("class", "align-" + side[1]);
      });
    });
  }

  // Images from elsewhere become links (the policy only allows this site's images).
  function foreignImagesAsLinks(md) {
    var image = md.renderer.rules.image;
    md.renderer.rules.image = function (tokens, idx, options, env, self) {
      var src = tokens[idx].attrGet("src") || "";
      if (sameSite(src)) return image(tokens, idx, options, env, self);
      var alt = self.renderInlineAsText(tokens[idx].children || [], options, env) || src;
      return '<a href="' + md.utils.escapeHtml(src) + '">' + md.utils.escapeHtml(alt) + "</a>";
    };
  }

  var md = null;
  function parser() {
    if (md) return md;
    md = window.markdownit({
      html: false,
      linkify: true,
      breaks: true,
      highlight: function (code, lang) {
        if (!lang || !window.hljs || !window.hljs.getLanguage(lang)) return "";
        try {
          return window.hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
        } catch (e) {
          return "";
        }
      },
    });
    md.validateLink = linkAllowed;
    md.use(mentions).use(alignByClass).use(foreignImagesAsLinks);
    if (window.markdownitTaskLists) md.use(window.markdownitTaskLists, { enabled: false });
    return md;
  }

  var ROOM_FILE = /^\/rooms\/[0-9A-Za-z-]{1,64}\/files\/[0-9A-Za-z-]{1,64}$/;
  var hooked = false;
  function hook(purify) {
    if (hooked) return;
    hooked = true;
    purify.addHook("afterSanitizeAttributes", function (node) {
      var name = node.nodeName;
      if (name === "A") {
        var href = node.getAttribute("href");
        if (href !== null && !(SAFE_HREF.test(href.trim()) || sameSite(href.trim()))) node.removeAttribute("href");
        node.setAttribute("rel", "noopener noreferrer");
      } else if (name === "IMG") {
        var src = node.getAttribute("src");
        if (!src || !sameSite(src.trim())) node.removeAttribute("src");
        // An image of the room's files shows as its server-made thumbnail.
        else if (ROOM_FILE.test(src.trim())) node.setAttribute("src", src.trim() + "/thumbnail");
      } else if (name === "INPUT") {
        if (node.getAttribute("type") !== "checkbox") node.remove();
        else node.setAttribute("disabled", "");
      }
    });
  }

  function render(container, content, names) {
    var purify = window.DOMPurify;
    if (!window.markdownit || !purify || !purify.isSupported) {
      container.textContent = String(content); // no renderer: the text as it is
      return container;
    }
    hook(purify);
    var html = parser().render(String(content), { names: names });
    var safe = purify.sanitize(html, {
      ALLOWED_TAGS: TAGS,
      ALLOWED_ATTR: ATTRS.concat(["data-mention"]),
      ALLOW_DATA_ATTR: false,
      ALLOW_ARIA_ATTR: false,
      // DOMPurify's own rule for values that may be addresses, with only http(s) and mailto
      // left of its schemes (the hook above then keeps links and images stricter still).
      ALLOWED_URI_REGEXP: /^(?:(?:https?|mailto):|[^a-z]|[a-z+.-]+(?:[^a-z+.\-:]|$))/i,
      RETURN_DOM_FRAGMENT: true,
    });
    container.classList.add("markdown");
    container.appendChild(safe);
    return container;
  }

  Band.Markdown = { render: render, linkAllowed: linkAllowed };
})();
