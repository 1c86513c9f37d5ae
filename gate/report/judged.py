"""The judged part of the markdown report: figures per case, set means, usage and cost, overrules. Pure.

Claims, quotes, URLs and notes come from the agent, the pages or the judge: each passes through
:mod:`gate.text.escape` once.
"""

from __future__ import annotations

from collections.abc import Sequence

from gate.judge.model import RunJudgement, Usage
from gate.judge.summary import summarise
from gate.report.sections import num, table
from gate.results import CaseResult
from gate.text.escape import md, md_code, md_url
from gate.verdict.report import Report


def _cost(u: Usage) -> str:
    return "unknown (model not in the price table)" if u.cost_usd is None else f"${u.cost_usd:.4f}"


def batch_note(u: Usage) -> str:
    """For calls sent through the Message Batches API: how many, and what they would have cost live."""
    if not u.batch_calls:
        return ""
    live = "unknown" if u.live_cost_usd is None else f"${u.live_cost_usd:.4f}"
    return f" ({u.batch_calls} through message batches, billed at the batch price; live it would be {live})"


def usage_line(u: Usage) -> str:
    """API calls, tokens, prompt-cache tokens and estimated cost, in one sentence."""
    return (f"{u.calls} API call(s), {u.input_tokens:,} input and {u.output_tokens:,} output tokens, "
            f"prompt cache {u.cache_read_tokens:,} read and {u.cache_write_tokens:,} written, "
            f"estimated cost {_cost(u)}{batch_note(u)}")


def judge_cache_line(usages: list[Usage]) -> str:
    """How many judged runs the judge cache served whole, how many replies it gave, how many it missed."""
    served = sum(1 for u in usages if u.from_judge_cache)
    hits = sum(u.judge_cache_hits for u in usages)
    misses = sum(u.judge_cache_misses for u in usages)
    missed_runs = sum(1 for u in usages if u.judge_cache_misses)
    line = (f"{served} of {len(usages)} judged run(s) served from the judge cache with no API call "
            f"({hits} cached repl{'y' if hits == 1 else 'ies'} read)")
    if misses:
        line += (f"; {misses} repl{'y' if misses == 1 else 'ies'} missing from the judge cache in "
                 f"{missed_runs} run(s): what {'it' if misses == 1 else 'they'} would have judged is unscored")
    return line


def _usage_lines(judged: list[tuple[CaseResult, RunJudgement]], total: Usage) -> list[str]:
    """Usage in total and the judge cache; the per-run table only when some run called the API."""
    cache = judge_cache_line([j.usage for _, j in judged])
    if total.calls == 0:  # replay, or a live run the judge cache answered: a table of zeros says nothing
        return [f"**Judge usage**: no API call, no cost; {cache}.", ""]
    lines = [f"**Judge usage**: {usage_line(total)}; {cache}.", ""]
    head, rows = table(["case", "calls", "input", "output", "cache read", "cache write", "cost",
                        "judge cache"], "lrrrrrrr", [
        [md_code(c.id), str(j.usage.calls), f"{j.usage.input_tokens:,}", f"{j.usage.output_tokens:,}",
         f"{j.usage.cache_read_tokens:,}", f"{j.usage.cache_write_tokens:,}", _cost(j.usage),
         str(j.usage.judge_cache_hits)]
        for c, j in judged])
    return lines + ["<details><summary>Judge usage per run</summary>", "", *head, *rows, "", "</details>", ""]


def _figure_rows(cases: list[tuple[CaseResult, RunJudgement]]) -> list[list[str]]:
    rows = []
    for c, j in cases:
        n, f = j.counts, j.figures()
        rows.append([md_code(c.id), str(j.claim_count), str(n["supported"]), str(n["partial"]),
                     str(n["unsupported"]), str(n["contradicted"]), str(n["unscored"]),
                     str(j.overruled_count),
                     num(f["grounding_rate"]), num(f["hallucination_rate"]), num(f["query_quality"]),
                     num(f["primary_share"]), j.regime or c.regime or "–"])
    return rows


def _claim_lines(c: CaseResult, j: RunJudgement) -> list[str]:
    texts = {cl.id: cl.text for cl in j.claims}
    out = []
    where = md_code(c.id, in_table=False)
    for v in j.verdicts:
        claim = f"{where} claim {v.claim_id} «{md(texts.get(v.claim_id, ''), max_len=160)}»"
        if v.overruled:
            out.append(f"- {claim}: the judge said {v.judge_verdict}, overruled to unsupported "
                       f"(`{v.overrule_reason}`); its quote: «{md(v.evidence or '', max_len=160)}»")
        elif v.located == "other_source" and any(cl.id == v.claim_id and cl.citations for cl in j.claims):
            out.append(f"- {claim}: {v.verdict}, but the quote is only on "
                       f"{md_url(v.located_url or '', in_table=False)}, "
                       "which it does not cite (misattributed)")
        elif v.located == "snippet" and v.verdict is not None:
            out.append(f"- {claim}: {v.verdict}, grounded in a search snippet of "
                       f"{md_url(v.located_url or '', in_table=False)} only (the agent never read that page)")
        elif v.verdict is None:
            out.append(f"- {claim}: unscored ({md(v.unscored_reason or '')})")
    if j.claims_error:
        out.append(f"- {where}: {md(j.claims_error)} (counted as {j.estimated_claims} unscored claim(s))")
    for note in (*j.notes, *j.problems):
        out.append(f"- {where}: {md(note)}")
    return out


def judged_lines(report: Report, cases: Sequence[CaseResult] | None = None) -> list[str]:
    """The judged-figures section, or a line saying the judge did not run: from ``cases``, the judged
    cases when the caller has already read them (the report's cases are read otherwise)."""
    lines = [f"### Judged figures (judge: {report.judge_mode})", ""]
    cases = [c for c in report.cases if c.judgement is not None] if cases is None else cases
    judged = [(c, c.judgement) for c in cases if c.judgement is not None]
    summary = summarise(cases)
    if summary is None or not judged:
        return lines + ["No run was judged.", ""]
    head, rows = table(
        ["case", "claims", "supported", "partial", "unsupported", "contradicted", "unscored", "overruled",
         "grounding", "hallucination", "query quality", "primary share", "regime"],
        "lrrrrrrrrrrrl", _figure_rows(judged))
    m, split = summary.means, summary.hallucination_by_retrieval
    lines += [*head, *rows, "",
              f"Set means: grounding {num(m['grounding_rate'])}, "
              f"hallucination {num(m['hallucination_rate'])}, "
              f"query quality {num(m['query_quality'])}, primary share {num(m['primary_share'])}. "
              f"Hallucination rate when retrieval succeeded {num(split['retrieval_succeeded'])}, "
              f"when it failed {num(split['retrieval_failed'])} (a gap means answers from memory).",
              ""]
    lines += _usage_lines(judged, summary.usage)
    details = [line for c, j in judged for line in _claim_lines(c, j)]
    if details:
        lines += ["<details><summary>Overruled, misattributed, snippet-grounded and unscored claims; "
                  "judge notes</summary>", "",
                  *details, "", "</details>", ""]
    return lines
