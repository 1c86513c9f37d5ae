"""Shards back into one run: checks that partial reports belong together, then their cases in order.

:func:`read_partial` reads a partial report a case at a time: each case is checked once, its JSON
record written to a spill file (:class:`gate.store.casestore.Spill`) and only what the tally reads of it
kept, so the merge's memory does not grow with the set. :func:`merge_cases` refuses (an
:class:`InputError` naming the files) partial reports that are not shards, that come from another
golden set or version, that ran under another configuration or would be compared with another
baseline, that ran with another judge mode, or that do not make up the whole run: a shard given
twice, a shard missing, cases that do not cover the run exactly once. What it returns is what an
unsharded run evaluates, in the same order (a :class:`gate.store.casestore.CaseStore` of the records);
the caller builds the report from it, then compares it with the baseline and decides, once.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from sys import intern
from typing import Any

from gate.errors import InputError
from gate.files.jsonio import json_path, parse_json, schema, validate
from gate.files.shapes import Mismatch, Shape, compile_shape
from gate.judge.summary import BATCH_FIELDS, judgement_to_dict
from gate.load.shards import ShardMark, ids_digest
from gate.model import Finding
from gate.results import CHECK_ERROR
from gate.store.casestore import CaseStore, Spill
from gate.store.reportstream import read_report_items
from gate.store.serialise import CASE_INDENT, case_from_dict, case_record, finding_from_dict, report_from_dict
from gate.verdict.report import Report
from gate.verdict.tally import TallyBuilder

__all__ = ["Merged", "Partial", "Read", "baseline_digest", "merge_cases", "read_partial"]


@dataclass(frozen=True, slots=True)
class Read:
    """One case of a partial report as the merge keeps it: where its record is in the spill file,
    and what the tally reads of it (:meth:`gate.verdict.tally.TallyBuilder.add_parts`)."""

    place: tuple[int, int]
    id: str
    checks: tuple[str, ...]
    """the check of each hard failure"""
    errors: tuple[Finding, ...]
    """the findings of checks that raised"""
    soft: tuple[tuple[str, float | None], ...]
    judged: tuple[int, int] | None
    """(unscored, claims) of its judgement, when it has one"""


@dataclass(frozen=True)
class Partial:
    """One partial report: the file it was read from (to name it in a refusal), its fields (a report
    without cases) and its cases as read."""

    file: str
    report: Report
    cases: tuple[Read, ...]


@dataclass(frozen=True)
class Merged:
    """The cases of the whole run in its order, with what the shards said about it."""

    golden_name: str
    golden_version: int | None
    cases: CaseStore
    judge_mode: str
    warnings: tuple[str, ...]
    """every shard's warnings, each said once, in shard order"""
    origins: tuple[tuple[str, int], ...] = ()
    """where each case came from: its partial report and its index in that report's ``cases``"""


_COUNTS = ("citations", "unique_domains", "results", "pages_read", "quoted_citations")


@cache
def _case_shape() -> Shape:
    """A case as sourcegate writes it: the report schema's case, closed (every key, no other; the
    judgement only when there is one, its usage's batch fields only when a call was batched, a hard
    failure's sentence only when the answer had one, its queries and search charges only when the run
    made some, the pages the base's snapshot lacks only when there are some, the attempts only when the
    trace records some, and an attempt's kept only on the one kept)."""
    report = schema("report")
    case = report["properties"]["cases"]["items"]
    return compile_shape(case, report, closed=True,
                         optional={"judgement", "sentence", "queries", "search_charges", "unrecorded_pages",
                                   "attempts", "kept", *BATCH_FIELDS})


_FIRST_LINE = '{\n' + CASE_INDENT + '  "id": '
_LAST_LINE = "\n" + CASE_INDENT + "}"
_COMPACT = json.JSONEncoder(ensure_ascii=False, allow_nan=False, check_circular=False, separators=(",", ":"))
"""``json``'s text without blanks between tokens, written in C (parsed JSON holds no cycle to look for)."""


def _as_written(d: object, text: str) -> bool:
    """True when ``text`` is the text sourcegate writes for the value ``d`` it was read as: the same
    tokens (keys in sourcegate's order, each once; strings and numbers as ``json`` writes them) and
    lines indented from a case's depth. Such a text is kept as the case's record, not written again.

    The text without spaces and line breaks is compared with ``json``'s compact text of ``d``
    without them: a repeated key, another order, another escape or spelling of a number differs.
    """
    if not (text.startswith(_FIRST_LINE) and text.endswith(_LAST_LINE)):
        return False
    try:
        compact = _COMPACT.encode(d)
    except ValueError:  # NaN or an infinity: the strict parse says where
        return False
    # JSON strings hold no raw line break: the text's line breaks are all between tokens
    return text.replace(" ", "").replace("\n", "") == compact.replace(" ", "")


