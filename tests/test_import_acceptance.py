"""Real recorded runs, imported with ``sourcegate import`` and gated: the verdict each record deserves.

Every file under ``tests/fixtures/import/`` is a real recording (ATTRIBUTION.md says whose), and
every one is a case here: the folder it is in names its format (:data:`FORMATS`). Each is converted
through the CLI, checked with the judges off, and must get exactly the hard failures of
:data:`EXPECTED`, in this order: the check id and the URL it names. A file added to the folder
without its verdict fails.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gate.cli import main
from gate.importers import FORMATS as IMPORT_FORMATS

FIXTURES = Path(__file__).parent / "fixtures" / "import"

ACE = "https://acecomments.mu.nu/?post=411647"
CRESCENDO = "https://www.crescendo.ai/news/latest-ai-news-and-updates"
GINZA = "https://www.apple.com/newsroom/2025/09/the-all-new-apple-ginza-opens-this-friday-september-26-in-tokyo/"
FOREM_FANG = "https://future.forem.com/junyu_fang_a216509a97501d/fang-junyus-technology-weekly-september-26-2025-2ndd"
FOREM_OM = "https://future.forem.com/om_shree_0709/major-tech-news-september-25-2025-5h38"
NINETO5 = "https://9to5mac.com/2025/09/22/ios-26-1-beta-1/"
TECHSTARTUPS = ("https://techstartups.com/2025/12/05/"
                "technology-news-today-the-latest-in-tech-ai-startup-news-december-5-2025/")
TECHCRUNCH = "https://techcrunch.com/2025/12/05/"
APPLE_BUY = "https://www.apple.com/shop/buy-iphone"

FORMATS = {"anthropic": "anthropic", "openai": "openai-responses", "perplexity": "perplexity",
           "langfuse": "langfuse", "tavily": "tavily-agent-log", "openinference": "otlp", "langsmith": "langsmith"}
"""folder of tests/fixtures/import/ -> the import format of its files"""

# (format, fixture, [(check, url), ...]): the exact hard failures, in report order
EXPECTED: list[tuple[str, str, list[tuple[str, str | None]]]] = [
    # Two searches, three citations of two results, no page fetched: cited from the snippets.
    ("anthropic", "anthropic/vercel-ai.anthropic-web-search-tool.1.json",
     [("unread_citation", ACE), ("unread_citation", CRESCENDO)]),
    ("anthropic", "anthropic/vercel-ai.anthropic-web-search-tool.1.chunks.txt",
     [("unread_citation", GINZA), ("unread_citation", FOREM_FANG), ("unread_citation", FOREM_OM),
      ("unread_citation", NINETO5)]),
    # The page was fetched and read whole, but the answer cites nothing: neither a citation
    # block nor a link. Nothing is unread or fabricated; the gate says there is no citation.
    ("anthropic", "anthropic/vercel-ai.anthropic-web-fetch-tool.1.json", [("no_citations", None)]),
    # The fetch failed: no page, and an answer that (rightly) cites nothing.
    ("anthropic", "anthropic/vercel-ai.anthropic-web-fetch-tool.error.json", [("no_citations", None)]),
    # The Verge was opened (open_page, find_in_page) and is not flagged; the answer says it
    # "opened" WIRED, TechStartups, Bloomberg and Vercel's blog too, but the record shows no read.
    ("openai-responses", "openai/vercel-ai.openai-web-search-tool.1.json",
     [("unread_citation", TECHSTARTUPS),
      ("unread_citation", "https://www.investopedia.com/"
                          "5-things-to-know-before-the-stock-market-opens-december-5-2025-11862701?utm_source=openai"),
      ("unread_citation", "https://vercel.com/blog/series-f"),
      ("unread_citation", "https://www.sentinelone.com/vulnerability-database/cve-2025-49826/?utm_source=openai"),
      ("unread_citation", "https://www.wired.com/story/the-big-interview-2025-recap"),
      ("unread_citation", "https://www.bloomberg.com/news/articles/2025-09-30/"
                          "vercel-notches-9-3-billion-valuation-in-latest-ai-funding-round")]),
    ("openai-responses", "openai/vercel-ai.openai-web-search-tool.1.chunks.txt",
     [("unread_citation", TECHCRUNCH + "the-new-york-times-is-suing-perplexity-for-copyright-infringement/"
                                       "?utm_source=openai"),
      ("unread_citation", TECHCRUNCH + "meta-signs-commercial-ai-data-agreements-with-publishers-to-offer-"
                                       "real-time-news-on-meta-ai/?utm_source=openai"),
      ("unread_citation", TECHCRUNCH + "netflix-to-acquire-warner-bros-in-a-disruptive-deal-valued-at-82-7b/"
                                       "?utm_source=openai"),
      ("unread_citation", TECHSTARTUPS + "?utm_source=openai"),
      ("unread_citation", "https://finance.yahoo.com/news/ai-coding-startup-vercel-raises-163055044.html"
                          "?utm_source=openai"),
      ("domain_cap", TECHCRUNCH + "meta-signs-commercial-ai-data-agreements-with-publishers-to-offer-"
                                  "real-time-news-on-meta-ai/?utm_source=openai")]),
    # The record lists the URLs Perplexity used and nothing of what it read: every cited one is
    # unread. citations[3] (wfin.com) is never cited, so it is not flagged.
    ("perplexity", "perplexity/vercel-ai.perplexity-citations.json",
     [("unread_citation", "https://en.wikipedia.org/wiki/San_Francisco"),
      ("unread_citation", "https://www.california-demographics.com/cities_by_population"),
      ("unread_citation", "https://fred.stlouisfed.org/series/CASANF0POP"),
      ("unread_citation", "https://worldpopulationreview.com/us-counties/california/san-francisco-county"),
      ("unread_citation", "https://worldpopulationreview.com/us-cities/california/san-francisco"),
      ("unread_citation", "https://populationstat.com/united-states/san-francisco")]),
    # One DuckDuckGo search; the answer lists its five results as links, none opened.
    ("langfuse", "langfuse/agno-2025-06-11.json",
     [("unread_citation", "https://twitter.com/explore/tabs/trending/"),
      ("unread_citation", "https://trends24.in/united-states/"),
      ("unread_citation", "https://getdaytrends.com/top/tweeted/day/"),
      ("unread_citation", "https://91trends.com/twitter/united-states/"),
      ("unread_citation", "https://globaltwittertrends.com/united-states/")]),
    # A real run that read three pages and cited six apple.com URLs. iphone-17-pro was extracted
    # (fetched and read) though no search showed it (only /ca/shop/buy-iphone/iphone-17-pro): a page
    # the agent read is seen. iphone-air and iphone-17e stand as links on the pages it read: seen,
    # not made up, but cited without being opened. The store page itself is on no page, in no
    # result: written from memory.
    ("tavily-agent-log", "tavily/run-iphone-models.cell15.stdout.txt",
     [("fabricated_url", APPLE_BUY), ("unread_citation", APPLE_BUY + "/iphone-air"),
      ("unread_citation", APPLE_BUY + "/iphone-17e"), ("domain_cap", APPLE_BUY + "/iphone-17")]),
    # LangGraph's trace: the question is the first human message of trace.input's "messages" (JSON
    # text), the answer the last AI message; its Web-Search tool (a stub) returned example.com, which
    # the answer links without reading.
    ("langfuse", "langfuse/langgraph-2025-08-22.json", [("unread_citation", "https://example.com")]),
    # BeeAI's trace: the Wikipedia search is three sibling spans, the query on the start event (its
    # input null), the results on the success event. The answer cites nothing.
    ("langfuse", "langfuse/beeai-2025-08-01.json", [("no_citations", None)]),
    # LlamaIndex: one completion, no search, an answer with no link.
    ("langfuse", "langfuse/llamaindex-2025-06-05.json", [("no_citations", None)]),
    # OpenInference's example spans (the spec's third block reuses the first one's span id: one span,
    # read from its first record) and LangSmith's captured runs: a chat turn with no search and an
    # answer that cites nothing.
    ("otlp", "openinference/openinference-spec.traces-md.example-spans.json", [("no_citations", None)]),
    ("langsmith", "langsmith/langsmith-sdk.langsmith_js_wrap_openai_default.json", [("no_citations", None)]),
    ("langsmith", "langsmith/langsmith-sdk.langsmith_js_wrap_openai_stream.json", [("no_citations", None)]),
    ("tavily-agent-log", "tavily/run-linkedin-jobs.cell19.stdout.txt",
     [("unread_citation", "https://www.linkedin.com/jobs/view/software-engineer-32949-at-stealth-startup-4378192559"),
      ("unread_citation", "https://www.linkedin.com/jobs/software-engineer-jobs-san-francisco-bay-area")]),
]


def import_and_check(tmp_path: Path, fmt: str, fixture: str) -> tuple[int, dict[str, object]]:
    """Import one fixture through the CLI, then gate the trace; the exit code and the JSON report."""
    out = tmp_path / "runs"
    assert main(["import", fmt, str(FIXTURES / fixture), "--out", str(out), "--case", "run"]) == 0
    report = tmp_path / "report.json"
    code = main(["check", str(out / "run.json"), "--json", str(report), "--judge", "off"])
    return code, json.loads(report.read_text(encoding="utf-8"))


VERDICTS = {fixture: (fmt, expected) for fmt, fixture, expected in EXPECTED}
RECORDS = sorted(str(p.relative_to(FIXTURES)) for p in FIXTURES.rglob("*")
                 if p.is_file() and p.name != "ATTRIBUTION.md")


@pytest.mark.parametrize("fixture", RECORDS)
def test_each_real_record_gets_the_verdict_it_deserves(tmp_path: Path, fixture: str) -> None:
    assert fixture in VERDICTS, f"{fixture} has no verdict in EXPECTED"
    fmt, expected = VERDICTS[fixture]
    assert fmt == FORMATS[fixture.split("/")[0]], f"{fixture} is in the folder of another format"
    code, report = import_and_check(tmp_path, fmt, fixture)
    [case] = report["cases"]  # type: ignore[index]
    assert [(f["check"], f["url"]) for f in case["hard_failures"]] == expected
    assert code == 1
    assert report["verdict"] == "fail"


def test_the_fetched_page_is_read_in_full_and_never_reported_unread(tmp_path: Path) -> None:
    fixture = "anthropic/vercel-ai.anthropic-web-fetch-tool.1.json"
    code, report = import_and_check(tmp_path, "anthropic", fixture)
    trace = json.loads((tmp_path / "runs" / "run.json").read_text(encoding="utf-8"))
    [page] = trace["pages"]
    assert page["url"] == "https://en.wikipedia.org/wiki/Maglemosian_culture"
    assert page["fetched_at"] == "2025-07-17T21:38:38.606000Z"
    assert page["text"].startswith("This article needs additional citations")
    assert len(page["text"]) == 6645 and page["truncated"] is False
    [case] = report["cases"]  # type: ignore[index]
    assert case["checks"]["unread_citation"]["status"] == "pass"
    assert case["checks"]["fabricated_url"]["status"] == "pass"


def test_every_fixture_file_is_attributed_and_every_verdict_has_its_file() -> None:
    attributed = (FIXTURES / "ATTRIBUTION.md").read_text(encoding="utf-8")
    for name in RECORDS:
        assert f"`{name}`" in attributed, f"{name} has no row in ATTRIBUTION.md"
    assert sorted(VERDICTS) == RECORDS
    assert sorted(FORMATS.values()) == sorted(IMPORT_FORMATS), "every format has a real record here"
