"""A small search agent on the Anthropic Messages API, recorded by sourcegate.

The model gets three tools: ``web_search`` and ``read_page``, which call the search and page
endpoints at ``$SOURCEGATE_REPLAY_URL`` (the frozen web ``sourcegate run`` serves), and
``final_answer``, which ends the run with the answer and its citations. The recorder wraps the two
web tools and the model's calls, so the trace holds exactly what the model saw, cut where the
model's text was cut, with each call's time, tokens and cost.

Each answer is guarded before it is saved (``Recorder.regenerate``): a draft with a citation that
fails the gate's hard checks (a URL the agent never saw, a page it never read, a quote the page does
not hold) is rejected, logged on stderr, and the model is told which URLs were rejected and why, as
the result of its ``final_answer`` call, so it may search and read again before it answers anew. Up
to three drafts; every one is an attempt of the trace. Nothing is removed from an answer by hand.

    sourcegate run cached-snapshots/example -- python examples/agent/agent.py

Environment: ``ANTHROPIC_API_KEY`` (and ``ANTHROPIC_BASE_URL`` for another endpoint), plus what
``sourcegate run`` sets for each case. ``--no-guard`` saves the first answer as the model gave it.
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

from gate.record import Recorder, Rejection, parse_results

MODEL = os.environ.get("AGENT_MODEL", "claude-sonnet-4-5")
PROVIDER = os.environ.get("AGENT_SEARCH_PROVIDER", "trace")
MAX_TURNS = 8
MAX_PAGE_CHARS = 8000
MAX_DRAFTS = 3

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


class Conversation:
    """The tool-use loop with the model, kept from one draft to the next."""

    def __init__(self, rec: Recorder, client: anthropic.Anthropic) -> None:
        """A conversation on the recorded question, with the web tools and the model call recorded."""
        self.tools = build_tools(rec)
        self.create = rec.model(client.messages.create)  # each call's time, tokens and cost, in the trace
        self.messages: list[dict[str, Any]] = [{"role": "user", "content": rec.question}]
        self.answered: list[str] = []
        """the tool calls of the turn that gave the last answer (final_answer's first)"""

    def draft(self, rejection: Rejection | None) -> tuple[str, list[dict[str, Any]]]:
        """The model's answer and citations: until it calls final_answer (or runs out of turns). After a
        rejection, the model is told what was rejected as its final_answer call's result."""
        if rejection is not None:
            told = [{"type": "tool_result", "tool_use_id": self.answered[0], "content": rejection.message(),
                     "is_error": True}]
            told += [{"type": "tool_result", "tool_use_id": other, "content": "not run: you answered in this turn"}
                     for other in self.answered[1:]]
            self.messages.append({"role": "user", "content": told})
        for _ in range(MAX_TURNS):
            reply = self.create(model=MODEL, max_tokens=2048, system=SYSTEM, tools=TOOLS, messages=self.messages)
            self.messages.append({"role": "assistant", "content": [b.model_dump() for b in reply.content]})
            calls = [b for b in reply.content if b.type == "tool_use"]
            final = next((b for b in calls if b.name == "final_answer"), None)
            if final is not None:
                self.answered = [final.id, *(b.id for b in calls if b is not final)]
                given: dict[str, Any] = dict(final.input)
                return str(given["answer"]), list(given.get("citations", []))
            if not calls:
                raise SystemExit("the model stopped without calling final_answer")
            self.messages.append({"role": "user", "content": [self._result(b) for b in calls]})
        raise SystemExit(f"no final answer after {MAX_TURNS} turns")

    def _result(self, block: Any) -> dict[str, Any]:
        try:
            (arg,) = dict(block.input).values()
            content, error = _tool_output(block.name, self.tools[block.name](arg)), False
        except (ToolError, KeyError, ValueError) as e:
            content, error = f"error: {e}", True
        return {"type": "tool_result", "tool_use_id": block.id, "content": content, "is_error": error}


def main() -> int:
    """Answer ``$SOURCEGATE_QUESTION`` and save the trace to ``$SOURCEGATE_TRACE_FILE``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-guard", action="store_true", help="keep the first answer, whatever it cites")
    args = parser.parse_args()
    rec = Recorder(agent={"name": "sourcegate-example-agent", "model": MODEL})
    chat = Conversation(rec, anthropic.Anthropic(max_retries=2))
    if args.no_guard:
        rec.answer(*chat.draft(None))
        rec.save()
        return 0
    outcome = rec.regenerate(chat.draft, attempts=MAX_DRAFTS)
    for n, attempt in enumerate(outcome.attempts, 1):
        for f in attempt.findings:
            print(f"guard: draft {n} rejected {f.url or 'the answer'}: {f.check}", file=sys.stderr)
    if outcome.gave_up:  # the last draft is saved as it is: the gate reports what the guard found in it
        print(f"guard: gave up after {MAX_DRAFTS} drafts", file=sys.stderr)
        rec.answer(*outcome.last)
    else:
        rec.answer(outcome.answer or "", outcome.citations)
    rec.save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
