"""The ``scripted`` provider: a deterministic stand-in for the judge model, rules instead of a model.

Picked by name like any provider (``judge.provider: scripted``), it is what the tests and the
benchmark answer with, and what recorded the example set's judge cache. It reads the material out of
sourcegate's own prompts (the ``<material-MARKER ...>`` blocks) and answers each forced tool the way a
careful, literal grader would:

- ``extract_claims``: each sentence of the answer (sources list, headings, hedges and questions left
  out) is a claim, cited to the URLs its links and ``[n]`` markers point at;
- ``grade_claims``: a claim is ``supported`` by the source sentence that holds most of its words and
  all of its numbers (first among the sources it cites), ``contradicted`` when that sentence has the
  words but other numbers, ``partial`` with fewer words, else ``unsupported``; evidence is that
  sentence, copied verbatim; a claim no page supports is graded the same way against the search snippets;
- ``assess_run``: queries lose points for dropped case constraints and entities and, as many, for
  padding (an over-broad rewrite); the results' relevance is the share of the question's words they hold;
  the regime comes from words of the question; news, blog and forum sites are secondary.

It never sees a real model's output and claims no accuracy: use it to try the gate's plumbing, not
to judge answers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from gate.checks.passage import terms
from gate.checks.survival import survives
from gate.config import JudgeConfig
from gate.judge.base import ToolCall, ToolReply
from gate.judgement import Usage
from gate.urls import canonical

_BLOCK = re.compile(r'<material-(\w+) kind="(\w+)"([^>]*)>\n(.*?)\n</material-\1>', re.S)
_ATTR = re.compile(r'(\w+)="([^"]*)"')
_SENTENCE = re.compile(r"(?<=[.!?])(?:\*\*)?\s+(?=[A-Z0-9\"“(*])|\n+|\s*\[…\]\s*|(?<=[:;])\s+(?=\S)")
_INLINE = re.compile(r"\[([^\]]*)\]\((https?://(?:[^()\s]|\([^()\s]*\))+)\)")
_REFLINK = re.compile(r"\[([^\]]+)\]\[([^\]]+)\]")
_MARKER = re.compile(r"\[(\^?\w+)\](?![(\[])")
_DEFINITION = re.compile(r"^\s*\[(\^?[^\]]+)\]:\s*(https?://\S+)\s*$")
_NUMBERED = re.compile(r"^\s*(?:\[(\d+)\]|(\d+)[.)])\s+.*?(https?://(?:[^()\s]|\([^()\s]*\))+)")
_CITE_GROUP = re.compile(r"\s*\((?:see\s+)?(?:\[[^\]]*\](?:\((?:[^()]|\([^()]*\))*\)|\[[^\]]*\])[;,\s]*)+\)")
_SEE_URL = re.compile(r"\s*\(see\s+https?://\S+\)")
_BARE = re.compile(r"https?://(?:[^\s()<>]|\([^\s()<>]*\))+")
HEDGES = ("i think", "i believe", "it seems", "it is unclear", "let me", "here is", "here's", "in summary",
          "note that", "i could not", "i couldn't", "i was unable", "sources", "references", "short answer")
SECONDARY_HINTS = ("news", "blog", "medium.", "reddit.", "forum", "wikipedia.", "techcrunch.", "theverge.",
                   "reuters.", "bloomberg.", "cnbc.", "forbes.", "guardian.", "nytimes.", "bbc.",
                   "arstechnica.", "zdnet.", "wired.", "substack.", "quora.", "stackoverflow.",
                   "businesswire.", "carbonbrief.", "moneyfacts.", "wsj.", "github.io", "labs.")
REALTIME = ("today", "right now", "currently", "live", "this week", "score", "weather")
FAST = ("latest", "current", "price", "newest", "2025", "2026", "this year", "recent", "release")
TIMELESS = ("history", "who invented", "when was", "when did", "define", "definition", "first ",
            "since which")


def blocks(text: str) -> list[tuple[str, dict[str, str], str]]:
    """(kind, attributes, body) of each material block in a prompt."""
    return [(m.group(2), dict(_ATTR.findall(m.group(3))), m.group(4)) for m in _BLOCK.finditer(text)]


def _refs(answer: str) -> dict[str, str]:
    out = {}
    for line in answer.splitlines():
        if m := _DEFINITION.match(line):
            out[m.group(1).lower()] = m.group(2)
        elif m := _NUMBERED.match(line):
            out[m.group(1) or m.group(2)] = m.group(3).rstrip(".,;")
    return out


def _lines(answer: str) -> list[str]:
    """The answer's prose lines: no code, headings, sources lists, definitions or table rules."""
    out, fenced, sources = [], False, False
    lines = answer.splitlines()
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("```"):
            fenced = not fenced
            continue
        if fenced or not stripped or stripped.startswith("#") or _DEFINITION.match(line):
            continue
        if re.match(r"^\**(sources|references)\b", stripped, re.I):
            sources = True
            continue
        if sources and (_NUMBERED.match(line) or stripped.startswith(("-", "*"))):
            continue
        sources = False
        if stripped.startswith("|"):
            following = lines[i + 1].strip() if i + 1 < len(lines) else ""
            if set(stripped) <= set("|-: ") or set(following) <= set("|-: ") and following:
                continue  # a table rule, or the header above it
            stripped = ", ".join(c.strip() for c in stripped.strip("|").split("|")) + "."
        out.append(re.sub(r"^(?:[-*•]|\d+[.)])\s+", "", stripped))
    return out


