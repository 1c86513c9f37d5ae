"""Hand-built reports with a baseline comparison, and the golden-file assertion for reporters.

Golden files live in ``tests/golden/``. To regenerate them after an intended change of output, run
``SOURCEGATE_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests -p no:cacheprovider`` and review the
diff like any other change.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType

from gate.config import DEFAULT_SOFT, Config, SoftBound
from gate.judge.model import NOT_IN_CACHE, QUOTE_NOT_FOUND, Claim, ClaimVerdict, QueryScore, RunJudgement, Usage
from gate.model import Attempt, Finding
from gate.results import CaseResult, CaseWarning, CheckStatus, CitationMark, Counts, PageQuote, QuerySurvival
from gate.score.evaluate import with_sentences
from gate.verdict.compare import BaselineOrigin, Comparison, compare
from gate.verdict.decide import decide
from gate.verdict.report import BaselineStamp, Report

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
CHECKS = ("fabricated_url", "unread_citation", "no_citations", "domain_cap", "domain_floor", "url_unresolved",
          "passage_missing", "stale_sources")


def assert_golden(name: str, text: str) -> None:
    """``text`` must equal ``tests/golden/<name>``; with SOURCEGATE_UPDATE_GOLDEN=1 it is written instead."""
    path = GOLDEN / name
    if os.environ.get("SOURCEGATE_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"{path} is missing: run the tests once with SOURCEGATE_UPDATE_GOLDEN=1"
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"{name} differs from its golden file (SOURCEGATE_UPDATE_GOLDEN=1 rewrites it)"


def case(cid: str, soft: Mapping[str, float | None], failures: Sequence[Finding] = (),
         judgement: RunJudgement | None = None, retrieval: bool = True) -> CaseResult:
    """A case result with every hard check listed (failed where a finding says so)."""
    failed = {f.check for f in failures}
    undated = "stale_sources"
    checks = tuple(CheckStatus(c, "fail" if c in failed else ("not_checked" if c == undated else "pass"),
                               "no publication dates" if c == undated else None) for c in CHECKS)
    return CaseResult(id=cid, question=f"What changed in {cid}?", hard_failures=tuple(failures),
                      checks=checks,
                      counts=Counts(citations=3, unique_domains=2, results=10, pages_read=3,
                                      retrieval_succeeded=retrieval),
                      soft=MappingProxyType(dict(soft)), judgement=judgement)


def judgement(states: Sequence[tuple[str | None, str | None]], calls: int = 2) -> RunJudgement:
    """Claims numbered from 1 with (verdict, reason) each; an overrule when the reason is quote_not_found."""
    claims = tuple(Claim(i, f"The release added feature number {i}.", ("https://blog.example.org/post",))
                   for i in range(1, len(states) + 1))
    verdicts = tuple(
        ClaimVerdict(i, v, overruled=r == QUOTE_NOT_FOUND,
                     overrule_reason=r if r == QUOTE_NOT_FOUND else None,
                     unscored_reason=r if v is None else None,
                     judge_verdict="supported" if r == QUOTE_NOT_FOUND else None)
        for i, (v, r) in enumerate(states, start=1))
    # With no API call, the replies came from the judge cache: two of them, or one and a miss.
    missed = int(any(r == NOT_IN_CACHE for _, r in states)) if not calls else 0
    usage = Usage(calls=calls, input_tokens=6000 * calls, output_tokens=400 * calls,
                  cache_read_tokens=4000 * calls,
                  cache_write_tokens=1500 if calls else 0, cost_usd=0.025 * calls,
                  judge_cache_hits=0 if calls else 2 - missed, judge_cache_misses=missed)
    return RunJudgement(claims=claims, verdicts=verdicts, usage=usage,
                        query_scores=(QueryScore(1, "rust 1.80 release", 4, 4),))


CONFIG = Config(soft=MappingProxyType({**DEFAULT_SOFT, "query_quality": SoftBound(floor=3.5, tolerance=0.25,
                                                                                 block=True)}),
                source="cached-snapshots/demo/sourcegate.yaml")

FAB = Finding("fabricated_url", "cited, but it never appeared in any search result",
              "https://made-up.example.net/rust-1.80")
UNREAD = Finding("unread_citation", "cited and in the results, but never fetched",
                 "https://releases.rs/docs/1.80.0/")
CAP = Finding("domain_cap", "3 cited URLs share rust-lang.org (cap 2)", None)

SUPPORTED = ("supported", None)
BLOG = "https://blog.example.org/post"
ALPHA_BEFORE = f"Rust 1.80 added LazyCell and LazyLock [1].\n\n[1]: {BLOG}\n"
ALPHA_NOW = (f"Rust 1.80 added LazyCell and LazyLock [1], and exclusive ranges in patterns [2].\n\n"
             f"[1]: {BLOG}\n[2]: {FAB.url}\n")


def _with_answers(base: list[CaseResult], cur: list[CaseResult]) -> None:
    """Case alpha's answers: the PR's adds a sentence citing the made-up URL (a diff, marked citations; its
    failures carry their citing sentences, as the checks leave them)."""
    base[0] = replace(base[0], answer=ALPHA_BEFORE, citations=(CitationMark(BLOG, "quote_found"),))
    cur[0] = replace(cur[0], answer=ALPHA_NOW, hard_failures=with_sentences(cur[0].hard_failures, ALPHA_NOW),
                     citations=(CitationMark(BLOG, "quote_found"), CitationMark(FAB.url or "", "fabricated")),
                     quotes=(PageQuote(1, BLOG, "Today we ship Rust 1.80. ", "The release added feature number 1",
                                       ", among others."),))


def regression_pair() -> tuple[Report, Report]:
    """A baseline and a PR run of the same golden set: new failures, moved figures, flipped claims."""
    base_cases = [
        case("alpha", {"query_quality": 4.0, "freshness": 1.0, "diversity": 1.0, "citation_validity": 1.0,
                       "grounding_rate": 1.0, "hallucination_rate": 0.0}, [CAP],
             judgement([SUPPORTED, SUPPORTED, SUPPORTED])),
        case("beta", {"query_quality": 4.5, "freshness": 1.0, "diversity": 0.5, "citation_validity": 1.0,
                      "grounding_rate": 1.0, "hallucination_rate": 0.0}, [],
             judgement([SUPPORTED, SUPPORTED, ("partial", None)])),
        case("gamma", {"query_quality": 4.0, "freshness": None, "diversity": 1.0, "citation_validity": 1.0},
             [UNREAD]),
        case("omega", {"query_quality": 3.0}, []),
    ]
    cur_cases = [
        case("alpha", {"query_quality": 4.0, "freshness": 1.0, "diversity": 1.0, "citation_validity": 0.5,
                       "grounding_rate": 1.0, "hallucination_rate": 0.0}, [CAP, FAB],
             judgement([SUPPORTED, SUPPORTED, SUPPORTED], calls=0)),
        case("beta", {"query_quality": 3.0, "freshness": 0.5, "diversity": 0.5, "citation_validity": 1.0,
                      "grounding_rate": 0.5, "hallucination_rate": 0.5}, [],
             judgement([SUPPORTED, ("unsupported", QUOTE_NOT_FOUND), (None, "not in judge cache")], calls=0),
             retrieval=False),
        # regenerated without the unread page its guard rejected: the baseline's failure is fixed
        replace(case("gamma", {"query_quality": 4.0, "freshness": None, "diversity": 1.0,
                               "citation_validity": 1.0, "regeneration_rate": 1.0}, []),
                attempts=(Attempt(rejected=(UNREAD.url or "",), findings=(UNREAD,)), Attempt(kept=True))),
        replace(case("delta", {"query_quality": 2.5, "diversity": 0.25}, [UNREAD]),
                dropped_constraints=("July 2024",),
                queries=(QuerySurvival("rust 1.80 LazyLock release notes", ("July 2024",)),
                         QuerySurvival("rust release schedule", ("July 2024",), ("LazyLock",))),
                warnings=(CaseWarning("dropped_constraints", "no query kept the constraint(s) «July 2024»"),
                          CaseWarning("missing_recency_caveat", "a fast answer states current figures without a "
                                                                "date or \"as of\""))),
    ]
    _with_answers(base_cases, cur_cases)
    base = Report(verdict="fail", reasons=("1 domain_cap failure(s)",), golden_name="demo", golden_version=3,
                  cases=tuple(base_cases), stamp=BaselineStamp(written_at="2026-01-15T09:30:00+00:00"))
    verdict, reasons = decide(cur_cases, CONFIG)
    cur = Report(verdict=verdict, reasons=reasons, golden_name="demo", golden_version=4,
                 cases=tuple(cur_cases),
                 config_source=CONFIG.source, judge_mode="replay")
    return base, cur


def regression_report(block_on: str = "all") -> Report:
    """The PR run decided against its baseline read at the PR's base commit (``compare.block_on`` as given)."""
    base, cur = regression_pair()
    config = replace(CONFIG, compare=replace(CONFIG.compare, block_on=block_on))
    origin = BaselineOrigin(file="cached-snapshots/demo/baseline.json", ref="origin/main",
                            commit="0123456789abcdef0123456789abcdef01234567",
                            changed_files=("cached-snapshots/demo/golden.yaml",
                                           "cached-snapshots/demo/runs/delta.json"),
                            redefined_cases=())
    return decide_report(cur, config, compare(base, cur, config, origin, datetime(2026, 2, 1, tzinfo=UTC)))


