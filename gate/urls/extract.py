"""Which URLs an answer cites: :func:`extract_urls`.

Markdown links, autolinks, bare URLs, reference definitions and numbered markers pointing into a
sources list are recognised; images and fenced code blocks are not citations. Pure.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable, Iterator

from gate.urls.canonicalise import canonical
from gate.urls.hosts import usv

__all__ = ["SOURCE_LINE", "TOKEN", "build_labels", "citation_spans", "extract_urls", "prepared", "tokens", "urls_of"]

_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})")
# Sentence punctuation after a bare URL; "*", "_" and "~" close markdown emphasis around a URL (GFM's
# autolink rule), "…" is an ellipsis, and the full-width marks end sentences in CJK answers. None of
# these plausibly ends a real URL.
_TRAILING_PUNCT = ".,;:!?'\"*_~…。，、；：！？"
# An entity reference at the end of a bare URL ("https://a.example/x&gt;" in HTML-escaped text) is
# text after the URL, as in GFM.
_TRAILING_ENTITY = re.compile(r"&#?[A-Za-z0-9]+;$")
_ENTITY_END = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
# Only the last characters are searched for it (the longest entity name has 31), so a URL of many
# ";" costs one short search per character trimmed, not a scan of the whole URL.
_ENTITY_TAIL = 40
# A run of one character (matched on a URL read backwards), and the closing brackets a URL may end in.
_RUN = re.compile(r"(.)\1*", re.DOTALL)
_OPENING = {")": "(", "]": "["}
# CommonMark: a link destination's backslash escapes (of ASCII punctuation) and entity references
# (with their semicolon) stand for the character; "[x](https://a.example/a\_b)" links to ".../a_b".
_DEST_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])|&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
# A GFM table: a header row, then a delimiter row such as "|---|:--:|".
_TABLE_DELIMITER = re.compile(r"^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_CELL_PIPE = re.compile(r"(?<!\\)\|")

# Link text may hold one level of nested brackets, e.g. a linked image "[![alt](img)](url)".
_TEXT = r"\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]"
# A link destination: <...>, or a run without spaces that may contain balanced parentheses (one level),
# so "[Python](https://en.wikipedia.org/wiki/Python_(programming_language))" keeps its ")".
_DEST = r"(?:<(?P<{n}a>[^<>\n]*)>|(?P<{n}b>(?:[^\s()<>]|\([^\s()]*\))+))"
_TITLE = r"""(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?"""

TOKEN = re.compile(
    "|".join(
        [
            # Reference definition "[1]: https://... "title"" (also footnote "[^1]: ...") at line start.
            r"(?m:^[ \t]{0,3}\[(?P<deflabel>[^\]\n]+)\]:[ \t]*" + _DEST.format(n="def") + ")",
            # Images are not citations; consume them so their URLs are not picked up as bare URLs.
            r"(?P<image>!" + _TEXT + r"(?:\([^)\n]*\)|\[[^\]\n]*\])?)",
            r"(?P<inline>" + _TEXT + r"\(\s*" + _DEST.format(n="in") + _TITLE + r"\s*\))",
            r"(?P<reflink>" + _TEXT + r"\[(?P<reflabel>[^\[\]\n]*)\])",
            r"\[(?P<bracket>[^\[\]\n]*)\]",
            r"<(?P<auto>https?://[^<>\s]+)>",
            r"【(?P<lenticular>[^】\n]*)】",
            # Zero-width and word-joiner characters are invisible in the answer and never typed in a URL.
            r"(?P<bare>https?://[^\s<>\"`【】\u200b\u200c\u200d\u2060\ufeff]+)",
        ]
    ),
    re.IGNORECASE,
)

# Where a token can be: every TOKEN match holds one of these characters at a known offset from its start
# ("[", and the "!" of an image or the up to three spaces of a definition before it; "<"; "【"; the ":"
# of "http://" or "https://"). :func:`tokens` tries TOKEN only there; the regex engine finds them.
_HOT = re.compile(r"[\[<【:]")
_INDENT = " \t"

# A line of a sources list: "1. ...", "1) ...", "[1] ...", "[^1]: ...", "【1】 ...", optionally bulleted.
SOURCE_LINE = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+)?"
    r"(?:\[\^?(?P<a>\d+)\]:?[ \t]*|【(?P<b>\d+)[^】\n]*】[ \t]*|\(?(?P<c>\d+)[.)][ \t]+)(?P<rest>.*)$",
    re.MULTILINE,
)
# Markers such as "[1]" or "[^2,3]" read backwards (the last one first), as many as there are; nothing
# is given back once matched (no marker holds a bracket), so the match is one pass.
_MARKERS_BACKWARDS = re.compile(r"(?:\]\d++(?:,\d++)*+\^?\[)*+")
_MARKER_LIST = re.compile(r"^\s*\^?\d+(?:\s*[-–,;，]\s*\^?\d+)*\s*$")
_LEADING_NUMBERS = re.compile(r"\d+(?:\s*[-–,，]\s*\d+)*")
_MAX_RANGE = 50  # "[2-4]" is expanded, but a nonsense range like "[1-99999]" must not blow up.


def tokens(text: str) -> Iterator[re.Match[str]]:
    """The matches of :data:`TOKEN` in ``text``, as ``TOKEN.finditer(text)`` gives them, found faster.

    ``finditer`` tries all eight alternatives at every character. A token starts only at a "[" (or the
    "!" of an image, or the line start of a definition indented up to three columns, before it), a "<",
    a "【", or four or five characters before the ":" of a URL's scheme; those places are found by one
    character-class search and TOKEN is tried at each of them in order, so prose without brackets or
    URLs is skipped at the regex engine's speed. ``tests/test_urls_tokens.py`` holds the two to one
    another on varied and random text.
    """
    match, search = TOKEN.match, _HOT.search
    pos = 0
    # The next "]" and the next line break at or after the current "[": a "[" with no "]" before the
    # line ends starts no token. Each is searched for again only once passed, so the lookups are linear.
    close = newline = -1
    while True:
        hot = search(text, pos)
        if hot is None:
            return
        i = hot.start()
        c = text[i]
        if c == "[":
            if close < i:
                close = text.find("]", i)
                if close == -1:
                    close = len(text) + 1  # past any line's end
            if newline < i:
                newline = text.find("\n", i)
                if newline == -1:
                    newline = len(text)
            if close > newline:
                pos = i + 1
                continue
            tries = [i]
            if i and text[i - 1] == "!":
                tries.insert(0, i - 1)
            else:
                j = i
                while j and i - j < 3 and text[j - 1] in _INDENT:
                    j -= 1
                if j != i and (j == 0 or text[j - 1] == "\n"):
                    tries.insert(0, j)
        elif c == ":":
            if not text.startswith("//", i + 1):
                pos = i + 1
                continue
            tries = [i - 5, i - 4]
        else:
            tries = [i]
        for at in tries:
            if at < pos:
                continue
            m = match(text, at)
            if m is not None:
                yield m
                pos = m.end()
                break
        else:
            pos = i + 1


def _strip_fenced_code(text: str) -> str:
    """Blank out fenced code blocks (``` or ~~~), whose URLs are examples rather than citations: each
    of their characters a space, so that an offset in the result is the same offset in ``text``."""
    lines = text.split("\n")
    fence = ""
    for i, line in enumerate(lines):
        if fence:
            stripped = line.strip()
            if stripped.startswith(fence) and stripped.strip(fence[0]) == "" and not line.startswith("    "):
                fence = ""
            lines[i] = " " * len(line)
            continue
        m = _FENCE_OPEN.match(line)
        # A backtick fence's info string may not contain backticks; otherwise it is inline code.
        if m and not (m.group(1)[0] == "`" and "`" in line[m.end() :]):
            fence = m.group(1)
            lines[i] = " " * len(line)
    return "\n".join(lines)


def _split_table_cells(text: str) -> str:
    """Turn the cell pipes of GFM table rows into spaces: a bare URL in a cell ends at its cell's edge.

    GFM splits a row into cells before it reads any inline text, so "| https://a.example/x| 2026 |"
    links https://a.example/x. Outside a table a "|" can be part of a URL and is left alone.
    """
    if "|" not in text:
        return text
    lines = text.split("\n")
    in_table = False
    for i, line in enumerate(lines):
        if not line.strip():
            in_table = False
            continue
        if not in_table and "|" in line and i + 1 < len(lines):
            below = lines[i + 1]
            in_table = "|" in below and _TABLE_DELIMITER.match(below) is not None
        if in_table:
            lines[i] = _CELL_PIPE.sub(" ", line)
    return "\n".join(lines)


def _destination(raw: str) -> str:
    """A link destination as CommonMark reads it: backslash escapes resolved, entities decoded."""
    text = raw.strip()
    if "\\" not in text and "&" not in text:
        return text
    return _DEST_ESCAPE.sub(lambda m: m.group(1) if m.group(1) is not None else html.unescape(m.group()), text)


def _trim_bare(url: str) -> str:
    """Drop trailing sentence punctuation and unbalanced closing brackets from a bare URL.

    Linear in the URL's length: the bracket counts are taken once and kept as characters go, a run
    of one character is measured in one match (on the URL read backwards) and dropped at once, and
    an entity is looked for in the last :data:`_ENTITY_TAIL` characters only.
    """
    counts = {c: url.count(c) for c in "()[]"}
    backwards = url[::-1]
    end = len(url)
    while end:
        last = url[end - 1]
        # An entity ends in a letter or digit and ";": only then is one looked for.
        if last == ";" and end >= 2 and url[end - 2] in _ENTITY_END:
            entity = _TRAILING_ENTITY.search(url, max(0, end - _ENTITY_TAIL), end)
            if entity:
                for c in counts:
                    counts[c] -= url.count(c, entity.start(), end)
                end = entity.start()
                continue
        same = _RUN.match(backwards, len(url) - end)  # always matches: the URL has a character there
        run = len(same.group()) if same else 1
        if last in _TRAILING_PUNCT:
            # Every ";" of a run but its first follows a ";", so none of them can end an entity.
            end -= max(run - 1, 1) if last == ";" else run
        elif last in _OPENING:
            excess = counts[last] - counts[_OPENING[last]]
            if excess <= 0:
                break
            counts[last] -= min(run, excess)
            end -= min(run, excess)
        else:
            break
    return url[:end]


def _glued_markers(url: str) -> int:
    """Where the citation markers glued to the end of a bare URL begin ("...a[1][2]"), or -1.

    Matched on the URL read backwards, from its end: a regex anchored at "$" would try every "[" in
    the URL.
    """
    markers = _MARKERS_BACKWARDS.match(url[::-1])  # always matches, if only the empty string
    start = len(url) - (markers.end() if markers else 0)
    return start if start < len(url) else -1


def _is_web(url: str) -> bool:
    return url[:8].lower().startswith(("http://", "https://"))


def _norm_label(label: str) -> str:
    """CommonMark-style label matching: case-insensitive, whitespace collapsed; a footnote ^ is ignored."""
    return " ".join(label.lstrip("^").split()).lower()


@functools.lru_cache(maxsize=1024)  # the few marker texts of an answer ("1", "2, 3") recur throughout it
def _expand_numbers(spec: str) -> tuple[str, ...]:
    """Turn "2, 3", "^1" or "2-4" into the individual marker labels."""
    labels: list[str] = []
    for part in re.split(r"[,;，]", spec):
        bounds = [b.strip().lstrip("^") for b in re.split(r"[-–]", part)]
        bounds = [b for b in bounds if b]
        if len(bounds) == 2 and bounds[0].isdigit() and bounds[1].isdigit():
            lo, hi = int(bounds[0]), int(bounds[1])
            if 0 <= hi - lo <= _MAX_RANGE:
                labels.extend(str(n) for n in range(lo, hi + 1))
                continue
        labels.extend(b for b in bounds if b.isdigit())
    return tuple(str(int(label)) for label in labels)


def _first_url(text: str) -> str | None:
    """First web URL in a fragment of text (inline link, autolink or bare URL), or None."""
    for m in tokens(text):
        for url in urls_of(m, {}):
            return url
    return None


def prepared(answer: str) -> str:
    """The answer as citations are read from it: fenced code blanked out, table cells apart; of the same
    length as ``answer``, each character where it was (a match's offsets are the answer's)."""
    return _split_table_cells(_strip_fenced_code(answer))


def build_labels(text: str) -> dict[str, str]:
    """Map reference labels and numbered-source markers to the URL they point at."""
    labels: dict[str, str] = {}
    # Numbered sources lists: a later list wins, because the sources list sits at the end of the answer
    # while an earlier numbered list is more likely ordinary prose.
    for m in SOURCE_LINE.finditer(text):
        url = _first_url(m.group("rest"))
        if url:
            number = m.group("a") or m.group("b") or m.group("c")
            labels[str(int(number))] = url
    # Reference definitions are explicit, so they override list guesses; like CommonMark, the first wins.
    definitions: dict[str, str] = {}
    for m in tokens(text):
        if m.group("deflabel") is not None:
            url = _destination(m.group("defa") if m.group("defa") is not None else m.group("defb") or "")
            if _is_web(url):
                label = _norm_label(m.group("deflabel"))
                if label.isdigit():
                    label = str(int(label))
                definitions.setdefault(label, url)
    labels.update(definitions)
    return labels


def _resolve(label: str, labels: dict[str, str]) -> list[str]:
    """URLs for a bracketed label: a defined reference, or one or more numeric citation markers."""
    if not labels:
        return []  # an answer with no sources list and no definitions (each marker glued to a URL lands here)
    key = _norm_label(label)
    if key in labels:
        return [labels[key]]
    if _MARKER_LIST.match(label):
        return [labels[n] for n in _expand_numbers(label) if n in labels]
    return []


def urls_of(m: re.Match[str], labels: dict[str, str]) -> Iterator[str]:
    """Yield the cited web URLs that one :data:`TOKEN` match stands for, in order (``labels`` from
    :func:`build_labels`): the building block :func:`extract_urls` and ``gate.urls.supported`` share.

    What a match stands for depends on its text alone: TOKEN has no look-ahead, so the same text
    matches the same way wherever it is (a definition, anchored at a line's start, never reads like
    any other token). Callers may read a repeated token once.
    """
    for group, read in _READERS:
        if m.group(group) is not None:
            return read(m, labels)
    return iter(())


def _web(url: str) -> Iterator[str]:
    if _is_web(url):
        yield url


def _definition(m: re.Match[str], labels: dict[str, str]) -> Iterator[str]:
    return _web(_destination(m.group("defa") if m.group("defa") is not None else m.group("defb") or ""))


def _image(m: re.Match[str], labels: dict[str, str]) -> Iterator[str]:
    return iter(())  # an image cites nothing


def _inline(m: re.Match[str], labels: dict[str, str]) -> Iterator[str]:
    return _web(_destination(m.group("ina") if m.group("ina") is not None else m.group("inb") or ""))


def _reference(m: re.Match[str], labels: dict[str, str]) -> Iterator[str]:
    label = m.group("reflabel")
    text = m.group("reflink")[1 : -len(label) - 3]
    # "[text][]" is a collapsed reference: the text is the label. "[1][2]" are two markers.
    if label and _MARKER_LIST.match(text):
        yield from _resolve(text, labels)
    yield from _resolve(label or text, labels)


def _bracket(m: re.Match[str], labels: dict[str, str]) -> Iterator[str]:
    inner = m.group("bracket")
    resolved = _resolve(inner, labels)
    if resolved:
        yield from resolved
    else:
        # Not a marker: the brackets are plain text and may still contain a bare URL.
        for sub in tokens(inner):
            yield from urls_of(sub, labels)


def _autolink(m: re.Match[str], labels: dict[str, str]) -> Iterator[str]:
    yield m.group("auto")


def _lenticular(m: re.Match[str], labels: dict[str, str]) -> Iterator[str]:
    # "【1】", "【2, 3】" or the "【4†source】" style: the citation numbers lead the marker.
    lead = _LEADING_NUMBERS.match(m.group("lenticular").strip())
    if lead:
        yield from _resolve(lead.group(0), labels)


def _bare(m: re.Match[str], labels: dict[str, str]) -> Iterator[str]:
    url = _trim_bare(m.group("bare"))
    # A marker glued to the URL ("https://example.com/a[1]") is a citation, not part of the path.
    cut = _glued_markers(url)
    glued = url[cut:] if cut != -1 else ""
    if glued:
        url = _trim_bare(url[:cut])
    if len(url) > len("https://"):
        yield url
    for marker in re.findall(r"\[([^\]]*)\]", glued) if labels else ():  # none resolves without labels
        yield from _resolve(marker, labels)


# What each kind of TOKEN match stands for, in the order urls_of asks (the first group that matched).
_READERS: tuple[tuple[str, Callable[[re.Match[str], dict[str, str]], Iterator[str]]], ...] = (
    ("deflabel", _definition),
    ("image", _image),
    ("inline", _inline),
    ("reflink", _reference),
    ("bracket", _bracket),
    ("auto", _autolink),
    ("lenticular", _lenticular),
    ("bare", _bare),
)


def extract_urls(answer: str) -> list[str]:
    """Return the URLs an answer cites, in first-appearance order, de-duplicated by :func:`canonical`.

    Recognised: inline links (with or without a title), ``<url>`` autolinks, bare http(s) URLs,
    reference definitions (``[1]: url``) and reference links, and numbered markers (``[1]``,
    ``[2, 3]``, ``[^1]``, ``【1】``) pointing into a sources list. A URL listed only as a source still
    counts. Images and fenced code blocks are ignored. The first raw spelling of each URL is kept,
    except that a lone surrogate (which no UTF-8 report can hold) reads as U+FFFD, as in a browser.
    """
    return list(_cited(answer))


# One run's answer is read twice in a row: the judge and the hard checks each build a Subject of the
# run (gate/judge/llm.py, gate/score/evaluate.py). The last few answers' citations are kept, so a long
# answer is read once. (Spans, built after the whole set, read it again.)
@functools.lru_cache(maxsize=4)
def _cited(answer: str) -> tuple[str, ...]:
    text = prepared(usv(answer))
    labels = build_labels(text)
    seen: set[str] = set()
    spelled: set[str] = set()  # a spelling already keyed: the same text has the same key
    read: set[str] = set()  # a token's text stands for the same URLs wherever it is (see urls_of)
    found: list[str] = []
    for m in tokens(text):
        token = m.group()
        if token in read:
            continue
        read.add(token)
        for url in urls_of(m, labels):
            if url in spelled:
                continue
            spelled.add(url)
            key = canonical(url)
            if key not in seen:
                seen.add(key)
                found.append(url)
    return tuple(found)


def citation_spans(answer: str) -> list[tuple[int, int, tuple[str, ...]]]:
    """Where ``answer`` cites: each marker, link, reference definition or bare URL that stands for web
    URLs, as (start, end) offsets into ``answer`` and those URLs, in order (fenced code cites nothing)."""
    text = prepared(answer)
    labels = build_labels(text)
    read: dict[str, tuple[str, ...]] = {}
    spans = []
    for m in tokens(text):
        token = m.group()
        got = read.get(token)
        if got is None:
            got = read[token] = tuple(urls_of(m, labels))
        if got:
            spans.append((m.start(), m.end(), got))
    return spans
