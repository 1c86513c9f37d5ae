"""The HTML report's one stylesheet and one script, fixed text, and the Content-Security-Policy that
lets exactly these two run (by their SHA-256 hashes) and nothing else: no network, no other script,
no inline handler, no plugin, no form. Nothing of a report is ever put inside them; the script reads
what it needs from the page (``data-*`` attributes the reporter writes), so their hashes never change.
"""

from __future__ import annotations

import base64
import hashlib

__all__ = ["CSP", "SCRIPT", "STYLE"]

STYLE = """
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#fff;--soft:#f6f8fa;--bad:#cf222e;--badbg:#ffebe9;
--warn:#9a6700;--warnbg:#fff8c5;--good:#1a7f37;--goodbg:#dafbe1;--info:#0969da;--infobg:#ddf4ff;
color-scheme:light}
*{box-sizing:border-box}
[hidden]{display:none!important}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;
color:var(--fg);background:var(--bg)}
header,main,footer{max-width:72rem;margin:0 auto;padding:0 1rem}
header{padding-top:1rem}
h1{font-size:1.5rem;margin:.5rem 0}h2{font-size:1.2rem;margin:1.5rem 0 .5rem;border-bottom:1px solid var(--line)}
h3{font-size:1rem;margin:1rem 0 .4rem}
code,.url,.cid{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
a{color:var(--info)}
.url,.cid,.answer,.diff,td,li,p{overflow-wrap:anywhere}
.verdict{border-left:6px solid var(--muted);padding:.25rem 0 .25rem .75rem}
.v-fail{border-color:var(--bad)}.v-pass{border-color:var(--good)}.v-inconclusive{border-color:var(--warn)}
.meta{color:var(--muted);margin:.25rem 0}
.reason{font-weight:600;font-size:1.05rem;margin:.75rem 0 .25rem}
#why details{margin:.25rem 0}#why summary{cursor:pointer;color:var(--muted)}ul.notes{margin:.25rem 0}
.failures{list-style:none;padding:0;margin:0}
.failures li{border:1px solid var(--line);border-radius:6px;padding:.5rem .75rem;margin:.4rem 0}
.failures li.new{border-left:4px solid var(--bad)}
.sentence{margin:.35rem 0;padding:.25rem .6rem;border-left:3px solid var(--line);background:var(--soft)}
.tag,.badge{display:inline-block;font-size:.75rem;line-height:1.2;padding:.1rem .45rem;border-radius:1rem;
border:1px solid var(--line);background:var(--soft);white-space:nowrap}
.badge.fail,.tag.new,.tag.rejected{background:var(--badbg);border-color:var(--bad);color:var(--bad)}
.badge.pass{background:var(--goodbg);border-color:var(--good);color:var(--good)}
.tag.changed{background:var(--warnbg);border-color:var(--warn);color:var(--warn)}
.tag.known{color:var(--muted)}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:.5rem 0;font-size:.9rem}
th,td{border:1px solid var(--line);padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:var(--soft)}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.filters{position:sticky;top:0;z-index:1;background:var(--bg);padding:.5rem 0;display:flex;flex-wrap:wrap;
gap:.4rem;align-items:center;border-bottom:1px solid var(--line)}
.filters button{font:inherit;font-size:.9rem;padding:.25rem .7rem;border:1px solid var(--line);
border-radius:1rem;background:var(--soft);color:var(--fg);cursor:pointer}
.filters button[aria-pressed=true]{background:var(--fg);color:var(--bg);border-color:var(--fg)}
.filters input{font:inherit;font-size:.9rem;padding:.25rem .5rem;border:1px solid var(--line);border-radius:6px;
min-width:0;flex:1 1 12rem}
.filters output{color:var(--muted);font-size:.85rem}
:focus-visible{outline:3px solid var(--info);outline-offset:2px}
details.case{border:1px solid var(--line);border-radius:6px;margin:.5rem 0;scroll-margin-top:4.5rem;
content-visibility:auto;contain-intrinsic-size:auto 2.6rem}
details.case>summary{cursor:pointer;padding:.5rem .75rem;display:flex;flex-wrap:wrap;gap:.4rem;
align-items:center}
details.case[open]>summary{border-bottom:1px solid var(--line);background:var(--soft)}
.case .body{padding:.25rem .75rem .75rem}
.question{font-style:italic}
.charts{display:flex;flex-wrap:wrap;gap:1rem;align-items:flex-start}
svg.axes{max-width:100%;height:auto}svg.axes text{font:12px system-ui,sans-serif;fill:var(--fg)}
svg.axes .track{fill:var(--soft);stroke:var(--line)}svg.axes .bar{fill:var(--info)}
svg.axes .bar.worse{fill:var(--bad)}svg.axes .bar.better{fill:var(--good)}
svg.axes .base{stroke:var(--fg);stroke-width:2}svg.axes .none{fill:var(--muted)}
svg.mini .track{fill:#e6eaef}svg.mini .bar{fill:var(--info)}svg.mini .bar.worse{fill:var(--bad)}
svg.mini .bar.better{fill:var(--good)}
.why{margin:0;font-size:.85rem;color:var(--muted)}
.answer,.diff{white-space:pre-wrap;border:1px solid var(--line);border-radius:6px;padding:.6rem .75rem;
background:var(--soft);font-size:.9rem}
.m{border-radius:3px;padding:0 .1rem}
.m.fabricated,.m.unresolved{background:var(--badbg);outline:1px solid var(--bad)}
.m.unread,.m.quote_missing,.m.drifted{background:var(--warnbg);outline:1px solid var(--warn)}
.m.quote_found,.m.read{background:var(--goodbg)}.m.not_read{background:var(--soft);outline:1px dashed var(--muted)}
.ml{font-size:.7rem;font-weight:600;vertical-align:super;margin-left:.1rem;white-space:nowrap}
.ml.fabricated,.ml.unresolved{color:var(--bad)}.ml.unread,.ml.quote_missing,.ml.drifted{color:var(--warn)}
.ml.quote_found,.ml.read{color:var(--good)}.ml.not_read{color:var(--muted)}
.v-supported{color:var(--good)}.v-partial{color:var(--warn)}.v-unsupported,.v-contradicted{color:var(--bad)}
.v-unscored{color:var(--muted)}td[class^=v-]{white-space:nowrap}
.inpage{color:var(--muted)}.inpage mark{background:var(--goodbg);color:var(--fg)}
del{background:var(--badbg);text-decoration:line-through}ins{background:var(--goodbg);text-decoration:none}
.legend{display:flex;flex-wrap:wrap;gap:.5rem;font-size:.85rem}
footer{color:var(--muted);font-size:.85rem;padding-bottom:2rem}
@media (max-width:600px){body{font-size:14px}header,main,footer{padding:0 .6rem}h1{font-size:1.25rem}}
""".strip()

