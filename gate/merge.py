"""Shards back into one run: checks that partial reports belong together, then their cases in order.

:func:`merge_cases` is pure. It refuses (an :class:`InputError` naming the files) partial reports
that are not shards, that come from another golden set or version, that ran under another
configuration or would be compared with another baseline, that ran with another judge mode, or
that do not make up the whole run: a shard given twice, a shard missing, cases that do not cover
the run exactly once. What it returns is what an unsharded run evaluates, in the same order; the
caller builds the report from it, then compares it with the baseline and decides, once.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache

from gate.errors import InputError
from gate.jsonio import check_depth, json_path, schema, validate, validator
from gate.judge.summary import judgement_to_dict
from gate.report.serialise import case_from_dict, report_from_dict
from gate.results import CaseResult, Report
from gate.shapes import Mismatch, Shape, compile_shape
from gate.shards import ShardMark, ids_digest

__all__ = ["Merged", "Partial", "baseline_digest", "merge_cases", "parse_partial"]


@dataclass(frozen=True)
class Partial:
    """One partial report and the file it was read from (to name it in a refusal)."""

    file: str
    report: Report


@dataclass(frozen=True)
class Merged:
    """The cases of the whole run in its order, with what the shards said about it."""

    golden_name: str
    golden_version: int | None
    cases: tuple[CaseResult, ...]
    judge_mode: str
    warnings: tuple[str, ...]
    """every shard's warnings, each said once, in shard order"""


_COUNTS = ("citations", "unique_domains", "results", "pages_read", "quoted_citations")


@cache
def _case_shape() -> Shape:
    """A case as sourcegate writes it: the report schema's case, closed (every key, no other; the
    judgement only when there is one)."""
    report = schema("report")
    case = report["properties"]["cases"]["items"]
    return compile_shape(case, report, closed=True, optional={"judgement"})


@cache
def _header_shape() -> Shape:
    """The report schema, for everything but the cases (its shard mark lists a position per case)."""
    return compile_shape(schema("report"), formats=validator("report").format_checker)


def _read_case(d: object) -> CaseResult:
    """One case of a partial report, its shape checked once; raises :class:`Mismatch`.

    A judgement holds counts and figures derived from its claims: it must be the JSON its values
    render to, so that a partial report cannot say what its own claims do not.
    """
    _case_shape()(d)
    assert isinstance(d, dict)  # the shape says so
    negative = next((k for k in _COUNTS if d["figures"][k] < 0), None)
    if negative is not None:
        raise Mismatch("expected a count of at least 0", ["figures", negative])
    case = case_from_dict(d)
    if case.judgement is not None and (json.dumps(judgement_to_dict(case.judgement), allow_nan=False)
                                       != json.dumps(d["judgement"], allow_nan=False)):
        raise Mismatch("the judgement does not read back the same (its counts and figures follow from its claims)",
                       ["judgement"])
    return case


def parse_partial(data: object, file: str) -> Report:
    """A partial report read from JSON data, checked as strictly as a report and in linear time.

    The report schema is compiled once into shapes (:mod:`gate.shapes`): ``jsonschema`` itself,
    case by case, costs about a millisecond per case, which at tens of thousands of cases would
    make the merge the slowest job of the matrix. Everything but the cases is checked against the
    schema (``jsonschema`` says what is wrong when it does not fit). Each case is checked once
    against the schema's case as a closed shape: every key sourcegate writes, no other, each value
    of its type; a case that does not fit is refused, naming its JSON path.
    """
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        raise InputError("expected a report: a JSON object with a list of cases", file=file, path="$.cases")
    cases = data["cases"]
    header = {**data, "cases": []}
    try:
        _header_shape()(header)
    except Mismatch:
        validate(header, "report", file)  # says what is wrong, in the schema's words
    check_depth(header, file)
    read: list[CaseResult] = []
    for i, d in enumerate(cases):
        try:
            read.append(_read_case(d))
        except Mismatch as m:
            raise InputError(f"not a case as sourcegate writes it: {m.why}", file=file,
                             path=json_path(["cases", i, *m.path])) from None
        except (KeyError, TypeError, ValueError, AttributeError) as e:  # values the shape let through, unreadable
            raise InputError(f"not a case as sourcegate writes it ({type(e).__name__}: {e})", file=file,
                             path=f"$.cases[{i}]") from e
    return replace(report_from_dict({**data, "cases": []}), cases=tuple(read))


