"""Judge mode ``batch``: the live judge's requests as message batches, through the real SDK.

The fake Messages API on loopback (:mod:`tests.support.anthropic_server`) serves the batch routes in
the API's wire format; the scripted judge answers each request, batched or live, the same way. The
session's clock and sleep are injected: polling never waits.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gate.cli import main
from gate.config import Config, JudgeConfig
from gate.errors import InputError
from gate.exitcodes import ExitCode
from gate.files.jsonio import load_json, validate
from gate.judge.batch import Polling
from gate.judge.batch.pending import FILE_NAME
from gate.judge.session import JudgeSession
from gate.judgement import RunJudgement
from gate.model import Case
from tests.support.anthropic_server import AnthropicServer, error_reply
from tests.support.fake_time import FakeTime
from tests.support.golden_factory import write_golden
from tests.support.judge_run import make_run
from tests.support.scripted_judge import scripted_judge

CONFIG = Config(judge=JudgeConfig(model="claude-sonnet-4-6", concurrency=2))
NO_WAIT = Polling(first=1.0, factor=2.0, most=8.0, grace=30.0)


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[AnthropicServer]:
    with AnthropicServer(scripted_judge, polls_to_end=3) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", server.api_key)
        yield server


def _judge_all(mode: str, cache: Path | None, n: int = 3, config: Config = CONFIG,
               time: FakeTime | None = None) -> tuple[list[RunJudgement], JudgeSession]:
    run = make_run()
    time = time or FakeTime()
    cases = [Case(f"c{i}", f"{run.question} ({i})") for i in range(n)]
    with JudgeSession(mode, config, str(cache) if cache else None, expected_runs=n, polling=NO_WAIT,
                      clock=time.clock, sleep=time.sleep) as session:
        out = list(session.map(lambda c: session.judge(run, c), cases))
    assert all(j is not None for j in out)
    return [j for j in out if j is not None], session


def _verdicts(judgements: list[RunJudgement]) -> list[list[tuple[int, str]]]:
    return [[(v.claim_id, v.verdict) for v in j.verdicts] for j in judgements]


def test_a_batch_run_gives_the_live_verdicts_and_shares_the_cache_entries(api: AnthropicServer,
                                                                           tmp_path: Path) -> None:
    live, _ = _judge_all("live", tmp_path / "live" / "judgements")
    batch, session = _judge_all("batch", tmp_path / "batch" / "judgements")
    assert _verdicts(batch) == _verdicts(live)
    assert [j.claims for j in batch] == [j.claims for j in live]
    live_entries = sorted(p.name for p in (tmp_path / "live" / "judgements").glob("*.json"))
    batch_entries = sorted(p.name for p in (tmp_path / "batch" / "judgements").glob("*.json"))
    assert batch_entries == live_entries  # the same requests under the same keys
    assert not (tmp_path / "batch" / "judgements" / FILE_NAME).exists()
    assert api.batches_created == 2  # claims and assessment, then the verdicts
    assert session.warnings == ()


def test_a_batch_run_bills_each_request_once_at_half_the_live_price(api: AnthropicServer, tmp_path: Path) -> None:
    one_at_a_time = Config(judge=JudgeConfig(model="claude-sonnet-4-6", concurrency=1))  # no two live calls race
    live, _ = _judge_all("live", tmp_path / "live" / "judgements", config=one_at_a_time)
    batch, _ = _judge_all("batch", tmp_path / "batch" / "judgements")
    live_total = sum((j.usage for j in live), type(live[0].usage)())
    batch_total = sum((j.usage for j in batch), type(batch[0].usage)())
    assert batch_total.calls == live_total.calls == batch_total.batch_calls
    assert batch_total.input_tokens == live_total.input_tokens
    assert batch_total.cost_usd is not None and live_total.cost_usd is not None
    assert batch_total.cost_usd == pytest.approx(live_total.cost_usd / 2)
    assert batch_total.live_cost_usd == pytest.approx(live_total.cost_usd)


def test_a_cache_hit_makes_no_batch_call(api: AnthropicServer, tmp_path: Path) -> None:
    cache = tmp_path / "set" / "judgements"
    first, _ = _judge_all("batch", cache)
    calls = len(api.batch_calls)
    again, _ = _judge_all("batch", cache)
    assert len(api.batch_calls) == calls
    assert _verdicts(again) == _verdicts(first)
    assert all(j.usage.calls == 0 and j.usage.from_judge_cache for j in again)


def test_openai_has_no_batch_mode_here(tmp_path: Path) -> None:
    config = Config(judge=JudgeConfig(provider="openai", model="gpt-4.1-mini"))
    with pytest.raises(InputError, match="'openai'"), JudgeSession("batch", config, None):
        pass


def test_judge_batch_with_the_openai_provider_is_an_input_error_naming_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_golden(tmp_path / "set", ["a"])
    out = tmp_path / "report.json"
    assert main(["check", str(root), "--judge", "batch", "--judge-provider", "openai", "--json", str(out)]) == 2
    assert "judge.provider is 'openai'" in capsys.readouterr().err
    assert not out.exists()


def _only_grading(outcome: str) -> object:
    return lambda request: outcome if request.tool_name == "grade_claims" else "succeeded"


@pytest.mark.parametrize(("outcome", "reason"), [
    ("errored", "the batch request errored: api_error: Internal server error"),
    ("expired", "the message batch expired (24 hours) before this request ran"),
    ("canceled", "the message batch was cancelled before this request ran"),
])
def test_a_request_that_did_not_succeed_leaves_its_claims_unscored_with_the_reason(
        api: AnthropicServer, tmp_path: Path, outcome: str, reason: str) -> None:
    api.batch_outcome = _only_grading(outcome)  # type: ignore[assignment]
    judgements, _ = _judge_all("batch", tmp_path / "set" / "judgements", n=2)
    for j in judgements:
        assert j.claims and j.claims_error is None
        assert {v.verdict for v in j.verdicts} == {None}  # unscored, never supported
        assert {v.unscored_reason for v in j.verdicts} == {reason}
    cached = {load_json(str(p))["tool"] for p in (tmp_path / "set" / "judgements").glob("*.json")}
    assert cached == {"extract_claims", "assess_run"}  # a failure is never cached


def test_an_api_error_in_a_batch_is_unscored_not_passed(api: AnthropicServer, tmp_path: Path) -> None:
    api.responder = lambda request: error_reply(500) if request.tool_name == "extract_claims" \
        else scripted_judge(request)
    judgements, _ = _judge_all("batch", tmp_path / "set" / "judgements", n=1)
    error = judgements[0].claims_error or ""
    assert error.startswith("claims could not be extracted: the batch request errored: api_error")
    assert judgements[0].verdicts == ()


def test_expired_requests_make_the_gate_inconclusive(api: AnthropicServer, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    api.polls_to_end = 1  # the CLI polls at once: no test waits
    api.batch_outcome = _only_grading("expired")  # type: ignore[assignment]
    root = write_golden(tmp_path / "set", ["a", "b", "c"])
    out = tmp_path / "report.json"
    assert main(["check", str(root), "--judge", "batch", "--json", str(out)]) == ExitCode.INCONCLUSIVE
    report = load_json(str(out))
    validate(report, "report", str(out))
    assert report["verdict"] == "inconclusive" and report["judge_mode"] == "batch"
    assert report["judge"]["counts"]["unscored"] == 3 and report["judge"]["counts"].get("supported", 0) == 0
    capsys.readouterr()


def test_the_report_shows_the_billed_cost_and_the_live_cost(api: AnthropicServer, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    api.polls_to_end = 1
    root = write_golden(tmp_path / "set", ["a", "b"])
    out = tmp_path / "report.json"
    assert main(["check", str(root), "--judge", "batch", "--json", str(out), "--markdown", "-"]) == 0
    text = capsys.readouterr().out
    report = load_json(str(out))
    validate(report, "report", str(out))
    usage = report["judge"]["usage"]
    assert usage["calls"] == usage["batch_calls"] == 6
    assert usage["cost_usd"] == pytest.approx(usage["live_cost_usd"] / 2)
    assert "6 through message batches, billed at the batch price; live it would be $" in text
    assert api.calls == 0 and api.batches_created == 2  # no live call at all
    assert not (root / "judgements" / FILE_NAME).exists()
    assert main(["comment", str(out), "--output", "-"]) == 0
    comment = capsys.readouterr().out
    assert "Judge (batch): 6 API call(s)" in comment
    assert "(6 through message batches, billed at the batch price; live it would be $" in comment


class Interrupted(Exception):
    """Stands for Ctrl-C while the run waits for its batch."""


def test_an_interrupted_run_resumes_its_batch_and_pays_once(api: AnthropicServer, tmp_path: Path) -> None:
    api.polls_to_end = 4
    cache = tmp_path / "set" / "judgements"
    time = FakeTime()

    def interrupt(seconds: float) -> None:
        raise Interrupted

    run = make_run()
    with pytest.raises(Interrupted), JudgeSession("batch", CONFIG, str(cache), polling=NO_WAIT,
                                                  clock=time.clock, sleep=interrupt) as session:
        list(session.map(lambda c: session.judge(run, c), [Case("c0", run.question)]))
    assert api.batches_created == 1
    pending = load_json(str(cache / FILE_NAME))
    validate(pending, "judge-batch", str(cache / FILE_NAME))
    [first] = api.batches
    assert [b["id"] for b in pending["batches"]] == [first]

    judgements, session = _judge_all("batch", cache, n=1)
    assert api.batches_created == 2  # the first resumed, only the verdicts' round is new
    assert api.batches[first].polls >= 4
    assert judgements[0].unscored_count == 0 and judgements[0].usage.batch_calls == 3
    assert not (cache / FILE_NAME).exists()


def test_a_pending_batch_no_request_matches_is_dropped_with_a_note(api: AnthropicServer, tmp_path: Path) -> None:
    cache = tmp_path / "set" / "judgements"
    cache.mkdir(parents=True)
    (cache / FILE_NAME).write_text('{"format": "sourcegate-batch/1", "batches": [{"id": "msgbatch_old", '
                                   f'"keys": ["{"0" * 64}"]}}]}}', encoding="utf-8")
    _, session = _judge_all("batch", cache, n=1)
    assert any("msgbatch_old" in w and "dropped" in w for w in session.warnings)
    assert not (cache / FILE_NAME).exists()


def test_a_damaged_pending_file_is_an_input_error(api: AnthropicServer, tmp_path: Path) -> None:
    cache = tmp_path / "set" / "judgements"
    cache.mkdir(parents=True)
    (cache / FILE_NAME).write_text('{"format": "sourcegate-batch/1", "batches": [{"id": 7}]}', encoding="utf-8")
    with pytest.raises(InputError, match=r"\.batch\.json"):
        _judge_all("batch", cache, n=1)


def test_past_the_deadline_the_batches_are_cancelled_and_their_claims_unscored(
        api: AnthropicServer, tmp_path: Path) -> None:
    api.polls_to_end = 1000
    config = Config(judge=JudgeConfig(model="claude-sonnet-4-6", batch_deadline_seconds=20))
    time = FakeTime()
    judgements, session = _judge_all("batch", tmp_path / "set" / "judgements", n=1, config=config, time=time)
    assert ("POST", f"/v1/messages/batches/{next(iter(api.batches))}/cancel") in api.batch_calls
    assert judgements[0].claims_error == ("claims could not be extracted: the message batch was cancelled "
                                          "before this request ran")
    assert any("deadline of 20 s passed" in w for w in session.warnings)
    assert time.now < 40  # polled with backoff, never past the deadline by more than a poll
    assert not (tmp_path / "set" / "judgements" / FILE_NAME).exists()


def test_polling_backs_off_to_its_ceiling(api: AnthropicServer, tmp_path: Path) -> None:
    api.polls_to_end = 7
    time = FakeTime()
    _judge_all("batch", tmp_path / "set" / "judgements", n=1, time=time)
    assert time.slept[:6] == [1.0, 2.0, 4.0, 8.0, 8.0, 8.0]


def test_a_refused_key_stops_the_batches_at_once(api: AnthropicServer, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-wrong")
    judgements, session = _judge_all("batch", tmp_path / "set" / "judgements", n=2)
    assert api.batches_created == 0 and len(api.batch_calls) == 1
    assert all(j.claims_error and "refused the key" in j.claims_error for j in judgements)
    assert sum("stopped calling the API" in w for w in session.warnings) == 1


def test_the_judges_deadline_starts_after_the_wait_for_the_batches(api: AnthropicServer) -> None:
    api.polls_to_end = 5  # 1 + 2 + 4 + 8 s of polling, past the judge's 5 s deadline
    config = Config(judge=JudgeConfig(model="claude-sonnet-4-6", deadline_seconds=5))
    time = FakeTime()
    judgements, _ = _judge_all("batch", None, n=2, config=config, time=time)  # no cache: every reply from memory
    assert time.now > 5
    assert all(j.unscored_count == 0 and j.claims_error is None for j in judgements)
    assert sum(j.usage.batch_calls for j in judgements) == 3  # each batched reply billed once


def test_judging_one_run_at_a_time_outside_map_settles_its_own_batches(api: AnthropicServer, tmp_path: Path) -> None:
    run = make_run()
    time = FakeTime()
    with JudgeSession("batch", CONFIG, str(tmp_path / "set" / "judgements"), polling=NO_WAIT, clock=time.clock,
                      sleep=time.sleep) as session:
        first = session.judge(run, Case("c0", run.question))
        second = session.judge(run, Case("c1", run.question))
    assert first is not None and second is not None
    assert first.unscored_count == 0 and first.usage.batch_calls == 3
    assert second.usage.calls == 0 and second.usage.from_judge_cache
    assert api.batches_created == 2


def test_a_pending_batch_the_api_does_not_know_is_sent_again(api: AnthropicServer, tmp_path: Path) -> None:
    cache = tmp_path / "set" / "judgements"
    first, _ = _judge_all("batch", tmp_path / "fresh" / "judgements", n=1)  # learn the first round's keys
    key = next(iter(api.batches.values())).requests[0]["custom_id"]  # asked for in the first round
    cache.mkdir(parents=True)
    (cache / FILE_NAME).write_text('{"format": "sourcegate-batch/1", "batches": [{"id": "msgbatch_elsewhere", '
                                   f'"keys": ["{key}"]}}]}}', encoding="utf-8")
    created = api.batches_created
    again, session = _judge_all("batch", cache, n=1)
    assert _verdicts(again) == _verdicts(first) and again[0].unscored_count == 0
    assert api.batches_created == created + 2
    assert any("batch msgbatch_elsewhere of an earlier run could not be resumed (API error 404" in w
               for w in session.warnings)
    assert not (cache / FILE_NAME).exists()


def test_shards_judged_in_batches_merge(api: AnthropicServer, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    api.polls_to_end = 1
    root = write_golden(tmp_path / "set", ["a", "b", "c", "d"])
    parts = [tmp_path / f"shard-{i}.json" for i in (1, 2)]
    for i, part in enumerate(parts, 1):
        assert main(["check", str(root), "--judge", "batch", "--shard", f"{i}/2", "--json", str(part)]) == 0
    out = tmp_path / "merged.json"
    assert main(["merge", str(root), *map(str, parts), "--json", str(out)]) == 0
    merged = load_json(str(out))
    assert merged["judge_mode"] == "batch" and merged["judge"]["usage"]["batch_calls"] == 12
    capsys.readouterr()


def test_a_poll_answered_a_byte_at_a_time_ends_at_the_judges_deadline(api: AnthropicServer, tmp_path: Path) -> None:
    # The SDK times out each read, not the reply: a server that trickles its answer to a poll would
    # otherwise hold the run for as long as it likes. Every call ends within judge.deadline_seconds.
    api.trickle_polls = 0.5  # a batch object of some 400 bytes: over three minutes to come whole
    config = Config(judge=JudgeConfig(model="claude-sonnet-4-6", deadline_seconds=0.25, max_retries=0))
    judgements, session = _judge_all("batch", tmp_path / "set" / "judgements", n=1, config=config)
    [judgement] = judgements
    assert judgement.claims_error is not None and "within 0.25 s (judge.deadline_seconds)" in judgement.claims_error
    assert api.batches_created == 1  # created at once; then its polls were given up, never passed
    assert (tmp_path / "set" / "judgements" / FILE_NAME).exists()  # it stays pending for the next run
