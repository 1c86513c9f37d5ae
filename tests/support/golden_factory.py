"""Small golden sets written on disk for baseline and CLI tests.

Each case's run cites one page it searched and read, quoting a sentence that is on the page (all
hard checks pass); a case listed in ``bad`` also cites a URL that never appeared in any search
result (``fabricated_url`` fails). The judge is off in the written ``sourcegate.yaml``, so the tests
do not depend on a judge cache.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import yaml

PAGE = ("The Rust 1.80 release stabilised LazyCell and LazyLock for lazy initialisation of values. "
        "It also added exclusive range patterns. The release notes list further library stabilisations.")
QUOTE = "stabilised LazyCell and LazyLock for lazy initialisation of values"


def run_for(case: str, bad: bool = False) -> dict[str, object]:
    """A native trace for ``case``; ``bad`` adds a fabricated citation."""
    url = f"https://blog.rust-lang.org/2024/07/25/{case}.html"
    citations = [{"url": url, "quote": QUOTE}]
    answer = f"Rust 1.80 stabilised LazyCell and LazyLock [1].\n\n[1]: {url}"
    if bad:
        fake = f"https://made-up.example.net/{case}"
        citations.append({"url": fake, "quote": None})
        answer += f"\n[2]: {fake}"
    return {
        "format": "sourcegate-trace/1", "case": case, "question": f"What did Rust 1.80 stabilise? ({case})",
        "started_at": "2024-08-01T10:00:00Z", "queries": ["rust 1.80 release stabilised"],
        "results": [{"query": 0, "position": i + 1, "title": f"Result {i}", "url": u, "snippet": "Rust 1.80",
                     "published": "2024-07-25"}
                    for i, u in enumerate([url, "https://doc.rust-lang.org/std/cell/struct.LazyCell.html",
                                           "https://releases.rs/docs/1.80.0/"])],
        "pages": [{"url": url, "status": 200, "text": PAGE, "fetched_at": "2024-08-01T10:00:05Z",
                   "published": "2024-07-25"}],
        "answer": answer, "citations": citations,
    }


def write_golden(root: Path, cases: Iterable[str], bad: Iterable[str] = (), *, version: int = 1,
                 name: str = "demo", classes: dict[str, str] | None = None) -> Path:
    """Write ``golden.yaml``, ``sourcegate.yaml`` and one run per case under ``root``; return ``root``."""
    ids = list(cases)
    bad_ids = set(bad)
    (root / "runs").mkdir(parents=True, exist_ok=True)
    for old in (root / "runs").glob("*.json"):
        if old.stem not in ids:
            old.unlink()
    golden = {"version": version, "name": name, "cases": [
        {"id": i, "question": f"What did Rust 1.80 stabilise? ({i})",
         "class": (classes or {}).get(i, "lookup")}
        for i in ids]}
    (root / "golden.yaml").write_text(yaml.safe_dump(golden, sort_keys=False), encoding="utf-8")
    (root / "sourcegate.yaml").write_text("judge:\n  mode: \"off\"\n", encoding="utf-8")
    for i in ids:
        text = json.dumps(run_for(i, i in bad_ids), indent=1)
        (root / "runs" / f"{i}.json").write_text(text, encoding="utf-8")
    return root
