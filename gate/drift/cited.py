"""Every URL a golden set cites, once, with what was recorded of it: the drift check's input.

The cited URLs of a run are the ones the hard checks count (:class:`gate.checks.Subject`: the trace's
``citations``, else the answer's links and references), matched by canonical URL, so one page cited
under two spellings by three cases is checked once and names the three cases. With a baseline, the
URLs its cases cite are added: the claims' citations and the URLs of its citation checks' failures.

What was recorded of a URL comes from the run that read it (its status and final URL), else from the
snapshot's page layer. The text compared by ``--content`` is the snapshot's page, extracted as today's
answer will be (:func:`gate.snapshot.extract.extract_page`), else the text the run read; a page cut
short when it was recorded (``truncated``) has nothing to compare with. Reads files; decides nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from gate.checks import CHECKS, Subject
from gate.config import Config
from gate.drift.model import CitedUrl, text_hash
from gate.errors import SnapshotMiss
from gate.load.golden import iter_pairings
from gate.model import GoldenSet, Page
from gate.snapshot.extract import extract_page
from gate.snapshot.records import PageRecord
from gate.snapshot.store import SnapshotStore, snapshot_dir
from gate.urls import canonical
from gate.verdict.report import Report

__all__ = ["cited_urls"]

_DEFAULTS = Config()  # which URLs a run cites does not depend on the configuration


@dataclass
class _Found:
    url: str
    cases: list[str] = field(default_factory=list)
    page: Page | None = None

    def cited_by(self, case: str) -> None:
        if case not in self.cases:
            self.cases.append(case)


def cited_urls(golden: GoldenSet, *, baseline: Report | None = None, content: bool = False) -> tuple[CitedUrl, ...]:
    """Each URL ``golden``'s runs cite (and ``baseline``'s cases), in the order first cited.

    A case without a run cites nothing; a run that is not valid is an InputError (exit 2), as for
    ``check``. With ``content``, each URL carries the hash of its recorded text, or why it has none.
    """
    found: dict[str, _Found] = {}
    for pairing in iter_pairings(golden):
        if pairing.run is None:
            continue
        subject = Subject.build(pairing.run, pairing.case, _DEFAULTS)
        for key, raw in subject.cited.items():
            entry = found.setdefault(key, _Found(raw))
            entry.cited_by(pairing.case.id)
            if entry.page is None:
                entry.page = subject.read.get(key)
    for case_id, url in _baseline_citations(baseline):
        found.setdefault(canonical(url), _Found(url)).cited_by(case_id)
    store = SnapshotStore(snapshot_dir(golden.root), golden.root)
    # the snapshot is read only where the runs leave a gap: a URL no run read, or the text to compare
    return tuple(_recorded(entry, _snapshot_page(store, entry.url) if content or entry.page is None else None,
                           content) for entry in found.values())


def _baseline_citations(baseline: Report | None) -> Iterator[tuple[str, str]]:
    for case in baseline.cases if baseline is not None else ():
        for failure in case.hard_failures:
            if failure.url is not None and failure.check in CHECKS:
                yield case.id, failure.url
        for claim in case.judgement.claims if case.judgement is not None else ():
            for url in claim.citations:
                yield case.id, url


def _snapshot_page(store: SnapshotStore, url: str) -> PageRecord | None:
    try:
        return store.page(url)
    except SnapshotMiss:
        return None


def _recorded(entry: _Found, snapshot: PageRecord | None, content: bool) -> CitedUrl:
    page = entry.page
    status = page.status if page is not None else snapshot.status if snapshot is not None else None
    final = page.final_url if page is not None else snapshot.final_url if snapshot is not None else None
    cited = CitedUrl(url=entry.url, cases=tuple(entry.cases), recorded_status=status, recorded_final_url=final)
    if not content:
        return cited
    if snapshot is not None and not snapshot.truncated:
        return _with_text(cited, extract_page(snapshot).text)
    if page is not None and not page.truncated:
        return _with_text(cited, page.text)
    why = "the recorded page was cut short (truncated)" if (snapshot or page) else "no page was recorded"
    return replace(cited, unhashed=why)


def _with_text(cited: CitedUrl, text: str) -> CitedUrl:
    if not text.strip():
        return replace(cited, unhashed="the recorded page has no text")
    return replace(cited, recorded_hash=text_hash(text))
