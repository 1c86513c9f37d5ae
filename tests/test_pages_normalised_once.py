"""A run's pages are normalised once, for the judge and every check that reads them.

The pipeline prepares each run once (:class:`gate.checks.base.Subject`) and hands it to the judge
(:class:`gate.judge.base.JudgeRequest`) and then to the checks: a page the judge normalised to
verify a quote is the very index ``passage_missing`` and ``paraphrase_drift`` search.
"""

from __future__ import annotations

from gate.checks.base import Subject
from gate.config import Config, JudgeConfig
from gate.judge.base import JudgeRequest
from gate.judge.llm import LLMJudge
from gate.judge.providers import build_provider
from gate.model import Case, Citation, Page, Run, SearchResult
from gate.score.evaluate import evaluate_run

PAGE = Page("https://example.org/bridge",
            "The bridge opened in 1932. It is 503 metres long and carries four lanes of traffic.")
OTHER = Page("https://example.net/paint", "Local papers said the bridge was painted grey in 1998.")
RUN = Run(case="bridge", question="How long is the bridge?",
          answer="The bridge is 503 metres long [1].\n\n[1]: https://example.org/bridge",
          queries=("bridge length",), pages=(PAGE, OTHER),
          results=(SearchResult(query=0, position=1, title="The bridge", url=PAGE.url, snippet="503 metres"),),
          citations=(Citation("https://example.org/bridge", "It is 503 metres long"),))
CASE = Case(id="bridge", question=RUN.question)
CONFIG = Config(judge=JudgeConfig(provider="scripted"))


def _judge() -> LLMJudge:
    return LLMJudge(CONFIG, cache=None, caller=build_provider(CONFIG.judge))


def test_the_judge_normalises_the_pages_of_the_subject_it_is_given() -> None:
    subject = Subject.build(RUN, CASE, CONFIG)
    assert subject.normalised == 0
    judgement = _judge().judge(JudgeRequest(RUN, CASE, subject))
    assert judgement.verdicts and judgement.verdicts[0].located == "cited"
    # The quote was verified on the cited page, normalised into the subject the checks will read.
    assert subject.normalised == 1


def test_the_checks_read_the_pages_the_judge_normalised() -> None:
    subject = Subject.build(RUN, CASE, CONFIG)
    judgement = _judge().judge(JudgeRequest(RUN, CASE, subject))
    judged_page = subject.index(PAGE)
    result = evaluate_run(RUN, CASE, CONFIG, judgement=judgement, subject=subject)
    assert not result.hard_failures
    # passage_missing and paraphrase_drift searched the cited page: the index the judge made, no other.
    assert subject.normalised == 1 and subject.index(PAGE) is judged_page


def test_a_judgement_joins_the_subject_without_normalising_again() -> None:
    subject = Subject.build(RUN, CASE, CONFIG)
    index = subject.index(PAGE)
    judged = subject.with_judgement("slow", {"https://example.org/bridge": "primary"})
    assert judged.index(PAGE) is index and judged.normalised == 1
    assert judged.regime == "slow" and judged.source_kind("https://example.org/bridge") == "primary"
    assert judged == Subject.build(RUN, CASE, CONFIG, "slow", {"https://example.org/bridge": "primary"})


def test_a_request_without_a_subject_is_prepared_by_the_judge() -> None:
    request = JudgeRequest(RUN, CASE)
    assert request.prepared(CONFIG) == Subject.build(RUN, CASE, CONFIG)
    assert _judge().judge(request).verdicts[0].located == "cited"
