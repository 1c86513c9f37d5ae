"""The ``Check`` seam and the :class:`Subject` every check reads.

A Subject is one run prepared once: citations resolved, URLs canonicalised, pages indexed by
every URL they were read under, each page's text normalised at most once. The pipeline builds it
once per run and hands it to the judge (:class:`gate.judge.base.JudgeRequest`) and then to the
checks (:meth:`Subject.with_judgement`), so a page the judge normalised to verify a quote is not
normalised again for ``passage_missing`` or ``paraphrase_drift``. Checks are pure:
``Check.run(subject) -> Outcome``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Protocol

from gate.checks.passage import PageIndex
from gate.checks.source_rules import rule_source_type
from gate.config import Config
from gate.model import Case, Citation, Freshness, Outcome, Page, Run
from gate.urls import canonical, extract_urls
from gate.urls.anchors import extract_anchors


def _ok(page: Page) -> bool:
    return page.status is None or 200 <= page.status < 300


def _kinds(judged_kinds: Mapping[str, str | None] | None) -> dict[str, str | None]:
    return {canonical(u): k for u, k in (judged_kinds or {}).items()}


def _links_on(pages: tuple[Page, ...]) -> dict[str, str]:
    """canonical URL -> the URL of the first page that answered that links to it (beside its text, or in it)."""
    out: dict[str, str] = {}
    done: set[tuple[str, str]] = set()
    for p in pages:
        base = p.final_url or p.url
        if not _ok(p) or (base, p.text) in done:
            continue  # a failed fetch showed an error page; a page read twice shows the same links
        done.add((base, p.text))
        for href in (*p.links, *(anchor.href for anchor in extract_anchors(p.text, base))):
            out.setdefault(canonical(href), p.url)
    return out


def citations_of(run: Run) -> tuple[Citation, ...]:
    """What a run cites: its explicit ``citations``, then every link of its answer that none of them names.

    A reader follows a link in the answer whether or not the agent listed it, so an explicit list
    never hides the answer's own links (matched by canonical URL). A run without a list cites the
    links of its answer alone.
    """
    linked = tuple(Citation(url=u) for u in extract_urls(run.answer))
    if run.citations is None:
        return linked
    listed = {canonical(c.url) for c in run.citations}
    return run.citations + tuple(c for c in linked if canonical(c.url) not in listed)


class Check(Protocol):
    """One hard check: a stable id, a one-line description, and a pure ``run``."""

    id: str
    description: str

    def run(self, subject: Subject) -> Outcome:
        """Findings for one run, or why it could not check."""
        ...


@dataclass(frozen=True)
class Subject:
    """One run with what every check needs computed once."""

    run: Run
    case: Case
    config: Config
    citations: tuple[Citation, ...]
    cited: Mapping[str, str]
    """canonical URL -> the URL as first cited, in citation order"""
    in_results: frozenset[str]
    redirect_targets: frozenset[str]
    read: Mapping[str, Page]
    """canonical URL -> the page that stands for it: the first read, or the first successful one"""
    reads: Mapping[str, tuple[Page, ...]] = field(default_factory=dict)
    """canonical URL -> every read of it, in order (a page read twice, in parts or again)"""
    regime: Freshness | None = None
    """the case's freshness regime, or the judge's when the case sets none"""
    in_question: frozenset[str] = frozenset()
    """URLs the question itself gives (canonical): the agent was handed them, it did not make them up"""
    judged_kinds: Mapping[str, str | None] = field(default_factory=dict)
    """canonical URL -> ``primary`` or ``secondary`` as the judgement typed it (rule or judge)"""
    _indexes: dict[int, PageIndex] = field(default_factory=dict, compare=False, repr=False)
    _links: list[Mapping[str, str]] = field(default_factory=list, compare=False, repr=False)

    @classmethod
    def build(cls, run: Run, case: Case, config: Config, judged_regime: Freshness | None = None,
              judged_kinds: Mapping[str, str | None] | None = None) -> Subject:
        """Prepare a run for the checks; ``judged_kinds`` are the source types of a judgement, by URL."""
        raw = citations_of(run)
        # One citation per canonical URL for counting; quotes of repeated citations are kept.
        seen: dict[str, str] = {}
        for c in raw:
            seen.setdefault(canonical(c.url), c.url)
        read: dict[str, Page] = {}
        reads: dict[str, list[Page]] = {}
        targets: set[str] = set()
        for p in run.pages:
            keys = [canonical(p.url)]
            # Many fetch tools record final_url on every fetch; only a URL the fetch really moved to is
            # a redirect target. The requested URL itself is not: the search never showed it.
            if p.final_url and canonical(p.final_url) != keys[0]:
                keys.append(canonical(p.final_url))
                targets.add(keys[-1])
            for key in keys:
                reads.setdefault(key, []).append(p)
                # A retry that succeeded stands for the URL, not the failed attempt before it.
                if key not in read or (not _ok(read[key]) and _ok(p)):
                    read[key] = p
        return cls(
            run=run,
            case=case,
            config=config,
            citations=raw,
            cited=seen,
            in_results=frozenset(canonical(r.url) for r in run.results),
            redirect_targets=frozenset(targets),
            read=read,
            reads={key: tuple(pages) for key, pages in reads.items()},
            regime=case.freshness or judged_regime,
            in_question=frozenset(canonical(u) for u in extract_urls(run.question)),
            judged_kinds=_kinds(judged_kinds),
        )

    def with_judgement(self, judged_regime: Freshness | None,
                       judged_kinds: Mapping[str, str | None] | None) -> Subject:
        """This run with what a judgement says of it (as :meth:`build` takes them): the pages already
        normalised are shared, not normalised again."""
        return replace(self, regime=self.case.freshness or judged_regime, judged_kinds=_kinds(judged_kinds))

    def linked(self) -> Mapping[str, str]:
        """canonical URL -> the first page the agent read (and that answered) that links to it.

        A page's links are the anchors of its text, markdown and HTML (:func:`gate.urls.anchors.extract_anchors`,
        what the snapshot's extraction layer keeps), and the links its reader showed beside the text
        (``Page.links``: an extraction's anchors). Found on first use: most runs cite only what a search
        showed them and never need them.
        """
        if not self._links:
            self._links.append(_links_on(self.run.pages))
        return self._links[0]

    def seen(self, key: str) -> bool:
        """Whether the agent saw a cited URL (canonical) before it cited it: a search result showed it,
        a redirect led to it, the question gave it, the agent fetched it, or a page it read links to it."""
        return (key in self.in_results or key in self.redirect_targets or key in self.in_question
                or key in self.read or key in self.linked())

    def source_kind(self, key: str) -> str | None:
        """``primary`` or ``secondary`` for a cited URL (the judgement's type, else a rule's), or None: unknown."""
        kind = self.judged_kinds.get(key)
        if kind is not None:
            return kind
        typed = rule_source_type(self.cited.get(key, key), self.case.about_domains)
        return typed.kind if typed is not None else None

    def texts(self, key: str) -> tuple[Page, ...]:
        """The reads of a URL whose text is the page's: the successful ones, else the one that stands for it.

        A read whose text is the same as an earlier one's is left out: searching it again would find
        the same, and a trace that reads one page a thousand times must not multiply the work.
        """
        by_text: dict[str, Page] = {}
        for p in self.reads.get(key, ()):
            if _ok(p):
                by_text.setdefault(p.text, p)
        ok = tuple(by_text.values())
        page = self.read.get(key)
        return ok or ((page,) if page is not None else ())

    def index(self, page: Page) -> PageIndex:
        """The normalised text of a page, built at most once per run."""
        key = id(page)
        found = self._indexes.get(key)
        if found is None:
            found = self._indexes[key] = PageIndex(page.text)
        return found

    @property
    def normalised(self) -> int:
        """How many of the run's pages have been normalised so far (each at most once)."""
        return len(self._indexes)

    @property
    def pages_loaded(self) -> int:
        """How many distinct pages were read and loaded (a failed fetch read nothing; a re-read is one page)."""
        return len({canonical(p.url) for p in self.run.pages if _ok(p)})

    @property
    def minimal(self) -> bool:
        """True for runs in the minimal shape (no dates, no statuses)."""
        return self.run.shape == "minimal"
