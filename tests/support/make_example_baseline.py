"""Record the example golden set's ``baseline.json``: ``python -m tests.support.make_example_baseline``.

The baseline stands for "the agent on main before the pull request": the same recorded runs, except
that two answers were better then (the WHO answer did not yet cite a made-up guideline URL, and the
storm answer did not yet pile a third BBC link on). So the demo shows what a reviewer sees when a PR
makes the agent worse: two new hard failures, named case by case. The example set is built to fail
every check somewhere, so this baseline is a failing run recorded with ``--force``, and every report
compared with it says so. Its judge figures come from the scripted judge, like the example's cache.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

from gate.cli import main as sourcegate
from tests.support.make_example_judgements import EXAMPLE, record

BEFORE = {
    "who-physical-activity-adults": [
        (" The 2026 update of the WHO guidelines kept these targets and added a recommendation to break up "
         "sitting every 30 minutes [2].", ""),
        ("[2]: https://www.who.int/publications/i/item/9789240114319\n", ""),
    ],
    "storm-dervla-disruption": [
        (" ([BBC Sport](https://www.bbc.com/sport/football/articles/c1z8q4n6v7yo))", ""),
    ],
}


def make(root: Path = EXAMPLE) -> None:
    """Write ``root/baseline.json`` from the runs as they were before the PR."""
    with tempfile.TemporaryDirectory(prefix="sourcegate-baseline-") as tmp:
        before = Path(tmp) / root.name
        shutil.copytree(root, before, ignore=shutil.ignore_patterns("baseline.json"))
        for case, edits in BEFORE.items():
            file = before / "runs" / f"{case}.json"
            run = json.loads(file.read_text(encoding="utf-8"))
            for old, new in edits:
                if old not in run["answer"]:
                    raise SystemExit(f"{file}: the answer no longer contains {old!r}; update BEFORE")
                run["answer"] = run["answer"].replace(old, new)
            file.write_text(json.dumps(run, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        record(before)
        code = sourcegate(["baseline", "update", str(before), "--force", "--judge", "replay"])
        if code not in (0, 1):
            raise SystemExit(f"baseline update exited {code}")
        shutil.copyfile(before / "baseline.json", root / "baseline.json")


if __name__ == "__main__":
    make(Path(sys.argv[1]) if len(sys.argv) > 1 else EXAMPLE)