def _read_case(d: Any, text: str, file: str, spill: Spill) -> Read:
    """One case of a partial report, read from ``text`` (``d`` its lenient parse), its shape checked
    once and its record written to ``spill``; raises :class:`Mismatch` or :class:`InputError`.

    A judgement holds counts and figures derived from its claims: it must be the JSON its values
    render to, so that a partial report cannot say what its own claims do not.
    """
    record = None
    if _as_written(d, text):
        record = CASE_INDENT + text
    else:
        d = parse_json(text, file)  # a repeated key or NaN is refused here, with its path
    _case_shape()(d)
    assert isinstance(d, dict)  # the shape says so
    negative = next((k for k in _COUNTS if d["figures"][k] < 0), None)
    if negative is not None:
        raise Mismatch("expected a count of at least 0", ["figures", negative])
    case = None
    judged = None
    if "judgement" in d:
        case = case_from_dict(d)
        assert case.judgement is not None
        if (json.dumps(judgement_to_dict(case.judgement), allow_nan=False)
                != json.dumps(d["judgement"], allow_nan=False)):
            raise Mismatch("the judgement does not read back the same (its counts and figures follow from "
                           "its claims)", ["judgement"])
        judged = (case.judgement.unscored_count, case.judgement.claim_count)
    if record is None:  # another text of a case sourcegate would write: written as sourcegate writes it
        record = case_record(case or case_from_dict(d))
    hard = d["hard_failures"]
    errors = tuple(finding_from_dict(f) for f in hard if f["check"] == CHECK_ERROR)
    return Read(spill.write(record), d["id"], tuple(intern(f["check"]) for f in hard), errors,
                tuple((intern(k), v) for k, v in d["soft"].items()), judged)


def read_partial(file: str, spill: Spill) -> Partial:
    """A partial report read a case at a time, checked as strictly as a report and in linear time,
    each case's record written to ``spill``.

    The report schema is compiled once into shapes (:mod:`gate.files.shapes`): ``jsonschema`` itself,
    case by case, costs about a millisecond per case, which at tens of thousands of cases would
    make the merge the slowest job of the matrix. Everything but the cases is checked against the
    schema (``jsonschema`` says what is wrong when it does not fit). Each case is checked once
    against the schema's case as a closed shape: every key sourcegate writes, no other, each value
    of its type; a case that does not fit is refused, naming its JSON path. A case whose text is
    the one sourcegate writes for it is kept as it was read; any other is written again.
    """
    read: list[Read] = []

    def take(d: Any, text: str, i: int) -> None:
        try:
            read.append(_read_case(d, text, file, spill))
        except Mismatch as m:
            raise InputError(f"not a case as sourcegate writes it: {m.why}", file=file,
                             path=json_path(["cases", i, *m.path])) from None
        except InputError as e:
            raise InputError(e.detail, file=file, path=f"$.cases[{i}]" + (e.path or "$")[1:]) from None
        except (KeyError, TypeError, ValueError, AttributeError) as e:  # values the shape let through, unreadable
            raise InputError(f"not a case as sourcegate writes it ({type(e).__name__}: {e})", file=file,
                             path=f"$.cases[{i}]") from e

    header = read_report_items(file, take)
    if not isinstance(header.get("cases"), list):
        raise InputError("expected a report: a JSON object with a list of cases", file=file, path="$.cases")
    validate(header, "report", file)  # the schema's compiled shape; jsonschema words what does not fit
    return Partial(file, report_from_dict(header), tuple(read))


def baseline_digest(baseline: Report | None, commit: str | None = None) -> str | None:
    """A digest of the baseline a run is compared with (its report JSON, and the revision it came from)."""
    if baseline is None:
        return None
    from gate.store.serialise import dump_report

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


def merge_cases(partials: Sequence[Partial], spill: Spill, *, golden_name: str, golden_version: int | None,
                config: str, baseline: str | None) -> Merged:
    """The whole run's cases from its shards, refusing shards that do not belong together.

    ``golden_name``/``golden_version`` are the golden set's, ``config`` and ``baseline`` the
    digests of what the merged run is decided under; every shard must have run under the same.
    ``spill`` holds the partials' records (:func:`read_partial`); the merged cases are a store of them.
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
    slots: list[Read | None] = [None] * first.total
    origin: list[tuple[str, int]] = [("", 0)] * first.total
    for p in partials:
        m = _mark(p)
        if len(m.positions) != len(p.cases):
            raise InputError(f"the shard lists {len(m.positions)} positions for {len(p.cases)} cases",
                             file=p.file, path="$.shard.positions")
        for i, (pos, case) in enumerate(zip(m.positions, p.cases, strict=True)):
            if not 0 <= pos < first.total or slots[pos] is not None:
                raise InputError(f"case {case.id!r} stands at position {pos}, outside the run or taken "
                                 "by another shard's case", file=p.file, path="$.shard.positions")
            slots[pos] = case
            origin[pos] = (p.file, i)
    cases = [c for c in slots if c is not None]
    if len(cases) != first.total or ids_digest(c.id for c in cases) != first.ids:
        raise InputError(f"the shards' cases do not make up the run's {first.total} cases")
    builder = TallyBuilder()
    for c in cases:
        builder.add_parts(c.id, c.checks, c.errors, c.soft, c.judged)
    warnings = tuple(dict.fromkeys(w for p in partials for w in p.report.warnings))
    return Merged(golden_name, golden_version, spill.store((c.place for c in cases), builder.build()),
                  partials[0].report.judge_mode, warnings, tuple(origin))