UNRECORDED = ("https://doc.rust-lang.org/stable/releases.html#version-1800-2024-07-25",
              "https://news.example.com/2024/07/rust-1-80-released")
"""Pages case delta read that the base revision's snapshot never recorded (:func:`frozen_web_report`)."""


def frozen_web_report() -> Report:
    """The regression report's PR run with its pages compared with the base revision's snapshot: the blog
    page case alpha cites is not the base's recording (``page_changed``, with the sentence that cites
    it), and case delta read two pages the base never recorded."""
    base, cur = regression_pair()
    changed = Finding("page_changed", f"the page {BLOG} as the run read it is not the base revision's recording "
                                      "of that URL (origin/main's snapshot, page and extraction): changed by this "
                                      "pull request, or read past the frozen web; what a source says is what the "
                                      "base recorded", BLOG)
    alpha, *rest = cur.cases
    alpha = replace(alpha, hard_failures=with_sentences((*alpha.hard_failures, changed), ALPHA_NOW))
    rest[-1] = replace(rest[-1], unrecorded_pages=UNRECORDED)
    cases = (alpha, *rest)
    verdict, reasons = decide(cases, CONFIG)
    cur = replace(cur, verdict=verdict, reasons=reasons, cases=cases)
    origin = BaselineOrigin(file="cached-snapshots/demo/baseline.json", ref="origin/main",
                            commit="0123456789abcdef0123456789abcdef01234567",
                            changed_files=("cached-snapshots/demo/snapshot/pages/4f1c.json",))
    return decide_report(cur, CONFIG, compare(base, cur, CONFIG, origin, datetime(2026, 2, 1, tzinfo=UTC)))


def decide_report(report: Report, config: Config, comparison: Comparison) -> Report:
    """``report``'s cases decided against ``comparison`` (built by :func:`gate.verdict.compare.compare`): the
    verdict, its reasons and the comparison, for reports built by hand (the gate decides a set once,
    in :func:`gate.pipeline.run_set`)."""
    verdict, reasons = decide(report.cases, config, comparison)
    return replace(report, verdict=verdict, reasons=reasons, comparison=comparison)
