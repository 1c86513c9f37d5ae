"""The pages a run was judged on, against the frozen web of the base revision. Pure.

The checks read quotes, links and claims off the pages of a trace, and the trace is the pull
request's, as is the working tree's ``snapshot/`` the replay server served them from. So with a base
revision, every page a run read is compared with what the base's snapshot recorded for its URL
(:class:`gate.model.FrozenPages`, read at the edge by :class:`gate.snapshot.revision.BaseSnapshot`):

- ``page_changed``: the base recorded the URL (a page, an extraction or both) and the run's text is
  none of them: the pull request changed the recording, or the page was read past the frozen web.
  One finding per URL, naming it. Always a hard failure: the base's recording says what the source
  says. A text the same but for runs of whitespace is the same; a text the run recorded as cut
  (``truncated``) is the same when the base's text begins with it.
- ``page_unrecorded``: the base never recorded the URL (a pull request that changed its queries
  records their pages in the same pull request). Listed on the case (:attr:`gate.results.CaseResult.unrecorded_pages`)
  for the reviewer, shown in the comment and the HTML report as recorded in this pull request; a
  hard failure too, one per URL, only with ``replay.unrecorded_pages: fail`` in the base's configuration.
"""

from __future__ import annotations

from collections.abc import Iterator

from gate.checks.run_findings import RunFindingKind
from gate.config import Config
from gate.model import Finding, FrozenPages, Page, Run
from gate.urls import canonical

__all__ = ["FROZEN_FINDINGS", "MAX_UNRECORDED", "frozen_findings"]

FROZEN_FINDINGS: dict[str, RunFindingKind] = {
    k.id: k
    for k in (
        RunFindingKind("page_changed", "a page the run read is not the base revision's recording of its URL"),
        RunFindingKind("page_unrecorded", "a page the run read is not in the base revision's snapshot"),
    )
}

MAX_UNRECORDED = 200
"""Pages of one case listed as recorded in the pull request (the first ones read)."""


def _spaced(text: str) -> str:
    return " ".join(text.split())


def _same(page: Page, recorded: str) -> bool:
    if page.text == recorded:
        return True
    read, base = _spaced(page.text), _spaced(recorded)
    return read == base or (page.truncated and base.startswith(read))


def _pages(run: Run) -> Iterator[tuple[str, Page]]:
    """Each page read with its canonical URL; a page read again with the same text once."""
    seen: set[tuple[str, str]] = set()
    for page in run.pages:
        key = canonical(page.url)
        if (key, page.text) not in seen:
            seen.add((key, page.text))
            yield key, page


def _changed(url: str, ref: str) -> Finding:
    return Finding("page_changed", (
        f"the page {url} as the run read it is not the base revision's recording of that URL ({ref}'s "
        "snapshot, page and extraction): changed by this pull request, or read past the frozen web; what a "
        "source says is what the base recorded"), url=url)


def _unrecorded(url: str, ref: str) -> Finding:
    return Finding("page_unrecorded", (
        f"the page {url} is not in the base revision's snapshot ({ref}): recorded in this pull request, and "
        "replay.unrecorded_pages is fail"), url=url)


def frozen_findings(run: Run, frozen: FrozenPages | None, config: Config) -> tuple[tuple[Finding, ...],
                                                                                   tuple[str, ...]]:
    """The hard failures of ``run``'s pages against the base's recordings, and the URLs the base never
    recorded (none of either without ``frozen``)."""
    if frozen is None:
        return (), ()
    changed: dict[str, Finding] = {}
    unrecorded: dict[str, str] = {}
    for key, page in _pages(run):
        recorded = frozen.texts.get(key)
        if recorded is None:
            unrecorded.setdefault(key, page.url)
        elif key not in changed and not any(_same(page, text) for text in recorded):
            changed[key] = _changed(page.url, frozen.ref)
    urls = tuple(unrecorded.values())[:MAX_UNRECORDED]
    failures = list(changed.values())
    if config.replay.unrecorded_pages == "fail":
        failures += [_unrecorded(url, frozen.ref) for url in unrecorded.values()]
    return tuple(failures), urls
