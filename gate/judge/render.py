"""The user messages of the three judge calls, with every untrusted text inside delimiters.

Untrusted material (the question, the answer, claims extracted from it, page text, queries) is
wrapped in ``<material-MARKER ...>`` ... ``</material-MARKER>``. The system prompts say that
anything inside is data. The marker is derived from a SHA-256 hash of the run itself rather than
drawn at random: a page cannot close the delimiter early, because it would have to contain a
128-bit hash of its own text, and identical inputs render byte-identical requests, so the judge cache
key can be the hash of the exact request (no part of it left out of the key) and Anthropic's prompt
cache can hit on a retry. A marker that a text happens to contain is re-derived.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

from gate.judge.evidence import Source
from gate.judgement import Claim
from gate.model import Case, Run

MARKER_HEX = 32
CLASSIFY_EXCERPT_CHARS = 400
RESULT_SNIPPET_CHARS = 300
MAX_ASSESSED_RESULTS = 30
"""search results shown to the judge for retrieval relevance (the first ones, as the agent saw them)"""


def run_marker(run: Run) -> str:
    """A per-run delimiter marker: unpredictable to a page author, stable for identical inputs."""
    texts = [run.question, run.answer, *run.queries]
    texts += [f"{p.url}\n{p.final_url or ''}\n{p.text}" for p in run.pages]
    texts += [f"{r.url}\n{r.title}\n{r.snippet}" for r in run.results]
    h = hashlib.sha256(b"sourcegate-delimiter/1\0")
    for t in texts:
        h.update(t.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    salt = 0
    while True:
        found = hashlib.sha256(h.digest() + str(salt).encode()).hexdigest()[:MARKER_HEX]
        if not any(found in t for t in texts):
            return found
        salt += 1


_ATTR_ESCAPES = {ord(c): f"%{ord(c):02X}" for c in '"<>\r\n\t '}
"""An attribute value's characters that would end or break it, percent-encoded."""


def _attr(value: str) -> str:
    return value.translate(_ATTR_ESCAPES)


def wrap(mark: str, kind: str, text: str, **attrs: str) -> str:
    """``text`` inside the delimiters, with a kind and attributes (attribute values are escaped)."""
    extra = "".join(f' {k}="{_attr(v)}"' for k, v in attrs.items())
    return f'<material-{mark} kind="{kind}"{extra}>\n{text}\n</material-{mark}>'


def _lines(items: Iterable[str], empty: str) -> str:
    text = "\n".join(items)
    return text if text else empty


def claims_user(run: Run, mark: str, cited: Sequence[str]) -> str:
    """The extract_claims message: the question, the answer, and the URLs the code found cited."""
    return "\n\n".join([
        f"Marker: {mark}",
        "The question the agent was asked:\n" + wrap(mark, "question", run.question),
        "The agent's answer:\n" + wrap(mark, "answer", run.answer),
        "The URLs the answer cites:\n"
        + wrap(mark, "cited_urls", _lines((f"- {u}" for u in cited), "(none)")),
        "Call extract_claims with the atomic factual claims of the answer.",
    ])


def grade_user(claims: Sequence[Claim], sources: Sequence[Source], mark: str,
               snippets: Sequence[tuple[str, str]] = ()) -> str:
    """The grade_claims message: numbered claims with their cited sources, every source, then the
    search snippets (URL, text) the agent saw, labelled as snippets."""
    from gate.urls import canonical

    by_key = {k: s for s in sources for k in s.keys}
    rows = []
    for c in claims:
        cites = []
        for u in c.citations:
            s = by_key.get(canonical(u))
            cites.append(f"S{s.number} {u}" if s else f"{u} (not retrieved)")
        rows.append(f"[{c.id}] {c.text}\n    cites: {'; '.join(cites) or 'nothing'}")
    parts = [
        f"Marker: {mark}",
        f"Claims, numbered 1 to {len(claims)} (written by the agent):\n"
        + wrap(mark, "claims", "\n".join(rows)),
        "Sources the agent retrieved:",
    ]
    for s in sources:
        body = s.excerpt or "(no passage of this page shares words with the claims)"
        parts.append(wrap(mark, "source", body, id=f"S{s.number}", url=s.url))
    if not sources:
        parts.append("(the agent read no pages)")
    if snippets:
        parts.append("Search snippets the agent saw in its results (not pages it read):")
        parts += [wrap(mark, "snippet", text, id=f"R{i}", url=url) for i, (url, text) in enumerate(snippets, 1)]
    parts.append(f"Call grade_claims with one verdict for each of the claims 1 to {len(claims)}.")
    return "\n\n".join(parts)


def assess_user(run: Run, case: Case, mark: str, classify: Sequence[tuple[str, str]]) -> str:
    """The assess_run message: question, case constraints, queries, search results, and sources to classify.

    ``classify`` holds (url, what the agent saw of it) for each cited source no rule could type.
    """
    queries = _lines((f"[{i}] {q}" for i, q in enumerate(run.queries, 1)), "(no queries recorded)")
    sources = [
        wrap(mark, "source", text[:CLASSIFY_EXCERPT_CHARS] or "(no text)", id=str(i), url=url)
        for i, (url, text) in enumerate(classify, 1)
    ]
    results = _lines((f"[{i}] {r.title} <{r.url}>\n{r.snippet[:RESULT_SNIPPET_CHARS]}".rstrip()
                      for i, r in enumerate(run.results[:MAX_ASSESSED_RESULTS], 1)), "(no results recorded)")
    return "\n\n".join([
        f"Marker: {mark}",
        "The question:\n" + wrap(mark, "question", run.question),
        "Case constraints (from the golden set): " + ("; ".join(case.constraints) or "(none listed)"),
        "Case entities (from the golden set): " + ("; ".join(case.entities) or "(none listed)"),
        "The queries the agent sent, numbered:\n" + wrap(mark, "queries", queries),
        "The search results the agent got, numbered (title, URL, snippet):\n" + wrap(mark, "results", results),
        "Cited sources to classify, numbered:\n" + ("\n".join(sources) or "(none: give an empty list)"),
        "Call assess_run.",
    ])
