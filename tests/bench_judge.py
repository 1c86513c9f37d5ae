"""``make bench``, judge part: calls and billed input tokens of the judge against the straightforward design.

A synthetic set (by default 20 runs, each with 3 pages of 15,000 characters and an answer of 6
cited claims: 4 taken from the pages, 1 paraphrased, 1 made up) is judged both ways against the local
fake Messages API with the scripted judge, in the same run (:func:`gate.judge.bench.compare_designs`).
Targets: at most 3 calls per run, at least 8x fewer billed input tokens.

Then the same set is judged in ``live`` and in ``batch`` mode (:func:`batch_vs_live`), each into a
fresh judge cache: the API calls, the message batches and the billed cost of each, and what the
batched calls would have cost live. Target: the same calls, half the cost.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
from typing import Any

from gate.config import Config
from gate.judge.session import JudgeSession
from gate.judgement import Usage
from gate.model import Case, Citation, Page, Run, SearchResult
from tests.support.anthropic_server import AnthropicServer
from tests.support.bench_table import print_rows
from tests.support.scripted_judge import scripted_judge

SUBJECTS = ("The regional grid operator", "The central bank", "The health ministry", "The city council",
            "The research consortium", "The port authority", "The national statistics office")
VERBS = ("reported", "announced", "published", "estimated", "confirmed", "recorded")
OBJECTS = ("a rise in demand of", "revenue of", "a budget of", "an inflation rate of", "a surplus of",
           "a waiting list of", "capacity of")
UNITS = ("percent", "million euros", "billion dollars", "megawatts", "patients", "containers")
FILLER = ("Officials said further details would follow in the coming weeks.",
          "Analysts cautioned that the figures may be revised.",
          "The statement did not say how the estimate was produced.",
          "Observers noted that the trend had been visible for some time.")


def fact(rng: random.Random) -> str:
    """One dated, numbered sentence."""
    return (f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} {rng.randint(2, 9800)} "
            f"{rng.choice(UNITS)} in {rng.choice(('March', 'June', 'October'))} {rng.randint(2019, 2026)}.")


def page_text(rng: random.Random, chars: int) -> tuple[str, list[str]]:
    """A page of about ``chars`` characters and the facts on it."""
    facts: list[str] = []
    out: list[str] = []
    n = 0
    while n < chars:
        s = fact(rng) if rng.random() < 0.35 else rng.choice(FILLER)
        if s[0] != "O" and s[0] != "A" and "in" in s:
            facts.append(s)
        out.append(s)
        n += len(s) + 1
        if rng.random() < 0.1:
            out.append("\n\n")
    return " ".join(out), facts


def make_run(i: int, rng: random.Random, page_chars: int) -> Run:
    """One synthetic run."""
    urls = [f"https://site{(i * 3 + k) % 40}.example.org/report/{i}/{k}" for k in range(10)]
    pages, facts = [], []
    for k in range(3):
        text, fs = page_text(rng, page_chars)
        pages.append(Page(url=urls[k], text=text, status=200))
        facts.append(fs)
    claims = [(rng.choice(facts[k % 3]), k % 3) for k in range(4)]
    para = rng.choice(facts[0])
    claims.append((para.replace(" in ", " during ", 1), 0))
    claims.append((fact(rng), 1))
    answer = " ".join(f"{text[:-1]} [{n + 1}]." for n, (text, _) in enumerate(claims))
    answer += "\n\n" + "\n".join(f"[{n + 1}]: {urls[k]}" for n, (_, k) in enumerate(claims))
    results = tuple(SearchResult(0, k + 1, f"Report {k}", u, "") for k, u in enumerate(urls))
    return Run(case=f"c{i:04d}", question=f"What did the agencies report in question {i}?", answer=answer,
               queries=(f"agencies report question {i}",), results=results, pages=tuple(pages),
               citations=tuple(Citation(urls[k]) for _, k in claims))


def _judged(mode: str, runs: list[Run], url: str, key: str, folder: str) -> Usage:
    """The summed usage of judging ``runs`` in ``mode`` into a fresh judge cache under ``folder``."""
    os.environ["ANTHROPIC_BASE_URL"], os.environ["ANTHROPIC_API_KEY"] = url, key
    total = Usage()
    cache = os.path.join(folder, mode, "judgements")
    with JudgeSession(mode, Config(), cache, expected_runs=len(runs)) as session:
        for j in session.map(lambda r: session.judge(r, Case(r.case, r.question)), runs):
            total += j.usage if j is not None else Usage()
    return total


def batch_vs_live(runs: list[Run]) -> dict[str, Any]:
    """Calls and billed cost of the same set judged live and in message batches, each from an empty cache."""
    saved = {k: os.environ.get(k) for k in ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY")}
    try:
        with tempfile.TemporaryDirectory() as folder, AnthropicServer(scripted_judge) as api:
            live = _judged("live", runs, api.url, api.api_key, folder)
            live_calls = api.calls
            batch = _judged("batch", runs, api.url, api.api_key, folder)
            return {"live": live, "batch": batch, "live_requests": live_calls,
                    "batch_requests": sum(len(b.requests) for b in api.batches.values()),
                    "batches": api.batches_created, "batch_live_calls": api.calls - live_calls}
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def main(argv: list[str] | None = None) -> int:
    """Print the comparison; exit 0 whatever it measured (``make bench`` reports, it does not judge)."""
    from gate.judge.bench import compare_designs

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--judge-runs", type=int, default=20)
    ap.add_argument("--judge-page-chars", type=int, default=15_000)
    args, _ = ap.parse_known_args(argv)
    rng = random.Random(7)
    runs = [make_run(i, rng, args.judge_page_chars) for i in range(args.judge_runs)]
    with AnthropicServer(scripted_judge) as api:
        out = compare_designs(runs, api.url, api_key=api.api_key)
    ours, plain = out["ours"], out["straightforward"]
    rows = [
        ("judge: calls per run (max)", f"{ours['max_calls_per_run']} vs {plain['max_calls_per_run']}",
         "target <= 3"),
        ("judge: billed input tokens",
         f"{ours['billed_input_tokens']:,.0f} vs {plain['billed_input_tokens']:,.0f}",
         f"{out['runs']} runs, this design vs straightforward"),
        ("judge: billed input tokens, ratio", f"{out['billed_input_ratio']:.1f}x fewer", "target >= 8x"),
        ("judge: input characters, ratio", f"{out['input_chars_ratio']:.1f}x fewer", ""),
    ]
    modes = batch_vs_live(runs)
    live, batch = modes["live"], modes["batch"]
    rows += [
        ("judge: calls, live vs batch", f"{live.calls} vs {batch.calls}",
         f"batch: {modes['batch_requests']} requests in {modes['batches']} message batches, "
         f"{modes['batch_live_calls']} live calls"),
        ("judge: billed cost, live vs batch", f"${live.cost_usd or 0:.4f} vs ${batch.cost_usd or 0:.4f}",
         f"batch at live prices ${batch.live_cost_usd or 0:.4f}; target: half"),
    ]
    print_rows(rows, value_width=26)
    return 0


if __name__ == "__main__":
    sys.exit(main())
