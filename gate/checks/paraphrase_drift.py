"""``paraphrase_drift``: a cited sentence that drifted from every passage of the page it cites.

Most answers quote nothing, so ``passage_missing`` has nothing to check. This check takes each
sentence a citation marker or link supports (:func:`gate.urls.supported.cited_sentences`), finds the
passage of the cited page it aligns with best, and scores how far the sentence drifted from it
(:func:`drift`). Numbers and names of the sentence must be on the page as written, however close
the rest is. Soft by default: findings are case warnings unless ``checks.paraphrase_drift.block``
is true (the calibration on human-labelled claims is in docs/paraphrase-drift.md). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz

from gate.checks.base import Subject
from gate.checks.passage import NUMBER, normalise
from gate.model import Finding, Outcome
from gate.urls import canonical
from gate.urls.supported import cited_sentences

__all__ = ["Drift", "ParaphraseDrift", "drift", "names_of", "sentence_drift"]

MAX_SENTENCE_CHARS = 500
"""A cited sentence longer than this is scored on its first 500 characters (bounded work)."""
MAX_DRIFT_PAGE_CHARS = 100_000
"""Only this much of a page's normalised text is searched: aligning a 500-character sentence costs
about 25 ms on 100,000 characters (rapidfuzz 3) against 4 ms on a typical 15,000-character page."""
MAX_SENTENCES = 100
"""At most this many cited sentences are scored per run; the rest are noted, not scored."""
_CONTEXT = 50
"""Characters either side of the aligned passage that the word-level score also sees: an alignment
stops at the sentence's length, and a paraphrase reorders words across that edge."""

# A name: a capitalised word inside a sentence (after a lower-case word, a digit or a comma, so a
# sentence's or a clause's first word is not one), or an acronym of two or more capitals.
_NAME = re.compile(r"(?<=[a-z0-9,;)] )[A-Z][\w'’-]*[A-Za-z]|\b[A-Z]{2,}\b")
_ATTRIBUTION = re.compile(r"\s*\([^()]*\)\s*[.!?]?\s*$")
_POSSESSIVE = re.compile(r"['’]s$")


@dataclass(frozen=True)
class Drift:
    """How far a sentence drifted from its best-aligned passage of a page.

    ``score`` is 0-100 (0: the sentence is on the page word for word); ``passage`` the aligned
    stretch of the normalised page; ``numbers`` and ``names`` those of the sentence that are not
    on the page as written.
    """

    score: float
    passage: str
    numbers: tuple[str, ...] = ()
    names: tuple[str, ...] = ()


def names_of(sentence: str) -> tuple[str, ...]:
    """The names a sentence uses (capitalised words inside it and acronyms), possessives dropped.

    A closing parenthesis ("... was possible (WSJ; Reuters).") names the sources, not the claim.
    """
    out: list[str] = []
    for m in _NAME.findall(_ATTRIBUTION.sub("", sentence)):
        name = _POSSESSIVE.sub("", m)
        if name not in out:
            out.append(name)
    return tuple(out)


def _word_in(word: str, text: str) -> bool:
    # A pattern that opens with a lookbehind is tried at every character (about 1 ms on a page), so
    # the substring search (C, a hundred times faster) finds the first place it could match, if any.
    first = text.find(word)
    if first == -1:
        return False
    return re.compile(r"(?<!\w)" + re.escape(word) + r"(?!\w)").search(text, first) is not None


def _number_on(number: str, text: str) -> bool:
    """Whether ``number`` (one match of :data:`NUMBER`) is one of ``NUMBER.findall(text)``, found by
    one search of the page (in C) for the number standing alone: not after a digit, nor after a digit
    and a ``.`` or ``,`` (the number before would run on into it), and not before a digit, nor before
    a ``.`` or ``,`` and a digit (it would run on)."""
    return _alone(number).search(text) is not None


@lru_cache(maxsize=1024)
def _alone(number: str) -> re.Pattern[str]:
    # The first digit comes before the look-behinds, so the search skips to where that digit is instead
    # of trying the pattern at every character of the page.
    return re.compile(re.escape(number[0]) + r"(?<!\d.)(?<!\d[.,].)" + re.escape(number[1:]) + r"(?!\d|[.,]\d)")


