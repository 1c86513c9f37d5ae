"""Which text each citation supports: :func:`cited_sentences`.

A citation marker or link supports the sentence it sits in: "Solar passed coal in 2025 [2]." cites
source 2 for "Solar passed coal in 2025.". Markers are resolved with the same rules as
:func:`gate.urls.extract_urls` (a sources list, reference definitions, inline links); the sources
list itself, reference definitions, images and fenced code are not sentences. Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gate.urls.canonicalise import canonical
from gate.urls.extract import SOURCE_LINE, build_labels, prepared, tokens, urls_of

__all__ = ["CitedSentence", "cited_sentences", "sentences_by_citation"]

# A sentence ends at ".", "!" or "?" (or a CJK full stop) followed by a space; a marker glued after the
# full stop ("... in 2025. [2] Next") stays with the sentence it ends.
_SENTENCE_END = re.compile(r"[.!?。！？](?:\s*(?:\[\^?\d+(?:\s*[-–,;]\s*\d+)*\]|【[^】\n]*】))*(?:\s+|$)")
# A sentence that is only markers ("[2] [3]" left at a line's start) adds its citations to the one before.
_ONLY_MARKERS = re.compile(r"^(?:\s*(?:\[\^?\d+(?:\s*[-–,;]\s*\d+)*\]|【[^】\n]*】))+\s*[.!?]?\s*$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
# Markdown emphasis and code marks are layout, not words: "**Short answer:** `x`" reads "Short answer: x".
_EMPHASIS = re.compile(r"\*{1,3}|(?<!\w)_{1,3}|_{1,3}(?!\w)|`+")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?])")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")


@dataclass(frozen=True)
class CitedSentence:
    """One sentence of an answer, without its citation markers, and the URLs cited for it, in order."""

    text: str
    urls: tuple[str, ...]


def _plain(sentence: str, labels: dict[str, str], read: dict[str, list[str]]) -> tuple[str, list[str]]:
    """The sentence's words with markers and bare URLs removed (link text kept), and the URLs it cites.

    ``read`` holds the URLs of the tokens read so far, by their text (the same text cites the same).
    """
    out: list[str] = []
    urls: list[str] = []
    last = 0
    for m in tokens(sentence):
        out.append(sentence[last:m.start()])
        last = m.end()
        token = m.group()
        got = read.get(token)
        if got is None:
            got = read[token] = list(urls_of(m, labels))
        urls.extend(got)
        if m.group("inline") is not None or m.group("reflink") is not None:
            # "[the review](https://...)": the link text is part of the sentence.
            inner = m.group(0)[1:].split("]", 1)[0]
            if not _ONLY_MARKERS.match(f"[{inner}]"):
                out.append(inner)
        elif m.group("bracket") is not None and not got:
            out.append(m.group(0))  # "[sic]", "[2019]": brackets that cite nothing are words
    if not urls:
        return "", urls  # cites nothing: the caller skips it, so its words are not put together
    out.append(sentence[last:])
    text = " ".join(_EMPHASIS.sub("", "".join(out)).split())
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", text)
    return text, urls


def cited_sentences(answer: str) -> list[CitedSentence]:
    """The sentences of ``answer`` that cite at least one web URL, in order, each URL once per sentence.

    Paragraphs, list items and table rows are split into sentences; a marker after a sentence's
    full stop ("... 2025. [2]") belongs to that sentence. Lines of a sources list and reference
    definitions are the citations' targets, not cited text, and are skipped.
    """
    text = prepared(answer)
    labels = build_labels(text)
    found: list[CitedSentence] = []
    read: dict[str, list[str]] = {}
    for line in text.split("\n"):
        if not _may_cite(line) or _HEADING.match(line) or _is_source_line(line, labels):
            continue
        line = _LIST_ITEM.sub("", line)
        for piece in _pieces(line):
            if not _may_cite(piece):
                continue
            sentence, urls = _plain(piece, labels, read)
            if not urls:
                continue
            if not re.search(r"\w", sentence) or _ONLY_MARKERS.match(piece):
                if found:  # markers alone: they cite the sentence before them
                    prev = found[-1]
                    found[-1] = CitedSentence(prev.text, _unique((*prev.urls, *urls)))
                continue
            found.append(CitedSentence(sentence, _unique(urls)))
    return found


def sentences_by_citation(answer: str) -> dict[str, str]:
    """The first sentence of ``answer`` that cites each URL, by the URL's canonical form: the sentence
    a markdown link sits in, or the one whose marker points at a reference or a sources line."""
    found: dict[str, str] = {}
    for s in cited_sentences(answer):
        for url in s.urls:
            found.setdefault(canonical(url), s.text)
    return found


def _may_cite(text: str) -> bool:
    """Whether ``text`` holds a place a citation can be ("[", "<", "【" or "://"): text without one cites
    nothing and is not cut into sentences at all."""
    return "[" in text or "://" in text or "<" in text or "【" in text


def _pieces(line: str) -> list[str]:
    """A line cut into sentences, each keeping the markers that follow its full stop."""
    cuts = [m.end() for m in _SENTENCE_END.finditer(line)]
    return [line[a:b] for a, b in zip([0, *cuts], [*cuts, len(line)], strict=True) if line[a:b].strip()]


def _is_source_line(line: str, labels: dict[str, str]) -> bool:
    """A line of the sources list (or a reference definition) that a marker points at."""
    m = SOURCE_LINE.match(line)
    if m is None:
        return bool(re.match(r"^\s{0,3}\[[^\]\n]+\]:\s*\S", line))
    number = m.group("a") or m.group("b") or m.group("c") or "0"
    return str(int(number)) in labels and "http" in m.group("rest")


def _unique(urls: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    seen: set[str] = set()
    out = []
    for u in urls:
        key = canonical(u)
        if key not in seen:
            seen.add(key)
            out.append(u)
    return tuple(out)