SCRIPT = """
(function () {
  "use strict";
  var bar = document.getElementById("filters");
  if (!bar) { return; }
  bar.hidden = false;
  var cases = Array.prototype.slice.call(document.querySelectorAll("details.case"));
  var buttons = Array.prototype.slice.call(bar.querySelectorAll("button[data-filter]"));
  var search = document.getElementById("search");
  var shown = document.getElementById("shown");
  var texts = null;
  function pressed(b) { return b.getAttribute("aria-pressed") === "true"; }
  function apply() {
    var want = buttons.filter(pressed).map(function (b) { return "data-" + b.getAttribute("data-filter"); });
    var q = search.value.trim().toLowerCase();
    if (q && texts === null) { texts = cases.map(function (c) { return c.textContent.toLowerCase(); }); }
    var n = 0;
    cases.forEach(function (c, i) {
      var ok = want.every(function (a) { return c.hasAttribute(a); }) && (!q || texts[i].indexOf(q) !== -1);
      c.hidden = !ok;
      if (ok) { n += 1; }
    });
    shown.textContent = n + " of " + cases.length + " cases shown";
  }
  buttons.forEach(function (b) {
    b.addEventListener("click", function () {
      b.setAttribute("aria-pressed", pressed(b) ? "false" : "true");
      apply();
    });
  });
  var timer = 0;
  search.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(apply, 100); });
  Array.prototype.slice.call(bar.querySelectorAll("button[data-open]")).forEach(function (b) {
    b.addEventListener("click", function () {
      var open = b.getAttribute("data-open") === "all";
      cases.forEach(function (c) { if (!c.hidden) { c.open = open; } });
    });
  });
  function reveal() {
    var el = location.hash.length > 1 ? document.getElementById(location.hash.slice(1)) : null;
    if (!el || !el.classList.contains("case")) { return; }
    if (el.hidden) {
      buttons.forEach(function (b) { b.setAttribute("aria-pressed", "false"); });
      search.value = "";
      apply();
    }
    el.open = true;
  }
  window.addEventListener("hashchange", reveal);
  reveal();
  apply();
}());
""".strip()


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


CSP = (f"default-src 'none'; script-src {_sha256(SCRIPT)}; style-src {_sha256(STYLE)}; img-src data:; "
       "base-uri 'none'; form-action 'none'")
"""The page's policy: only the script and the stylesheet above, by hash; nothing fetched."""
