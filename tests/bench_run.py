"""``make bench`` for ``sourcegate run``: its overhead per case against the bare command, and the
replay server's throughput.

    python -m tests.bench_run [--cases 40] [--seconds 3]

Overhead: a trivial agent (``printf`` of one JSON answer) run over N cases by
``sourcegate run --jobs 1`` (server start, per-case scope, trace assembled and validated, the
runs folder swapped in), against the same command run N times in a row by ``subprocess.run``.
The network namespace: the same run confined (``--network confined``: the keeper makes a user and
network namespace, the gate serves its sockets) against unconfined (``--network proxy``), in turn.
Throughput: a client process with 4 keep-alive connections asks the replay server (in this
process) for recorded searches and pages for a few seconds, unscoped and under a case scope, on
sourcegate's GET routes and as Tavily's client asks them (``POST /search``, ``POST /extract``); and
for pages at their own URLs through it as a case's proxy: plain HTTP, HTTPS in kept-alive tunnels
(the case's certificate authority), and a new TLS handshake for every request.
The whole loop: every case of the example set re-run by a scripted agent that asks what its
committed run asked (``tests/support/run_golden.py``), then the gate with the judge replayed.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import yaml

from gate.pipeline import run_paths
from gate.replay.serve import ReplayServer
from gate.replay.tls import CertificateAuthority
from gate.runner.network import probe
from gate.runner.orchestrate import RunOptions, run_agent
from gate.runner.scope import CaseScope
from gate.snapshot.store import SnapshotStore
from tests.support.bench_table import print_rows
from tests.support.run_golden import PLAN_ENV, faithful_plan, make_golden, scripted_agent

EXAMPLE = Path(__file__).resolve().parent.parent / "cached-snapshots" / "example"
REPEATS = 3
ANSWER = '{"answer": "x", "citations": []}\n'
# The cheapest agent there is (printf: a millisecond), so the shared machine's noise does not hide
# the overhead; a Python one-liner where printf is missing.
_PRINTF = shutil.which("printf")
AGENT = [_PRINTF, ANSWER] if _PRINTF else [sys.executable, "-I", "-S", "-c", f"print({ANSWER.strip()!r})"]

CLIENT = r'''
import http.client, json, sys, threading, time, urllib.parse
host, port, prefix, seconds = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
paths = json.loads(sys.argv[5])
counts = []
def worker(offset):
    conn = http.client.HTTPConnection(host, port, timeout=10)
    n, end = 0, time.monotonic() + seconds
    while time.monotonic() < end:
        asked = paths[(n + offset) % len(paths)]  # a GET path, or [method, path, JSON body]
        method, path, body = ("GET", asked, None) if isinstance(asked, str) else asked
        conn.request(method, prefix + path, body=None if body is None else json.dumps(body),
                     headers={} if body is None else {"Content-Type": "application/json"})
        response = conn.getresponse(); response.read()
        assert response.status == 200, response.status
        n += 1
    counts.append(n)
threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
for t in threads: t.start()
for t in threads: t.join()
print(sum(counts))
'''


TLS_CLIENT = r'''
import base64, http.client, json, ssl, sys, threading, time
from urllib.parse import urlsplit
host, port, token, cafile, mode, seconds = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], \
    float(sys.argv[6])
urls = json.loads(sys.argv[7])
auth = {"Proxy-Authorization": "Basic " + base64.b64encode(f"sourcegate:{token}".encode()).decode()}
context = ssl.create_default_context(cafile=cafile)
counts = []
def tunnel(site):
    conn = http.client.HTTPSConnection(host, port, timeout=10, context=context)
    conn.set_tunnel(site, 443, headers=auth)
    return conn
def worker(offset):
    conns, n, end = {}, 0, time.monotonic() + seconds
    plain = http.client.HTTPConnection(host, port, timeout=10)
    while time.monotonic() < end:
        url = urls[(n + offset) % len(urls)]
        parts = urlsplit(url)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        if mode == "plain":  # GET http://site/path through the proxy, kept alive
            conn, target, headers = plain, "http://" + parts.netloc + path, auth
        elif mode == "tunnel":  # one tunnel, kept alive (the pages of one site)
            conn = conns.get(parts.netloc) or conns.setdefault(parts.netloc, tunnel(parts.netloc))
            target, headers = path, {}
        else:  # a new connection, CONNECT and TLS handshake per request, as requests.get(url) does
            conn, target, headers = tunnel(parts.netloc), path, {}
        conn.request("GET", target, headers=headers)
        response = conn.getresponse(); response.read()
        assert response.status < 500, response.status
        if mode == "fresh":
            conn.close()
        n += 1
    counts.append(n)
threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
for t in threads: t.start()
for t in threads: t.join()
print(sum(counts))
'''


def write_set(root: Path, cases: int) -> None:
    """A golden set of ``cases`` questions with an empty snapshot (the trivial agent asks nothing)."""
    root.mkdir(parents=True)
    golden = {"format": "sourcegate-golden/1", "version": 1, "name": "bench",
              "cases": [{"id": f"case-{i:04d}", "question": f"question {i}?"} for i in range(cases)]}
    (root / "golden.yaml").write_text(yaml.safe_dump(golden), encoding="utf-8")
    (root / "snapshot").mkdir()


def time_bare(cases: int) -> float:
    """Seconds to run the trivial agent ``cases`` times in a row."""
    start = time.perf_counter()
    for _ in range(cases):
        subprocess.run(AGENT, check=True, capture_output=True, env=dict(os.environ))
    return time.perf_counter() - start


def time_run(root: Path, cases: int, jobs: int, network: str = "auto") -> float:
    """Seconds for ``sourcegate run`` (in-process) over the set, with ``--network network``."""
    start = time.perf_counter()
    summary = run_agent(RunOptions(golden=str(root), command=tuple(AGENT), jobs=jobs, timeout=60.0,
                                   network=network))
    elapsed = time.perf_counter() - start
    assert len(summary.runs) == cases and all(r.replay and r.replay.agent_error is None for r in summary.runs)
    return elapsed


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def namespace_overhead(root: Path, cases: int) -> tuple[float, float, float] | str:
    """Seconds for the set confined and unconfined (``--jobs 1``), best of :data:`REPEATS` each, in
    turn, and the median of the rounds' extra CPU seconds the keepers spent confined (the wall time
    moves with a shared machine's load; the CPU time much less); or why no namespace can be made here."""
    method, why = probe()
    if method is None:
        return why
    confined, unconfined, extra = math.inf, math.inf, []
    for _ in range(REPEATS):
        start = _children_cpu()
        unconfined = min(unconfined, time_run(root, cases, jobs=1, network="proxy"))
        middle = _children_cpu()
        confined = min(confined, time_run(root, cases, jobs=1, network="confined"))
        extra.append((_children_cpu() - middle) - (middle - start))
    return confined, unconfined, statistics.median(extra)


