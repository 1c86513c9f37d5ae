"""``make bench``: how fast the gate is, measured against a straightforward version in one run.

It writes a synthetic golden set (by default 2,000 runs, each with 10 results, 3 pages of 15,000
characters and 5 quoted citations) to a temporary folder, then measures:

- the whole check pipeline (load, validate, every hard check, report) in runs per second, in one
  process;
- the same checks written the straightforward way (regex URL extraction, difflib passage search)
  on a sample of the same runs, and the ratio between the two;
- single passage checks at the 50th and 90th percentile;
- peak traced memory for a small and the full set (streaming keeps them close);
- start-up: the time to import the CLI, and that the anthropic SDK is not imported by it;
- hostile inputs: the time and peak memory (RSS) of `sourcegate check` refusing a 34 MB trace of
  3,000,000 bad results and a 500-byte YAML alias bomb (each must exit 2).
- a whole check of the example set with one adversarial trace added (a 100,000-character quote and
  a 2,000-character paraphrase against a 2 MB page, and an answer built to make URL extraction
  backtrack): it must finish in seconds; and the same with one answer padded to 30 MB of cited
  prose, under 0.1 s per MB.
- every core (``tests/bench_jobs.py``): ``sourcegate check --jobs 2`` against ``--jobs 1`` on the
  full set, the speed-up, and the peak RSS of the check and of each worker;
- flat memory (``tests/bench_memory.py``): peak RSS of ``sourcegate check --json`` at 500, 2,000
  and 8,000 runs, without and with a baseline (``SOURCEGATE_BENCH_MEMORY=0`` skips it);
- shards (``tests/bench_shards.py``, 8,000 runs): one job against 4 shards plus their merge, and
  the merge alone (``SOURCEGATE_BENCH_SHARDS=0`` skips it).
- ``sourcegate run``: its overhead per case against the bare command, the network namespace's per
  case (confined against unconfined), the replay server's requests per second, and the whole loop on
  the example set (``tests/bench_run.py``).
- ``sourcegate drift``: cited URLs checked per second, 200 on 4 loopback hosts with the default
  per-host limits, and without the spacing (``tests/bench_drift.py``).

Nothing here is a pass/fail test; it prints what it measured.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from statistics import quantiles
from typing import Any

from tests.bench_drift import rows as drift_rows
from tests.bench_jobs import rows as jobs_rows
from tests.bench_run import rows as run_rows
from tests.support.bench_table import print_rows

WORDS = (
    "the", "of", "and", "to", "in", "a", "is", "that", "for", "on", "with", "as", "was", "by", "at", "from",
    "it", "an", "be", "this", "which", "or", "are", "have", "has", "government", "report", "data", "study",
    "market", "energy", "climate", "policy", "research", "growth", "economy", "bank", "rate", "inflation",
    "election", "court", "ruling", "company", "revenue", "quarter", "percent", "million", "billion",
    "system", "model", "analysis", "survey", "results", "during", "after", "before", "between", "increase",
    "decrease", "announced", "published", "according", "official", "statement", "agency", "ministry",
    "university", "researchers", "scientists", "health", "water",
)


def sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(12, 24))]
    words.append(str(rng.randint(1, 9999)))
    rng.shuffle(words)
    return " ".join(words).capitalize() + "."


def page_text(rng: random.Random, chars: int) -> str:
    out: list[str] = []
    n = 0
    while n < chars:
        s = sentence(rng)
        out.append(s)
        n += len(s) + 1
    return " ".join(out)[:chars]


def make_run(i: int, rng: random.Random, page_chars: int) -> dict[str, object]:
    urls = [f"https://site{(i * 7 + k) % 50}.example.com/article/{i}/{k}?utm_source=x" for k in range(10)]
    pages = []
    for k in range(3):
        pages.append({"url": urls[k], "status": 200, "text": page_text(rng, page_chars), "truncated": False,
                      "fetched_at": "2026-10-01T10:00:00Z", "published": "2026-09-01"})
    citations = []
    for k in range(5):
        page = pages[k % 3]["text"]
        assert isinstance(page, str)
        start = rng.randint(0, len(page) - 300)
        quote = whole_words(page, start, start + rng.randint(150, 280))
        if k == 3:  # a light paraphrase
            quote = quote.replace(" the ", " a ", 2)
        if k == 4:  # an absent passage
            quote = page_text(rng, 200)
        citations.append({"url": urls[k % 3], "quote": quote})
    answer = " ".join(f"Claim {k} [{k + 1}]." for k in range(5)) + "\n\n" + "\n".join(
        f"[{k + 1}]: {urls[k % 3]}" for k in range(5))
    return {
        "format": "sourcegate-trace/1", "case": f"c{i:05d}", "question": f"Question {i}?",
        "started_at": "2026-10-01T10:00:00Z", "queries": [f"query {i}"],
        "results": [{"query": 0, "position": k + 1, "title": f"Result {k}", "url": u, "snippet": "snippet",
                     "published": "2026-09-01"} for k, u in enumerate(urls)],
        "pages": pages, "answer": answer, "citations": citations,
    }


def write_set(root: str, n: int, page_chars: int) -> None:
    rng = random.Random(1234)
    os.makedirs(os.path.join(root, "runs"), exist_ok=True)
    with open(os.path.join(root, "golden.yaml"), "w", encoding="utf-8") as f:
        f.write("version: 1\nname: bench\ncases:\n")
        for i in range(n):
            f.write(f"  - {{id: c{i:05d}, question: 'Question {i}?', class: comparison, freshness: slow}}\n")
    for i in range(n):
        with open(os.path.join(root, "runs", f"c{i:05d}.json"), "w", encoding="utf-8") as f:
            json.dump(make_run(i, rng, page_chars), f)


# --- the straightforward version of the same checks -------------------------------------------
URL_RE = re.compile(r"https?://[^\s)\]]+")


def whole_words(text: str, start: int, end: int) -> str:
    """``text[start:end]`` narrowed to whole words, as an agent quotes (a quote starts and ends on word edges)."""
    start = text.find(" ", start) + 1
    return text[start:text.rfind(" ", start, end)].strip()


def naive_passage_found(quote: str, page: str, threshold: float = 0.8) -> bool:
    """Slide a quote-sized window over the page word by word; difflib ratio on each."""
    q = " ".join(quote.lower().split())
    words = page.lower().split()
    size = len(q.split())
    best = 0.0
    for start in range(0, max(1, len(words) - size + 1)):
        window = " ".join(words[start:start + size])
        best = max(best, difflib.SequenceMatcher(None, q, window).ratio())
        if best >= threshold:
            return True
    return False


def naive_check(run: dict[str, object]) -> int:
    """Regex extraction, list membership and difflib passage search: the obvious implementation."""
    answer = str(run["answer"])
    cited = URL_RE.findall(answer)
    results = [r["url"] for r in run["results"]]  # type: ignore[attr-defined]
    pages = {p["url"]: p for p in run["pages"]}  # type: ignore[attr-defined]
    failures = 0
    for u in cited:
        if u not in results or u not in pages:
            failures += 1
    for c in run["citations"]:  # type: ignore[attr-defined]
        page = pages.get(c["url"])
        if page is not None and not naive_passage_found(c["quote"], page["text"]):
            failures += 1
    return failures


# --- measurements ------------------------------------------------------------------------------
def time_pipeline(root: str) -> tuple[float, int]:
    from gate.pipeline import run_paths

    t0 = time.perf_counter()
    report = run_paths([root], None)
    return time.perf_counter() - t0, len(report.cases)


def peak_memory(root: str) -> tuple[int, int]:
    """(peak, retained) traced memory of a pipeline run; traced apart from the timing (tracing is slow).

    Retained is what the finished report holds; the peak adds the one trace being checked and the
    parse of golden.yaml, whose node graph grows with the number of cases, not of runs read.
    """
    from gate.pipeline import run_paths

    tracemalloc.start()
    report = run_paths([root], None)
    retained, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del report
    return peak, retained


def time_naive(root: str, sample: int) -> float:
    files = sorted(os.listdir(os.path.join(root, "runs")))[:sample]
    t0 = time.perf_counter()
    for name in files:
        with open(os.path.join(root, "runs", name), encoding="utf-8") as f:
            naive_check(json.load(f))
    return (time.perf_counter() - t0) / len(files)


def passage_percentiles(root: str, n: int) -> tuple[float, float]:
    from gate.checks.passage import PageIndex

    times: list[float] = []
    files = sorted(os.listdir(os.path.join(root, "runs")))[:n]
    for name in files:
        with open(os.path.join(root, "runs", name), encoding="utf-8") as f:
            run = json.load(f)
        pages = {p["url"]: p["text"] for p in run["pages"]}
        for c in run["citations"]:
            index = PageIndex(pages[c["url"]])  # a cold page each time: the pessimistic case
            t0 = time.perf_counter()
            match = index.find(c["quote"])
            if not match.found:  # as passage_missing does: a miss shows the page's closest passage
                index.closest(match.part or "")
            times.append(time.perf_counter() - t0)
    cuts = quantiles(times, n=10)
    return cuts[4] * 1000, cuts[8] * 1000


def time_guard(page_chars: int, repeats: int = 200) -> tuple[float, float, float, float]:
    """``Recorder.guard()`` on one recorded run (10 results, 3 pages, 5 quoted citations), in ms.

    Medians of: a clean answer (5 quotes verbatim on their pages); the bench's usual answer (one
    paraphrase, one absent passage) new to the recorder, so the fuzzy search runs; the same answer
    checked again (as after a regeneration that kept its quotes); and the first call, which
    normalises the pages once for the recording.
    """
    from gate.checks.passage import PageIndex
    from gate.config import Config
    from gate.model import Case
    from gate.record import Recorder
    from gate.record.guard import guard

    run: dict[str, Any] = make_run(0, random.Random(99), page_chars)
    texts = {p["url"]: p["text"] for p in run["pages"]}
    answer = run["answer"]
    rec = Recorder(run["question"], environ={})
    rec.search(lambda query: {"results": [{k: r[k] for k in ("position", "title", "url", "snippet")}
                                          for r in run["results"]]})(run["queries"][0])
    read = rec.read(lambda url: {"text": texts[url], "status": 200})
    for url in texts:
        read(url)
    usual = run["citations"]
    clean = [{"url": c["url"], "quote": whole_words(texts[c["url"]], 1000 * k, 1000 * k + 200)}
             for k, c in enumerate(usual)]

    def timed(citations: list[dict[str, str]]) -> float:
        t0 = time.perf_counter()
        rec.guard(answer, citations)
        return (time.perf_counter() - t0) * 1000

    first = timed(usual)
    clean_ms = sorted(timed(clean) for _ in range(repeats))[repeats // 2]
    again_ms = sorted(timed(usual) for _ in range(repeats))[repeats // 2]
    # The usual answer new to the recorder: the pure guard with plain page indexes remembers no quote.
    rec.answer(answer, usual)
    recorded = rec.run()
    plain: dict[int, PageIndex] = {id(p): PageIndex(p.text) for p in recorded.pages}
    case, config = Case(id="c", question="q"), Config()
    fresh: list[float] = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        guard(recorded, case, config, plain)
        fresh.append((time.perf_counter() - t0) * 1000)
    return clean_ms, sorted(fresh)[repeats // 2], again_ms, first


def time_adversarial(root: str) -> float:
    """Seconds for a whole check of the example set with one adversarial trace added."""
    from gate.pipeline import run_paths

    shutil.copytree(os.path.join(os.path.dirname(__file__), "..", "cached-snapshots", "example"), root)
    with open(os.path.join(root, "golden.yaml"), "a", encoding="utf-8") as f:
        f.write("- {id: adversarial, question: 'Adversarial?', class: lookup, freshness: slow}\n")
    rng = random.Random(99)
    trace = make_run(0, rng, 2_000_000)
    page = trace["pages"][0]  # type: ignore[index]
    citations = trace["citations"]
    assert isinstance(citations, list)
    citations[0]["quote"] = page_text(rng, 100_000)
    citations[1]["quote"] = page["text"][1_000_000:1_002_000].replace(" the ", " a ")
    trace["case"] = "adversarial"
    trace["answer"] = f"{trace['answer']}\nsee {page['url']}" + "[1]" * 50_000 + ")" * 50_000
    with open(os.path.join(root, "runs", "adversarial.json"), "w", encoding="utf-8") as f:
        json.dump(trace, f)
    t0 = time.perf_counter()
    run_paths([root], None, judge_mode="off")
    return time.perf_counter() - t0


def cited_prose(rng: random.Random, chars: int) -> str:
    """Paragraphs of bench sentences, a third of them citing a numbered source, some linking or naming a URL."""
    out: list[str] = []
    n = 0
    while n < chars:
        para = []
        for _ in range(rng.randint(2, 6)):
            s, r = sentence(rng), rng.random()
            if r < 0.3:
                s = f"{s[:-1]} [{rng.randint(1, 5)}]."
            elif r < 0.4:
                s = f"{s[:-1]} ([source](https://site{rng.randint(0, 50)}.example.com/a/{rng.randint(0, 999)}))."
            elif r < 0.45:
                s = f"{s[:-1]} (see https://site{rng.randint(0, 50)}.example.com/p?q={rng.randint(0, 99)})."
            para.append(s)
        out.append(("- " if rng.random() < 0.2 else "") + " ".join(para))
        n += len(out[-1]) + 2
    return "\n\n".join(out)[:chars]


def time_large_answer(root: str, megabytes: int = 30) -> float:
    """Seconds for a whole check of the example set with one answer padded with cited prose."""
    from gate.pipeline import run_paths

    shutil.copytree(os.path.join(os.path.dirname(__file__), "..", "cached-snapshots", "example"), root)
    path = os.path.join(root, "runs", "solar-wind-vs-coal-2025.json")
    with open(path, encoding="utf-8") as f:
        trace = json.load(f)
    head, sources = trace["answer"].split("\n[e]:", 1)
    trace["answer"] = f"{head}\n\n{cited_prose(random.Random(5), megabytes * 1_000_000)}\n\n[e]:{sources}"
    with open(path, "w", encoding="utf-8") as f:
        json.dump(trace, f)
    t0 = time.perf_counter()
    run_paths([root], None, judge_mode="off")
    return time.perf_counter() - t0


def startup() -> tuple[float, bool]:
    code = ("import sys, time; t = time.perf_counter(); import gate.cli; "
            "print(time.perf_counter() - t, 'anthropic' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), out[1] == "True"


def hostile(tmp: str) -> list[tuple[str, str, str]]:
    """Rows for the hostile inputs: each refused by a `sourcegate check` process of its own."""
    trace = os.path.join(tmp, "hostile-trace")
    write_set(trace, 1, 1000)
    with open(os.path.join(trace, "runs", "c00000.json"), "w", encoding="utf-8") as f:
        f.write('{"format": "sourcegate-trace/1", "case": "c00000", "question": "q", "queries": [], "pages": [], '
                '"answer": "a", "results": [' + ", ".join(['{"url": 5}'] * 3_000_000) + "]}")
    bomb = os.path.join(tmp, "alias-bomb")
    write_set(bomb, 1, 1000)
    lines = ["version: 1", "name: bomb", "x0: &a0 [x,x,x,x,x,x,x,x,x]"]
    lines += [f"x{i}: &a{i} [{','.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    with open(os.path.join(bomb, "golden.yaml"), "w", encoding="utf-8") as f:
        f.write("\n".join([*lines, "cases: *a9", ""]))
    rows = []
    for name, root in (("3,000,000-error trace (34 MB)", trace), ("YAML alias bomb (500 bytes)", bomb)):
        # A child of its own per measurement: RUSAGE_CHILDREN's peak is then this process's peak.
        code = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
                "rc = subprocess.run([sys.executable, '-m', 'gate.cli', 'check', sys.argv[1], '--judge', 'off'], "
                "capture_output=True).returncode; "
                "print(time.perf_counter() - t, rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
        out = subprocess.run([sys.executable, "-c", code, root], capture_output=True, text=True, check=True)
        seconds, rc, kib = out.stdout.split()
        rows.append((f"refuse a {name}", f"{float(seconds):.2f} s / {int(kib) / 1024:.0f} MiB",
                     f"exit {rc} (target 2); peak RSS of the check process"))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=2000)
    ap.add_argument("--page-chars", type=int, default=15000)
    ap.add_argument("--naive-sample", type=int, default=10)
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="sourcegate-bench-") as tmp:
        small, full = os.path.join(tmp, "small"), os.path.join(tmp, "full")
        print(f"writing {args.runs} synthetic runs (10 results, 3 pages of {args.page_chars} chars, "
              "5 quoted citations each)...", flush=True)
        write_set(small, max(1, args.runs // 10), args.page_chars)
        write_set(full, args.runs, args.page_chars)

        time_pipeline(small)  # warm-up: imports and first-use caches are not what we measure
        t_full, n_full = time_pipeline(full)
        n_small = max(1, args.runs // 10)
        (peak_small, kept_small), (peak_full, kept_full) = peak_memory(small), peak_memory(full)
        per_run = t_full / n_full
        naive_per_run = time_naive(full, args.naive_sample)
        p50, p90 = passage_percentiles(full, 100)
        t_import, sdk_loaded = startup()
        guard_clean, guard_fresh, guard_again, guard_first = time_guard(args.page_chars)
        refusals = hostile(tmp)
        t_adversarial = time_adversarial(os.path.join(tmp, "adversarial"))
        t_large_answer = time_large_answer(os.path.join(tmp, "large-answer"))
        core_rows = jobs_rows(full, tmp)
        agent_rows = run_rows()
        live_rows = drift_rows()

        rows = [
            ("pipeline, runs per second", f"{n_full / t_full:,.0f}", f"{n_full} runs in {t_full:.2f} s"),
            ("straightforward version, runs per second", f"{1 / naive_per_run:,.1f}",
             f"regex + difflib, {args.naive_sample} runs sampled"),
            ("speed-up over straightforward", f"{naive_per_run / per_run:,.0f}x", "in one process; target >= 100x"),
            ("passage check p50 / p90", f"{p50:.3f} / {p90:.3f} ms", "target p90 < 2 ms"),
            ("peak traced memory", f"{peak_small / 2**20:.1f} MiB / {peak_full / 2**20:.1f} MiB",
             f"{n_small} runs / {n_full} runs (traces streamed one at a time)"),
            ("held by the report, per case", f"{(kept_full - kept_small) / (n_full - n_small) / 1024:.1f} KiB",
             "what grows with the set: its results, not its traces"),
            ("import gate.cli", f"{t_import * 1000:.0f} ms", f"anthropic imported: {sdk_loaded}"),
            ("Recorder.guard(), clean answer", f"{guard_clean:.3f} ms",
             "median; 5 verbatim quotes on 3 pages; target < 1 ms"),
            ("Recorder.guard(), usual answer new / again", f"{guard_fresh:.3f} / {guard_again:.3f} ms",
             f"1 paraphrase, 1 absent passage: fuzzy search, then remembered; first call {guard_first:.2f} ms"),
            *refusals,
            ("example set + one adversarial trace", f"{t_adversarial:.2f} s",
             "whole check, judge off; target: seconds"),
            ("example set + one 30 MB answer", f"{t_large_answer:.2f} s",
             "whole check, judge off; cited prose (a marker, link or URL every ~300 chars); target < 3 s"),
            *core_rows,
            *agent_rows,
            *live_rows,
        ]
        print_rows(rows)
        if os.environ.get("SOURCEGATE_BENCH_MEMORY", "1") == "1":
            from tests.bench_memory import main as memory_main

            memory_main([])
        if os.environ.get("SOURCEGATE_BENCH_SHARDS", "1") == "1":
            from tests.bench_shards import main as shards_main

            shards_main(["--runs", os.environ.get("SOURCEGATE_BENCH_SHARD_RUNS", "8000")])
        extra = os.environ.get("SOURCEGATE_BENCH_JUDGE", "1")
        if extra == "1":
            try:
                from tests.bench_judge import main as judge_main
            except ImportError:
                return 0
            return judge_main()
    return 0


if __name__ == "__main__":
    sys.exit(main())
