"""docs/drift.md says what the code does: its sample is the renderer's output, its tables the code's."""

from __future__ import annotations

import re
from pathlib import Path

from gate.drift.hosts import MAX_RETRY_AFTER, Limits
from gate.drift.live import HEAD_SHARE
from gate.drift.model import VERDICTS, Answer, CitedUrl
from gate.drift.render import MAX_ROWS, drift_markdown
from gate.drift.verdict import drift_report

DOC = (Path(__file__).resolve().parent.parent / "docs" / "drift.md").read_text(encoding="utf-8")


def _sample() -> str:
    gone, moved, changed, mute = (
        CitedUrl("https://www.reuters.com/markets/us/fed-holds-rates-2026-10-29/", ("fomc-october-decision",), 200),
        CitedUrl("https://halvorsen-industries.example/investors/fy2026",
                 ("halvorsen-fy2026-revenue", "halvorsen-guidance"), 200),
        CitedUrl("https://www.metoffice.gov.uk/weather/warnings-and-advice/uk-warnings", ("storm-dervla-disruption",),
                 200, recorded_hash="then"),
        CitedUrl("https://slow.example.org/report.pdf", ("four-day-week-evidence",), 200))
    same = [CitedUrl(f"https://docs.example.com/page/{i}", (f"case-{i}",), 200, recorded_hash="same")
            for i in range(38)]
    answers = {
        gone.url: Answer(status=404, final_url=gone.url, method="GET"),
        moved.url: Answer(status=200, final_url="https://parking.example.net/?domain=halvorsen-industries.example",
                          method="GET"),
        changed.url: Answer(status=200, final_url=changed.url, method="GET", text_hash="now"),
        mute.url: Answer(error="no answer within 30 s (record.deadline_seconds, redirects included)", method="GET"),
        **{c.url: Answer(status=200, final_url=c.url, method="GET", text_hash="same") for c in same},
    }
    report = drift_report("news", 7, [gone, moved, changed, mute, *same], answers, content=True,
                          checked_at="2026-12-07T05:17:00Z")
    return drift_markdown(report)


def test_the_sample_report_is_what_the_renderer_writes() -> None:
    block = DOC.split("<!-- drift-sample:start -->\n```markdown\n", 1)[1].split("```\n<!-- drift-sample:end -->")[0]
    assert block == _sample()


def test_the_verdict_table_lists_every_verdict_in_the_order_they_are_tried() -> None:
    section = DOC.split("## The verdicts", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `(\w+)` \|", section, flags=re.MULTILINE)
    assert sorted(listed) == sorted(VERDICTS)
    assert listed == ["error", "gone", "moved", "changed", "ok"]  # gate.drift.verdict's docstring, tested there


def test_the_limits_table_gives_the_defaults_of_the_code() -> None:
    section = DOC.split("## How hard a site is asked", 1)[1].split("\n## ", 1)[0]
    limits = Limits()
    for row in (f"| {limits.max_concurrency} | `--max-concurrency N` |",
                f"| {limits.host_concurrency} | `--host-concurrency N` |",
                f"| {limits.host_interval * 1000:.0f} ms |", f"| {limits.max_retries} | `--max-retries N` |",
                f"| {limits.retry_wait:g} s |", f"| {MAX_RETRY_AFTER:g} s |"):
        assert row in section, row
    assert HEAD_SHARE == 1 / 3 and "within a third of the deadline" in DOC
    assert f"The table stops at\n{MAX_ROWS} rows" in DOC