def baseline_digest(baseline: Report | None, commit: str | None = None) -> str | None:
    """A digest of the baseline a run is compared with (its report JSON, and the revision it came from)."""
    if baseline is None:
        return None
    from gate.report.serialise import dump_report

    text = dump_report(baseline) + "\0" + (commit or "")
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _mark(p: Partial) -> ShardMark:
    if p.report.shard is None:
        raise InputError("not a partial report: it has no shard mark (write one with "
                         "`sourcegate check --shard i/n --json FILE`)", file=p.file, path="$.shard")
    return p.report.shard


def _same(partials: Sequence[Partial], what: str, value: object, of: Callable[[Partial], object],
          where: str = "in this merge") -> None:
    """Refuse when a shard's ``of(p)`` differs from ``value``, naming the first such file."""
    for p in partials:
        got = of(p)
        if got != value:
            raise InputError(f"the shards are not of one run: {what} is {got!r} here, {value!r} "
                             f"{where}", file=p.file)


def _check_shards(partials: Sequence[Partial]) -> None:
    """Every shard present once: duplicates and missing shards are named."""
    count = _mark(partials[0]).count
    seen: dict[int, str] = {}
    for p in partials:
        m = _mark(p)
        if m.index in seen:
            raise InputError(f"shard {m.index}/{count} is given twice (also in {seen[m.index]})", file=p.file)
        seen[m.index] = p.file
    missing = [f"{i}/{count}" for i in range(1, count + 1) if i not in seen]
    if missing:
        raise InputError(f"shard{'s' if len(missing) > 1 else ''} {', '.join(missing)} missing: "
                         f"{len(partials)} of {count} partial reports given")


def merge_cases(partials: Sequence[Partial], *, golden_name: str, golden_version: int | None,
                config: str, baseline: str | None) -> Merged:
    """The whole run's cases from its shards, refusing shards that do not belong together.

    ``golden_name``/``golden_version`` are the golden set's, ``config`` and ``baseline`` the
    digests of what the merged run is decided under; every shard must have run under the same.
    """
    if not partials:
        raise InputError("no partial reports to merge")
    first = _mark(partials[0])
    _same(partials, "the golden set", golden_name, lambda p: p.report.golden_name)
    _same(partials, "the golden set's version", golden_version, lambda p: p.report.golden_version)
    at = f"in {partials[0].file}"
    _same(partials, "the shard count", first.count, lambda p: _mark(p).count, at)
    _same(partials, "the list of cases (digest)", first.ids, lambda p: _mark(p).ids, at)
    _same(partials, "the configuration (digest)", config, lambda p: _mark(p).config)
    _same(partials, "the baseline (digest)", baseline, lambda p: _mark(p).baseline)
    _same(partials, "the judge mode", partials[0].report.judge_mode, lambda p: p.report.judge_mode, at)
    _check_shards(partials)
    partials = sorted(partials, key=lambda p: _mark(p).index)
    slots: list[CaseResult | None] = [None] * first.total
    for p in partials:
        m = _mark(p)
        if len(m.positions) != len(p.report.cases):
            raise InputError(f"the shard lists {len(m.positions)} positions for {len(p.report.cases)} cases",
                             file=p.file, path="$.shard.positions")
        for pos, case in zip(m.positions, p.report.cases, strict=True):
            if not 0 <= pos < first.total or slots[pos] is not None:
                raise InputError(f"case {case.id!r} stands at position {pos}, outside the run or taken "
                                 "by another shard's case", file=p.file, path="$.shard.positions")
            slots[pos] = case
    cases = tuple(c for c in slots if c is not None)
    if len(cases) != first.total or ids_digest(c.id for c in cases) != first.ids:
        raise InputError(f"the shards' cases do not make up the run's {first.total} cases")
    warnings = tuple(dict.fromkeys(w for p in partials for w in p.report.warnings))
    return Merged(golden_name, golden_version, cases, partials[0].report.judge_mode, warnings)