def _clean(sentence: str) -> str:
    text = _SEE_URL.sub("", _CITE_GROUP.sub("", sentence))
    text = _INLINE.sub(lambda m: m.group(1), text)
    text = _REFLINK.sub(lambda m: m.group(1), text)
    text = _MARKER.sub("", _BARE.sub("", text))
    text = text.replace("**", "").replace("`", "").replace("*", "")
    text = re.sub(r"\s+", " ", text).strip(" -•:;,")
    return re.sub(r"\s+([.,;:!?])", r"\1", text)


def extract(answer: str, cited: list[str]) -> list[dict[str, Any]]:
    """The claims of an answer, as the ``extract_claims`` input."""
    known = {canonical(u): u for u in cited}
    refs = _refs(answer)
    claims = []
    for line in _lines(answer):
        for sentence in _SENTENCE.split(line):
            urls = [m.group(2) for m in _INLINE.finditer(sentence)]
            urls += [refs.get(m.group(2).lower(), "") for m in _REFLINK.finditer(sentence)]
            urls += [refs.get(m.group(1).lower(), "") for m in _MARKER.finditer(sentence)]
            urls += _BARE.findall(_INLINE.sub("", sentence))
            plain = _clean(sentence)
            if len(plain.split()) < 4 or plain.endswith("?") or plain.lower().startswith(HEDGES):
                continue
            cites = [known[c] for u in urls if u and (c := canonical(u.rstrip(".,;"))) in known]
            claims.append({"text": plain, "citations": list(dict.fromkeys(cites))})
    return claims


def _numbers(text: str) -> set[str]:
    return {t for t in terms(text) if t[0].isdigit()}


def _units(text: str) -> list[str]:
    """Sentences of an excerpt, and each pair of neighbours, never across an omission."""
    out = []
    for part in re.split(r"\s*\[…\]\s*", text):
        sentences = [x for x in _SENTENCE.split(part) if x.strip()]
        out += sentences
        out += [f"{a} {b}" for a, b in zip(sentences, sentences[1:], strict=False)]
    return out


def grade(claim: str, cited: list[str], sources: list[tuple[str, str]]) -> dict[str, Any]:
    """One verdict (without its id) for ``claim`` against (source id, excerpt) pairs."""
    want = terms(claim)
    nums = _numbers(claim)
    best: tuple[float, int, int, str, bool] | None = None
    for sid, text in sources:
        for unit in _units(text):
            have = terms(unit)
            if not want or not have:
                continue
            rank = (len(want & have) / len(want), int(sid in cited), -len(unit), unit.strip(), nums <= have)
            if best is None or rank[:3] > best[:3]:
                best = rank
    if best is None or best[0] < 0.3:
        return {"verdict": "unsupported", "evidence": None}
    score, _, _, unit, numbers_ok = best
    if numbers_ok:
        return {"verdict": "supported" if score >= 0.55 else "partial", "evidence": unit}
    found = nums & _numbers(unit)
    if score >= 0.6 and not found and _numbers(unit):
        return {"verdict": "contradicted", "evidence": unit}
    if score >= 0.4 and len(found) * 2 >= len(nums):
        return {"verdict": "partial", "evidence": unit}
    return {"verdict": "unsupported", "evidence": None}


def _graded(claim: str, cited: list[str], sources: list[tuple[str, str]],
            snippets: list[tuple[str, str]]) -> dict[str, Any]:
    """The pages first; a claim they leave unsupported is graded against the search snippets."""
    verdict = grade(claim, cited, sources)
    if verdict["verdict"] == "unsupported" and snippets:
        return grade(claim, [], snippets)
    return verdict