def drift(sentence: str, page: str, *, page_is_normalised: bool = False) -> Drift:
    """Score ``sentence`` against its best-aligned passage of ``page``.

    The passage is found with ``rapidfuzz.fuzz.partial_ratio_alignment`` (the page's stretch most
    like the sentence, character by character); the support is the mean of that alignment score
    and the ``token_set_ratio`` of the sentence against the passage with ``_CONTEXT`` characters
    either side (reordered and extra words forgiven); the drift is 100 minus the support. Numbers
    follow the passage matcher's rule (``1,234`` and ``4.2`` are one number each) and must be
    somewhere on the page as written; so must every name.
    """
    text = (page if page_is_normalised else normalise(page))[:MAX_DRIFT_PAGE_CHARS]
    raw = sentence[:MAX_SENTENCE_CHARS]
    needle = normalise(raw).rstrip(".!?。 ")
    if not needle:
        return Drift(0.0, "")
    if not text:
        return Drift(100.0, "", tuple(NUMBER.findall(needle)), names_of(raw))
    if len(needle) >= len(text):
        aligned, passage = fuzz.ratio(needle, text), text
    else:
        res = fuzz.partial_ratio_alignment(needle, text)
        aligned = res.score if res is not None else 0.0
        start, end = (res.dest_start, res.dest_end) if res is not None else (0, 0)
        passage = text[max(0, start - _CONTEXT):end + _CONTEXT]
    support = (aligned + fuzz.token_set_ratio(needle, passage)) / 2
    numbers = tuple(n for n in dict.fromkeys(NUMBER.findall(needle)) if not _number_on(n, text))
    names = tuple(n for n in names_of(raw) if not _word_in(normalise(n), text))
    return Drift(round(100.0 - support, 1), passage, numbers, names)


def sentence_drift(sentence: str, pages: Sequence[tuple[str, str]]) -> tuple[str, Drift]:
    """A sentence against every (URL, normalised text) it cites: the closest page, and what none holds.

    The sentence may draw on all of its cited pages, so a number or name is missing only when no
    page has it, and the drift is the one from the closest page. Returns that page's URL and its
    drift with the numbers and names missing from all pages. ``pages`` must not be empty.
    """
    scored = [(url, drift(sentence, text, page_is_normalised=True)) for url, text in pages]
    url, closest = min(scored, key=lambda s: s[1].score)
    numbers = tuple(n for n in closest.numbers if all(n in d.numbers for _, d in scored))
    names = tuple(n for n in closest.names if all(n in d.names for _, d in scored))
    return url, Drift(closest.score, closest.passage, numbers, names)


def _short(text: str, most: int = 120) -> str:
    return text if len(text) <= most else text[: most - 3] + "..."


class ParaphraseDrift:
    """Each cited sentence must stay close to a passage of the page it cites (numbers and names exact)."""

    id = "paraphrase_drift"
    description = "A cited sentence says what no passage of the cited page says (or has other numbers or names)."
    docs = "docs/paraphrase-drift.md"

    def run(self, subject: Subject) -> Outcome:
        """One finding per cited sentence that drifted past ``checks.paraphrase_drift.max_drift``."""
        limit = subject.config.drift_max
        findings: list[Finding] = []
        scored = 0
        skipped = 0
        for sentence in cited_sentences(subject.run.answer):
            # Every read of every page the sentence cites: together they must hold it.
            pages = [(url, p) for url in sentence.urls for p in subject.texts(canonical(url))]
            if not pages:
                continue  # nothing read: reported by unread_citation / fabricated_url
            if scored >= MAX_SENTENCES:
                skipped += 1
                continue
            scored += 1
            url, found = sentence_drift(sentence.text, [(u, subject.index(p).text) for u, p in pages])
            why = self._why(found, limit)
            if why:
                on = url if len(sentence.urls) == 1 else f"{url} (nor the other {len(sentence.urls) - 1} cited)"
                findings.append(Finding(self.id, f"{why} on {on}: \"{_short(sentence.text)}\"", url))
        if not scored:
            return Outcome(not_checked="no cited sentence on a read page")
        notes = (f"{skipped} cited sentence(s) past the first {MAX_SENTENCES} not scored",) if skipped else ()
        return Outcome(findings=tuple(findings), notes=notes)

    @staticmethod
    def _why(d: Drift, limit: float) -> str | None:
        if d.numbers:
            return f"number(s) {', '.join(d.numbers)} not"
        if d.names:
            return f"name(s) {', '.join(d.names)} not"
        if d.score > limit:
            return f"drifted {d.score:.0f}/100 from its closest passage (allowed {limit:.0f})"
        return None
