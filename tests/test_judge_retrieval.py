"""What the agent saw in its results reaches the judge: search snippets as evidence (labelled), and
the relevance of the results, judged in the same call as query quality, in the retrieval split."""

from __future__ import annotations

from pathlib import Path

from gate.config import Config
from gate.judge.evidence import select_snippets
from gate.judge.model import Claim, RunJudgement
from gate.judge.render import assess_user, grade_user
from gate.judge.verify import Graded, Material, check
from gate.load.golden import parse_trace
from gate.model import Case, Page, SearchResult
from gate.pipeline import run_paths
from gate.report.markdown import MarkdownReporter
from gate.score.evaluate import evaluate_run
from tests.support.golden_factory import run_for

EXAMPLE = Path(__file__).parent.parent / "cached-snapshots" / "example"
PAGE = Page(url="https://read.example/a", text="The bridge opened to traffic in 1932 after eight years of work.")
SNIPPET = ("https://unread.example/b", "The bridge carries about 160,000 vehicles a day.")
CLAIM = Claim(1, "The bridge carries about 160,000 vehicles a day.", ("https://unread.example/b",))


def test_a_claim_only_a_snippet_supports_is_grounded_in_that_snippet() -> None:
    verdict = check(CLAIM, Graded("supported", "carries about 160,000 vehicles a day"),
                    Material([PAGE], [SNIPPET]))
    assert (verdict.verdict, verdict.located, verdict.located_url) == ("supported", "snippet", SNIPPET[0])
    judgement = RunJudgement(claims=(CLAIM,), verdicts=(verdict,))
    assert judgement.snippet_grounded_count == 1 and judgement.misattributed_count == 0


def test_a_page_the_agent_read_comes_before_a_snippet() -> None:
    claim = Claim(1, "The bridge opened in 1932.", ())
    verdict = check(claim, Graded("supported", "opened to traffic in 1932"), Material([PAGE], [SNIPPET]))
    assert verdict.located == "other_source"
    without = check(CLAIM, Graded("supported", "carries about 160,000 vehicles a day"), Material([PAGE]))
    assert without.overruled  # no snippet in the material: the quote is nowhere the agent looked


def test_snippets_are_labelled_as_snippets_for_the_grader() -> None:
    results = [SearchResult(query=0, position=1, title="t", url=SNIPPET[0], snippet=SNIPPET[1]),
               SearchResult(query=0, position=2, title="t", url=SNIPPET[0] + "?utm_source=x", snippet="again"),
               SearchResult(query=0, position=3, title="t", url="https://empty.example/", snippet="")]
    snippets = select_snippets(results)
    assert snippets == (SNIPPET,)  # one per canonical URL, none for an empty snippet
    text = grade_user([CLAIM], (), "M4RK", snippets)
    assert ('Search snippets the agent saw in its results (not pages it read):\n\n'
            '<material-M4RK kind="snippet" id="R1" url="https://unread.example/b">\n'
            'The bridge carries about 160,000 vehicles a day.\n</material-M4RK>') in text


def test_the_assess_call_shows_the_results_it_scores() -> None:
    run = parse_trace(run_for("a"), "a.json", "a")
    text = assess_user(run, Case(id="a", question=run.question), "M4RK", [])
    assert '<material-M4RK kind="results">\n[1] Result 0 <https://blog.rust-lang.org/2024/07/25/a.html>\nRust 1.80' \
        in text


def test_retrieval_succeeds_only_with_enough_results_and_relevant_ones() -> None:
    run = parse_trace(run_for("a"), "a.json", "a")  # three results, one page read: the count rule holds
    case = Case(id="a", question=run.question)
    assert evaluate_run(run, case, Config()).counts.retrieval_succeeded  # not judged: the counts decide
    assert evaluate_run(run, case, Config(), judgement=RunJudgement(retrieval_relevance=3)).counts.retrieval_succeeded
    judged_poor = evaluate_run(run, case, Config(), judgement=RunJudgement(retrieval_relevance=2))
    assert not judged_poor.counts.retrieval_succeeded
    assert evaluate_run(run, case, Config(min_relevance=2),
                        judgement=RunJudgement(retrieval_relevance=2)).counts.retrieval_succeeded


def test_the_example_set_shows_its_snippet_grounded_claims_and_judged_relevance() -> None:
    report = run_paths([str(EXAMPLE)], None, judge_mode="replay")
    assert all(c.judgement is not None and c.judgement.retrieval_relevance is not None for c in report.cases)
    markdown = MarkdownReporter().render(report)
    assert ("- `python-dataclass-slots` claim 7 «Zero\\-argument super\\(\\) inside a slotted dataclass raises "
            "TypeError»: supported, grounded in a search snippet of "
            "`https://discuss.python.org/t/dataclass-slots-true-and-super/30211` only "
            "(the agent never read that page)") in markdown
