"""The judged part of the markdown report: figures per case, set means, usage and cost, overrules. Pure.

Claims, quotes, URLs and notes come from the agent, the pages or the judge: each passes through
:mod:`gate.report.escape` once.
"""

from __future__ import annotations

from gate.judge.model import RunJudgement, Usage
from gate.judge.summary import summarise
from gate.report.escape import md, md_code, md_url
from gate.report.sections import num, table
from gate.results import CaseResult, Report


def _cost(u: Usage) -> str:
    return "unknown (model not in the price table)" if u.cost_usd is None else f"${u.cost_usd:.4f}"


def usage_line(u: Usage) -> str:
    """API calls, tokens, prompt-cache tokens and estimated cost, in one sentence."""
    return (f"{u.calls} API call(s), {u.input_tokens:,} input and {u.output_tokens:,} output tokens, "
            f"prompt cache {u.cache_read_tokens:,} read and {u.cache_write_tokens:,} written, "
            f"estimated cost {_cost(u)}")


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
        elif v.verdict is None:
            out.append(f"- {claim}: unscored ({md(v.unscored_reason or '')})")
    if j.claims_error:
        out.append(f"- {where}: {md(j.claims_error)} (counted as {j.estimated_claims} unscored claim(s))")
    for note in (*j.notes, *j.problems):
        out.append(f"- {where}: {md(note)}")
    if j.dropped_constraints or j.dropped_entities:
        lost = [*(f"constraint «{md(x)}»" for x in j.dropped_constraints),
                *(f"entity «{md(x)}»" for x in j.dropped_entities)]
        out.append(f"- {where}: no query kept {', '.join(lost)}")
    return out


def judged_lines(report: Report) -> list[str]:
    """The judged-figures section, or a line saying the judge did not run."""
    lines = [f"### Judged figures (judge: {report.judge_mode})", ""]
    judged = [(c, c.judgement) for c in report.cases if c.judgement is not None]
    summary = summarise(report.cases)
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
              "", f"**Judge usage**: {usage_line(summary.usage)}.", ""]
    head, rows = table(["case", "calls", "input", "output", "cache read", "cache write", "cost"], "lrrrrrr", [
        [md_code(c.id), str(j.usage.calls), f"{j.usage.input_tokens:,}", f"{j.usage.output_tokens:,}",
         f"{j.usage.cache_read_tokens:,}", f"{j.usage.cache_write_tokens:,}", _cost(j.usage)]
        for c, j in judged])
    lines += ["<details><summary>Judge usage per run</summary>", "", *head, *rows, "", "</details>", ""]
    details = [line for c, j in judged for line in _claim_lines(c, j)]
    if details:
        lines += ["<details><summary>Overruled, misattributed and unscored claims; judge notes</summary>", "",
                  *details, "", "</details>", ""]
    return lines