def _claims_block(body: str) -> list[tuple[int, str, list[str]]]:
    out = []
    for m in re.finditer(r"^\[(\d+)\] (.*)\n    cites: (.*)$", body, re.M):
        cited = re.findall(r"\bS(\d+)\b", m.group(3))
        out.append((int(m.group(1)), m.group(2), [f"S{c}" for c in cited]))
    return out


def _query_scores(question: str, queries: Sequence[str], constraints: Sequence[str],
                  entities: Sequence[str]) -> list[dict[str, int]]:
    """Each query's constraint preservation and entity recall, as a careful literal grader scores them."""
    scores = []
    q_terms = terms(question)
    for i, q in enumerate(queries, 1):
        extra = len(terms(q) - q_terms) / max(1, len(terms(q)))
        lost = sum(1 for c in constraints if not survives(c, [q]))
        missed = sum(1 for e in entities if not survives(e, [q]))
        padded = 2 if extra > 0.5 else 0  # an over-broad rewrite loses as much as a dropped constraint
        scores.append({"index": i, "constraint_preservation": max(1, 5 - 2 * lost - padded),
                       "entity_recall": max(1, 5 - 2 * missed)})
    return scores


def _regime(question: str) -> str:
    low = question.lower()
    if any(w in low for w in REALTIME):
        return "realtime"
    if any(w in low for w in FAST):
        return "fast"
    return "insensitive" if any(w in low for w in TIMELESS) else "slow"


def _listed(line: Mapping[str, str], name: str) -> list[str]:
    return [c for c in line.get(name, "").split("; ") if c and c != "(none listed)"]


def assess(text: str) -> dict[str, Any]:
    """The ``assess_run`` input for a rendered assess prompt."""
    found = blocks(text)
    question = next((b for k, _, b in found if k == "question"), "")
    queries_body = next((b for k, _, b in found if k == "queries"), "")
    queries = re.findall(r"^\[\d+\] (.*)$", queries_body, re.M)
    line = dict(re.findall(r"^Case (constraints|entities) \(from the golden set\): (.*)$", text, re.M))
    scores = _query_scores(question, queries, _listed(line, "constraints"), _listed(line, "entities"))
    sources = [{"id": int(a["id"]), "type": "secondary" if any(h in a.get("url", "") for h in SECONDARY_HINTS)
                else "primary"} for k, a, _ in found if k == "source"]
    results = next((b for k, _, b in found if k == "results"), "")
    seen = terms(results) if results != "(no results recorded)" else set()
    q_terms = terms(question)
    covered = len(q_terms & seen) / len(q_terms) if q_terms else 0.0
    relevance = 1 + round(4 * covered) if seen else 1
    return {"queries": scores, "retrieval_relevance": relevance, "regime": _regime(question), "sources": sources}


def answer(tool_name: str | None, text: str) -> dict[str, Any] | None:
    """The input the scripted judge gives ``tool_name`` for the user message ``text``; None for a tool it
    does not know."""
    found = blocks(text)
    if tool_name == "extract_claims":
        answer_text = next((b for k, _, b in found if k == "answer"), "")
        cited_body = next((b for k, _, b in found if k == "cited_urls"), "")
        cited = [ln[2:] for ln in cited_body.splitlines() if ln.startswith("- ")]
        return {"claims": extract(answer_text, cited)}
    if tool_name == "grade_claims":
        claims = _claims_block(next((b for k, _, b in found if k == "claims"), ""))
        sources = [(a["id"], b) for k, a, b in found if k == "source"]
        snippets = [(a["id"], b) for k, a, b in found if k == "snippet"]
        return {"verdicts": [{"id": i, **_graded(t, c, sources, snippets)} for i, t, c in claims]}
    if tool_name == "assess_run":
        return assess(text)
    if tool_name == "grade_claim":  # the straightforward design of the benchmark
        return {"verdict": "unsupported", "evidence": None}
    return None


class ScriptedProvider:
    """The scripted judge as a provider: answers in-process, never over the network, costs nothing: its
    answers are no API call, and are not counted as one."""

    def __init__(self, config: JudgeConfig, *, base_url: str | None = None, api_key: str | None = None) -> None:
        """Nothing to set up: the rules need no model, no URL and no key."""

    def call(self, call: ToolCall, timeout: float) -> ToolReply:
        """The rules' answer to ``call`` (text only, for a tool the rules do not know)."""
        tool_input = answer(call.tool.name, call.user)
        if tool_input is None:
            return ToolReply(None, "end_turn", Usage(), "I can only answer sourcegate's judge tools.")
        return ToolReply(tool_input, "tool_use", Usage())
