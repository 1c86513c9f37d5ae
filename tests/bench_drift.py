"""``sourcegate drift``'s speed: cited URLs checked per second on loopback sites, with the default limits.

200 URLs across 4 hosts (127.0.0.1 to 127.0.0.4, 50 pages each, every one answering 200 to HEAD),
checked by :func:`gate.drift.check_live` as the command does. With the default limits (lychee's: 10
checks of a host at once, 50 ms between two checks' starts on one host) a host is asked at most
20 times a second, so 4 hosts cap the run near 80 URLs a second: the spacing, not the machinery,
sets the pace, as it should on someone else's site. The same run without the spacing shows what the
machinery itself costs (the sites run in the same process, so their work is counted too).
Nothing here is a pass/fail test; it prints what it measured.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from contextlib import ExitStack

from gate.config import RecordConfig
from gate.drift import CitedUrl, Limits, check_live
from tests.support.bench_table import print_rows
from tests.support.web_sites import Site, page

HOSTS = ("127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4")
SETTINGS = RecordConfig(allow=("127.0.0.0/8",), deadline_seconds=30)


def timed(cited: list[CitedUrl], limits: Limits) -> tuple[float, int]:
    """Seconds to check every URL, and how many came back ok (200)."""
    start = time.perf_counter()
    answers = check_live(cited, SETTINGS, limits=limits)
    took = time.perf_counter() - start
    return took, sum(1 for a in answers.values() if a.status == 200)


def rows(urls: int = 200) -> list[tuple[str, str, str]]:
    """The bench table's rows for ``sourcegate drift``."""
    per_host = urls // len(HOSTS)
    routes = {f"/page/{i}": page(f"page {i}") for i in range(per_host)}
    with ExitStack() as stack:
        sites = [stack.enter_context(Site(h, routes)) for h in HOSTS]
        cited = [CitedUrl(s.url(f"/page/{i}"), (f"case-{i}",), 200) for s in sites for i in range(per_host)]
        timed(cited[:8], Limits())  # warm-up: imports, the first connections
        default, ok = timed(cited, Limits())
        bare, ok_bare = timed(cited, Limits(host_interval=0))
    load = f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    return [
        ("drift, cited URLs per second", f"{len(cited) / default:,.0f}",
         f"{len(cited)} URLs on {len(HOSTS)} loopback hosts, default limits (10 per host, 50 ms apart): "
         f"{default:.2f} s, {ok} ok; ceiling {len(HOSTS) * 20}/s; {load}"),
        ("drift, without the per-host spacing", f"{len(cited) / bare:,.0f}",
         f"the same {len(cited)} URLs, 10 per host at once, no spacing: {bare:.2f} s, {ok_bare} ok "
         "(the sites' own work counted: they serve from this process)"),
    ]


def main(argv: list[str] | None = None) -> int:
    """Print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--urls", type=int, default=200)
    args = ap.parse_args(argv)
    print_rows(rows(args.urls))
    return 0


if __name__ == "__main__":
    sys.exit(main())