def recorded_paths() -> list[str]:
    """Requests the example snapshot answers: its searches and its pages."""
    from urllib.parse import urlencode

    paths = []
    for f in sorted((EXAMPLE / "snapshot" / "search").glob("*.json")):
        entry = json.loads(f.read_text(encoding="utf-8"))
        paths.append("/search?" + urlencode({"provider": entry["provider"], "q": entry["query"]}))
    for f in sorted((EXAMPLE / "snapshot" / "pages").glob("*.json")):
        paths.append("/fetch?" + urlencode({"url": json.loads(f.read_text(encoding="utf-8"))["url"]}))
    return paths


def tavily_requests() -> list[list[object]]:
    """The same searches and pages as Tavily's client asks them: ``POST /search`` (rendered in Tavily's
    shape from the neutral recording) and ``POST /extract`` of each page."""
    requests: list[list[object]] = []
    for f in sorted((EXAMPLE / "snapshot" / "search").glob("*.json")):
        query = json.loads(f.read_text(encoding="utf-8"))["query"]
        requests.append(["POST", "/search", {"query": query, "search_depth": "basic", "timeout": 60}])
    for f in sorted((EXAMPLE / "snapshot" / "pages").glob("*.json")):
        requests.append(["POST", "/extract", {"urls": [json.loads(f.read_text(encoding="utf-8"))["url"]]}])
    return requests


