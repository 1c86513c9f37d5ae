"""Tool inputs in, checked values out. Anything off the contract raises ``JudgeUnavailable`` or
leaves the claim it concerns unscored; nothing off the contract is ever read as a verdict.

Each parser returns ``(value, complete)``: only a complete reply goes into the judge cache, so a reply
that left a claim unscored is asked again next time rather than replayed forever.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from gate.errors import JudgeUnavailable
from gate.judge.model import Claim, QueryScore, SourceKind
from gate.judge.tools import ASSESS_RUN, EXTRACT_CLAIMS, GRADE_CLAIMS, Tool
from gate.judge.verify import Graded
from gate.model import Freshness
from gate.urls import canonical


def _valid(tool: Tool, tool_input: Mapping[str, Any]) -> None:
    errors = tool.errors(tool_input)
    if errors:
        raise JudgeUnavailable(f"{tool.name} input does not match its schema: {errors[0][0]}")


def parse_claims(
    tool_input: Mapping[str, Any], cited: Mapping[str, str]
) -> tuple[tuple[tuple[Claim, ...], tuple[str, ...]], bool]:
    """Claims numbered from 1, citations kept only if the answer cites them; plus warnings.

    ``cited`` maps each canonical URL the answer cites to the URL as written.
    """
    _valid(EXTRACT_CLAIMS, tool_input)
    claims, warnings = [], []
    for i, item in enumerate(tool_input["claims"], 1):
        urls: list[str] = []
        for u in item["citations"]:
            known = cited.get(canonical(u)) if u.startswith(("http://", "https://")) else None
            if known is None:
                warnings.append(f"claim {i}: the judge gave {u!r} as a citation, "
                                "which the answer does not cite")
            elif known not in urls:
                urls.append(known)
        claims.append(Claim(id=i, text=item["text"].strip(), citations=tuple(urls)))
    return (tuple(claims), tuple(warnings)), True


def parse_verdicts(
    tool_input: Mapping[str, Any], claims: Sequence[Claim]
) -> tuple[tuple[dict[int, Graded | str], tuple[str, ...]], bool]:
    """Per claim id, the judge's verdict, or the reason it is unscored; plus warnings.

    A malformed envelope leaves every claim unscored; a malformed item, a duplicate or a missing id
    leaves only that claim unscored.
    """
    errors = GRADE_CLAIMS.errors(tool_input)
    top = [msg for msg, path in errors if len(path) < 2]
    if top:
        raise JudgeUnavailable(f"grade_claims input does not match its schema: {top[0]}")
    bad: dict[int, str] = {}
    for msg, path in errors:
        bad.setdefault(cast(int, path[1]), msg)
    ids = {c.id for c in claims}
    out: dict[int, Graded | str] = {}
    warnings: list[str] = []
    for i, item in enumerate(tool_input["verdicts"]):
        cid = item.get("id") if isinstance(item, dict) else None
        if not isinstance(cid, int) or isinstance(cid, bool):
            warnings.append(f"verdict {i + 1} has no usable claim id: {bad.get(i, 'id missing')}")
            continue
        if cid not in ids:
            warnings.append(f"verdict for claim {cid}, which does not exist")
            continue
        if cid in out:
            out[cid] = f"the judge gave claim {cid} more than one verdict"
        elif i in bad:
            out[cid] = f"verdict off the rubric ({bad[i]})"
        else:
            out[cid] = Graded(item["verdict"], item["evidence"])
    for c in claims:
        out.setdefault(c.id, f"the judge gave no verdict for claim {c.id}")
    complete = all(isinstance(v, Graded) for v in out.values())
    return (out, tuple(warnings)), complete


Assessment = tuple[tuple[QueryScore, ...], Freshness, dict[str, SourceKind], tuple[str, ...], int]
"""query scores, regime, source type by URL, warnings, and the retrieval relevance (1-5)"""


def parse_assessment(
    tool_input: Mapping[str, Any], queries: Sequence[str], classify: Sequence[str]
) -> tuple[Assessment, bool]:
    """Query scores, the regime, a type per classified URL, warnings, and the retrieval relevance.

    Complete only when every query got a score and every listed source a type: anything less is not
    cached (extra or repeated answers are dropped with a warning and do not matter).
    """
    _valid(ASSESS_RUN, tool_input)
    warnings: list[str] = []
    scores: dict[int, QueryScore] = {}
    for item in tool_input["queries"]:
        i = item["index"]
        if i > len(queries) or i in scores:
            warnings.append(f"query score for query {i}, which does not exist or was scored twice")
            continue
        scores[i] = QueryScore(i, queries[i - 1], item["constraint_preservation"], item["entity_recall"],
                               item.get("note"))
    missing = [i for i in range(1, len(queries) + 1) if i not in scores]
    if missing:
        warnings.append(f"no score for query {', '.join(map(str, missing))}")
    kinds: dict[str, SourceKind] = {}
    for item in tool_input["sources"]:
        n = item["id"]
        if n > len(classify):
            warnings.append(f"a type for source {n}, which was not listed")
            continue
        kinds.setdefault(classify[n - 1], item["type"])
    untyped = [n for n, url in enumerate(classify, 1) if url not in kinds]
    if untyped:
        warnings.append(f"no type for source {', '.join(map(str, untyped))}")
    ordered = tuple(scores[i] for i in sorted(scores))
    # A query left unscored or a source left untyped is asked again next time, never replayed forever.
    return ((ordered, tool_input["regime"], kinds, tuple(warnings), tool_input["retrieval_relevance"]),
            not missing and not untyped)
