"""A small search agent on the Anthropic Messages API, recorded by sourcegate.

The model gets three tools: ``web_search`` and ``read_page``, which call the search and page
endpoints at ``$SOURCEGATE_REPLAY_URL`` (the frozen web ``sourcegate run`` serves), and
``final_answer``, which ends the run with the answer and its citations. The recorder wraps the two
web tools and the model's calls, so the trace holds exactly what the model saw, cut where the
model's text was cut, with each call's time, tokens and cost;
before the answer is saved, ``guard()`` drops the citations that fail the gate's hard checks
(a URL the agent never saw, a page it never read, a quote the page does not hold).

    sourcegate run cached-snapshots/example -- python examples/agent/agent.py

Environment: ``ANTHROPIC_API_KEY`` (and ``ANTHROPIC_BASE_URL`` for another endpoint), plus what
``sourcegate run`` sets for each case. ``--no-guard`` saves the answer as the model gave it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

import anthropic

from gate.record import Recorder, parse_results

MODEL = os.environ.get("AGENT_MODEL", "claude-sonnet-4-5")
PROVIDER = os.environ.get("AGENT_SEARCH_PROVIDER", "trace")
MAX_TURNS = 8
MAX_PAGE_CHARS = 8000

TOOLS: list[dict[str, Any]] = [
    {"name": "web_search", "description": "Search the web; returns titles, URLs and snippets.",
     "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}},
    {"name": "read_page", "description": "Read the main text of a web page.",
     "input_schema": {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}},
    {"name": "final_answer", "description": "Give the final answer, citing the pages it rests on.",
     "input_schema": {"type": "object", "required": ["answer", "citations"], "properties": {
         "answer": {"type": "string"},
         "citations": {"type": "array", "items": {"type": "object", "required": ["url"], "properties": {
             "url": {"type": "string"}, "quote": {"type": "string"}}}}}}},
]
SYSTEM = ("Answer the question from the web. Search, read the pages you rely on, then call final_answer "
          "with each citation's URL and a short verbatim quote from the page.")


class ToolError(Exception):
    """A tool call the web could not answer: the model is told, and may try something else."""


def _get(path: str, **params: str) -> Any:
    url = os.environ["SOURCEGATE_REPLAY_URL"] + path + "?" + urllib.parse.urlencode(params)
    try:
        with urllib.request.urlopen(url, timeout=30) as response:  # noqa: S310 (the replay server's URL)
            return json.load(response)
    except urllib.error.HTTPError as e:
        raise ToolError(f"{path} failed with HTTP {e.code}") from e


def build_tools(rec: Recorder) -> dict[str, Any]:
    """The agent's web tools, each wrapped by the recorder."""
    @rec.search(provider=PROVIDER)
    def web_search(query: str) -> dict[str, Any]:
        response: dict[str, Any] = _get("/search", provider=PROVIDER, q=query)
        return response

    @rec.read(max_chars=MAX_PAGE_CHARS)
    def read_page(url: str) -> str:
        text: str = _get("/extract", url=url)["text"]
        return text

    return {"web_search": web_search, "read_page": read_page}


def _tool_output(name: str, value: Any) -> str:
    if name == "web_search":
        return json.dumps([{"title": r.title, "url": r.url, "snippet": r.snippet}
                           for r in parse_results(value, PROVIDER)])
    return str(value)


def run(question: str, rec: Recorder, client: anthropic.Anthropic) -> dict[str, Any]:
    """The tool-use loop: until the model calls final_answer (or runs out of turns)."""
    tools = build_tools(rec)
    create = rec.model(client.messages.create)  # each call's time, tokens and cost, in the trace
    messages: list[dict[str, Any]] = [{"role": "user", "content": question}]
    for _ in range(MAX_TURNS):
        reply = create(model=MODEL, max_tokens=2048, system=SYSTEM, tools=TOOLS, messages=messages)
        messages.append({"role": "assistant", "content": [b.model_dump() for b in reply.content]})
        results = []
        for block in reply.content:
            if block.type != "tool_use":
                continue
            if block.name == "final_answer":
                return dict(block.input)
            try:
                (arg,) = dict(block.input).values()
                content, error = _tool_output(block.name, tools[block.name](arg)), False
            except (ToolError, KeyError, ValueError) as e:
                content, error = f"error: {e}", True
            results.append({"type": "tool_result", "tool_use_id": block.id, "content": content, "is_error": error})
        if not results:
            raise SystemExit("the model stopped without calling final_answer")
        messages.append({"role": "user", "content": results})
    raise SystemExit(f"no final answer after {MAX_TURNS} turns")


def main() -> int:
    """Answer ``$SOURCEGATE_QUESTION`` and save the trace to ``$SOURCEGATE_TRACE_FILE``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-guard", action="store_true", help="keep citations that fail the hard checks")
    args = parser.parse_args()
    rec = Recorder(agent={"name": "sourcegate-example-agent", "model": MODEL})
    final = run(rec.question, rec, anthropic.Anthropic(max_retries=2))
    answer, citations = final["answer"], final.get("citations", [])
    if not args.no_guard:
        failing = rec.guard(answer, citations)
        dropped = {f.url for f in failing}
        for f in failing:
            print(f"guard: dropped {f.url}: {f.check}", file=sys.stderr)
        citations = [c for c in citations if c["url"] not in dropped]
    rec.answer(answer, citations)
    rec.save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
