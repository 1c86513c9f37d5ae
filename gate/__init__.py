"""sourcegate: a merge gate that shows whether a search agent read what it cites.

The public API is ``__all__``; everything else is internal and may change. Names load on first
use, so ``import gate`` stays cheap (and never imports the anthropic SDK).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gate.lazy import lazy_exports
from gate.version import __version__

_EXPORTS: dict[str, str] = {
    # running the gate
    "main": "gate.cli",
    "run_set": "gate.pipeline",
    "SetRequest": "gate.pipeline",
    "run_paths": "gate.pipeline",
    "evaluate_run": "gate.score.evaluate",
    "build_report": "gate.verdict.decide",
    "decide": "gate.verdict.decide",
    # formats
    "load_golden": "gate.load.golden",
    "load_trace": "gate.load.golden",
    "parse_trace": "gate.load.golden",
    "load_config": "gate.config",
    "Config": "gate.config",
    # values
    "Run": "gate.model",
    "Case": "gate.model",
    "Page": "gate.model",
    "SearchResult": "gate.model",
    "Citation": "gate.model",
    "Attempt": "gate.model",
    "GoldenSet": "gate.model",
    "Finding": "gate.model",
    "Outcome": "gate.model",
    "Report": "gate.verdict.report",
    "CaseResult": "gate.results",
    "CaseWarning": "gate.results",
    # checks and their building blocks
    "CHECKS": "gate.checks",
    "Check": "gate.checks",
    "Subject": "gate.checks",
    "find_passage": "gate.checks.passage",
    "PageIndex": "gate.checks.passage",
    "canonical": "gate.urls",
    "extract_urls": "gate.urls",
    "registered_domain": "gate.urls",
    "compare": "gate.verdict.compare",
    "Comparison": "gate.verdict.compare",
    "SnapshotStore": "gate.snapshot",
    "JudgeSession": "gate.judge",
    "RunJudgement": "gate.judge",
    "convert": "gate.importers",
    "Recorder": "gate.record",
    # errors
    "GateError": "gate.errors",
    "InputError": "gate.errors",
    "SnapshotMiss": "gate.errors",
    "RecordError": "gate.errors",
    "JudgeUnavailable": "gate.errors",
    "GitHubError": "gate.errors",
}

__all__ = [
    "__version__",
    "convert",
    "Recorder",
    "RunJudgement",
    "JudgeSession",
    "SnapshotStore",
    "Comparison",
    "compare",
    "main",
    "run_set",
    "SetRequest",
    "run_paths",
    "evaluate_run",
    "build_report",
    "decide",
    "load_golden",
    "load_trace",
    "parse_trace",
    "load_config",
    "Config",
    "Run",
    "Case",
    "Page",
    "SearchResult",
    "Citation",
    "Attempt",
    "GoldenSet",
    "Finding",
    "Outcome",
    "Report",
    "CaseResult",
    "CaseWarning",
    "CHECKS",
    "Check",
    "Subject",
    "find_passage",
    "PageIndex",
    "canonical",
    "extract_urls",
    "registered_domain",
    "GateError",
    "InputError",
    "SnapshotMiss",
    "RecordError",
    "JudgeUnavailable",
    "GitHubError",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


if TYPE_CHECKING:
    from gate.checks import CHECKS, Check, Subject
    from gate.checks.passage import PageIndex, find_passage
    from gate.cli import main
    from gate.config import Config, load_config
    from gate.errors import GateError, GitHubError, InputError, JudgeUnavailable, RecordError, SnapshotMiss
    from gate.importers import convert
    from gate.judge import JudgeSession, RunJudgement
    from gate.load.golden import load_golden, load_trace, parse_trace
    from gate.model import Attempt, Case, Citation, Finding, GoldenSet, Outcome, Page, Run, SearchResult
    from gate.pipeline import SetRequest, run_paths, run_set
    from gate.record import Recorder
    from gate.results import CaseResult, CaseWarning
    from gate.score.evaluate import evaluate_run
    from gate.snapshot import SnapshotStore
    from gate.urls import canonical, extract_urls, registered_domain
    from gate.verdict.compare import Comparison, compare
    from gate.verdict.decide import build_report, decide
    from gate.verdict.report import Report