def throughput(seconds: float, scoped: bool, requests: list[object] | None = None) -> float:
    """Requests per second the replay server answers a client process with 4 connections
    (``requests``: the example set's searches and pages on sourcegate's GET routes, by default)."""
    with tempfile.TemporaryDirectory(prefix="sourcegate-bench-") as tmp:
        snapshot = Path(tmp) / "snapshot"
        shutil.copytree(EXAMPLE / "snapshot", snapshot)
        with open(os.devnull, "w", encoding="utf-8") as quiet, \
                ReplayServer(SnapshotStore(str(snapshot)), log=quiet) as server:
            prefix = ""
            if scoped:
                server.scopes["bench"] = CaseScope()
                prefix = "/case/bench"
            thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
            thread.start()
            host, port = server.server_address[:2]
            try:
                done = subprocess.run([sys.executable, "-c", CLIENT, str(host), str(port), prefix, str(seconds),
                                       json.dumps(requests or recorded_paths())], check=True, capture_output=True,
                                      text=True)
            finally:
                server.shutdown()
    return int(done.stdout) / seconds


def page_urls() -> list[str]:
    """The example set's recorded pages, at their own URLs."""
    return [json.loads(f.read_text(encoding="utf-8"))["url"]
            for f in sorted((EXAMPLE / "snapshot" / "pages").glob("*.json"))]


def at_real_addresses(seconds: float, mode: str) -> float:
    """Requests per second the replay server answers at the pages' own URLs (the example set's most cited
    site), through it as the proxy of a case: ``plain`` (``GET http://...``), ``tunnel`` (HTTPS in one
    kept-alive tunnel per connection) or ``fresh`` (a new connection, CONNECT and TLS handshake each)."""
    with tempfile.TemporaryDirectory(prefix="sourcegate-bench-") as tmp:
        snapshot = Path(tmp) / "snapshot"
        shutil.copytree(EXAMPLE / "snapshot", snapshot)
        authority = CertificateAuthority("bench")
        cafile = Path(tmp) / "ca.pem"
        cafile.write_bytes(authority.pem)
        with open(os.devnull, "w", encoding="utf-8") as quiet, \
                ReplayServer(SnapshotStore(str(snapshot)), log=quiet) as server:
            server.scopes["bench"] = CaseScope()
            server.authorities["bench"] = authority
            thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
            thread.start()
            host, port = server.server_address[:2]
            urls = page_urls()  # the site with the most pages, in every mode: what one client reads in a row
            site = Counter(urlsplit(u).netloc for u in urls).most_common(1)[0][0]
            urls = [u for u in urls if urlsplit(u).netloc == site]
            try:
                done = subprocess.run([sys.executable, "-c", TLS_CLIENT, str(host), str(port), "bench", str(cafile),
                                       mode, str(seconds), json.dumps(urls)], check=True,
                                      capture_output=True, text=True)
            finally:
                server.shutdown()
    return int(done.stdout) / seconds


def whole_loop() -> tuple[int, float, float, str]:
    """How many cases the example set has, the seconds to re-run them (--jobs 2) and to gate them; the verdict."""
    with tempfile.TemporaryDirectory(prefix="sourcegate-bench-") as tmp:
        ids = [c["id"] for c in yaml.safe_load((EXAMPLE / "golden.yaml").read_text(encoding="utf-8"))["cases"]]
        root = make_golden(Path(tmp) / "example", ids)
        shutil.copytree(EXAMPLE / "judgements", root / "judgements")
        env = {**os.environ, PLAN_ENV: json.dumps({c: faithful_plan(c) for c in ids})}
        start = time.perf_counter()
        run_agent(RunOptions(golden=str(root), command=tuple(scripted_agent(Path(tmp))), jobs=2), environ=env)
        ran = time.perf_counter() - start
        start = time.perf_counter()
        report = run_paths([str(root)], None, judge_mode="replay")
        return len(ids), ran, time.perf_counter() - start, report.verdict


def rows(cases: int = 40, seconds: float = 3.0) -> list[tuple[str, str, str]]:
    """The bench table's rows for ``sourcegate run``."""
    with tempfile.TemporaryDirectory(prefix="sourcegate-bench-") as tmp:
        root = Path(tmp) / "set"
        write_set(root, cases)
        time_bare(3)  # warm-up: the interpreter's files in the page cache
        # Best of three, alternating: the machine is shared, and the other tenants' load comes and goes.
        bare, run1 = math.inf, math.inf
        for _ in range(REPEATS):
            bare = min(bare, time_bare(cases))
            run1 = min(run1, time_run(root, cases, jobs=1))
        run2 = time_run(root, cases, jobs=2)
        confinement = namespace_overhead(root, cases)
    overhead = (run1 - bare) / cases
    if isinstance(confinement, str):
        namespace = ("network namespace per case", "n/a", f"no namespace can be made here: {confinement}")
    else:
        confined, unconfined, cpu = confinement
        namespace = ("network namespace per case", f"{(confined - unconfined) / cases * 1000:.1f} ms",
                     f"{cases} cases, --jobs 1: --network confined {confined:.2f} s vs proxy {unconfined:.2f} s "
                     f"({confined / unconfined:.2f}x), best of {REPEATS} each, in turn; the keepers' extra CPU "
                     f"{cpu / cases * 1000:.1f} ms per case (median of the rounds)")
    count, ran, gated, verdict = whole_loop()
    return [
        ("sourcegate run overhead per case", f"{overhead * 1000:.1f} ms",
         f"{cases} cases, --jobs 1 (--network auto): {run1:.2f} s vs the bare command {cases}x: {bare:.2f} s; "
         "target < 50 ms"),
        namespace,
        ("sourcegate run, --jobs 2", f"{run2:.2f} s", f"{cases} cases of the same trivial agent"),
        ("replay server, requests per second", f"{max(throughput(seconds, scoped=False) for _ in range(REPEATS)):,.0f}",
         f"best of {REPEATS}; 4 keep-alive connections from another process, the example set's searches "
         f"and pages; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"),
        ("replay server under a case scope", f"{max(throughput(seconds, scoped=True) for _ in range(REPEATS)):,.0f}",
         "the same through /case/<token>/..., as sourcegate run serves each case"),
        ("replay server, Tavily's API, requests per second",
         f"{max(throughput(seconds, True, tavily_requests()) for _ in range(REPEATS)):,.0f}",
         "the same searches and pages as POST /search (rendered in Tavily's shape) and POST /extract, "
         "under a case scope"),
        *tls_rows(seconds),
        ("whole loop on the example set", f"{ran + gated:.1f} s",
         f"{count} cases re-run by a scripted agent ({ran:.1f} s, --jobs 2), then gated ({gated:.1f} s, judge "
         f"replayed): {verdict}"),
    ]


def tls_rows(seconds: float) -> list[tuple[str, str, str]]:
    """The pages at their own URLs: plain HTTP, HTTPS in kept-alive tunnels and a handshake per request,
    measured in one run (best of :data:`REPEATS`, alternating)."""
    best = {"plain": 0.0, "tunnel": 0.0, "fresh": 0.0}
    for _ in range(REPEATS):
        for mode in best:
            best[mode] = max(best[mode], at_real_addresses(seconds, mode))
    plain = best["plain"]
    return [
        ("pages at their own URLs, plain HTTP", f"{plain:,.0f} req/s",
         "GET http://site/path through the replay server as a case's proxy, 4 kept-alive connections, the "
         "example set's pages of its most cited site"),
        ("pages at their own URLs, HTTPS", f"{best['tunnel']:,.0f} req/s",
         f"{best['tunnel'] / plain:.2f}x plain: the same pages in one kept-alive TLS tunnel per connection, "
         "with the case's certificate authority"),
        ("pages at their own URLs, HTTPS, a handshake each", f"{best['fresh']:,.0f} req/s",
         f"{best['fresh'] / plain:.2f}x plain: a new connection, CONNECT and TLS handshake for every request "
         "(requests.get(url) without a Session)"),
    ]


def main(argv: list[str] | None = None) -> int:
    """Print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=40)
    ap.add_argument("--seconds", type=float, default=3.0)
    args = ap.parse_args(argv)
    table = rows(args.cases, args.seconds)
    print_rows(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
