"""``tavily-agent-log``: a LangChain agent run printed with ``pretty_print()``, using Tavily's tools.

    ===== Human Message =====            -> the question (the first one)
    ===== Ai Message ===== + Tool Calls  -> the arguments of each call (the query the agent sent)
    ===== Tool Message ===== tavily_search  -> a query and its results (the tool's JSON: url,
                                            title, content, published_date; raw_content, when
                                            the search returned it, is a page the model read)
    ===== Tool Message ===== tavily_extract -> pages read: results[].url and raw_content
    the last Ai Message, with no calls   -> the answer (citations: the gate extracts its links)

A tool message is paired with the next unanswered call of the same name. The query is the one
the agent sent (the call's ``query`` argument), not Tavily's echo of it, which may differ.
``failed_results`` of an extract were not read and are not pages. Other tools are not read.
Tool output that starts like JSON must be JSON: a cut-off log is refused with its line number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from gate.errors import InputError
from gate.files.where import Where, arr, need, obj, publication_date, text, url
from gate.importers.base import Context, TraceBuilder
from gate.importers.embedded import parse_at

# LangChain's get_msg_title_repr: "=" * n, " Ai Message " (bold in a notebook), "=" * n
_BANNER = re.compile(r"^=+(?:\x1b\[1m)? (Human|Ai|Tool|System) Message (?:\x1b\[0m)?=+$")
_CALL = re.compile(r"^  (\S+) \((.*)\)$")
_ARG = re.compile(r"^    ([A-Za-z_][\w-]*): (.*)$")


@dataclass
class _Call:
    name: str
    args: dict[str, str] = field(default_factory=dict)
    answered: bool = False


@dataclass
class _Message:
    kind: str
    line: int
    """1-based line of the message's first content line"""
    name: str | None = None
    body: str = ""
    calls: list[_Call] = field(default_factory=list)


class TavilyAgentLogImporter:
    """A printed LangChain run (``pretty_print`` of each message) with tavily_search / tavily_extract."""

    id = "tavily-agent-log"
    description = "LangChain agent run printed with pretty_print(), using tavily_search and tavily_extract"

    def convert(self, data: Any, ctx: Context) -> dict[str, Any]:
        """The trace of one printed run."""
        if not isinstance(data, str):
            raise InputError("expected the printed log as text", file=ctx.source)
        messages = _messages(data, ctx.source)
        humans = [m for m in messages if m.kind == "Human"]
        if not humans:
            raise Where(ctx.source, "$", 1).error("no Human Message: expected a printed LangChain run")
        trace = TraceBuilder()
        pending: list[_Call] = []
        for message in messages:
            if message.kind == "Ai":
                pending = message.calls
            elif message.kind == "Tool" and message.name in ("tavily_search", "tavily_extract"):
                call = next((c for c in pending if c.name == message.name and not c.answered), None)
                if call is not None:
                    call.answered = True
                _tool(message, call, Where(ctx.source, "$", message.line), trace)
        last = messages[-1]
        if last.kind != "Ai" or last.calls:
            raise Where(ctx.source, "$", last.line).error(
                f"the log ends with a {last.kind} Message{' with tool calls' if last.calls else ''}: "
                "expected a final Ai Message, the answer")
        return trace.build(ctx, question=humans[0].body, answer=last.body, cited=False)


def _messages(raw: str, file: str) -> list[_Message]:
    messages: list[_Message] = []
    lines: list[str] = []
    for number, line in enumerate(raw.splitlines(), start=1):
        banner = _BANNER.match(line)
        if banner:
            if messages:
                _finish(messages[-1], lines)
            messages.append(_Message(kind=banner.group(1), line=number + 1))
            lines = []
        elif messages:
            lines.append(line)
        elif line.strip():
            raise Where(file, "$", number).error(
                "expected a LangChain message banner (=== Human Message ===) before any text")
    if not messages:
        raise Where(file).error("no LangChain message banners: expected a run printed with pretty_print()")
    _finish(messages[-1], lines)
    return messages


def _finish(message: _Message, lines: list[str]) -> None:
    """Split a message's lines into its name, body and tool calls (pretty_repr's layout)."""
    if lines and lines[0].startswith("Name: "):
        message.name = lines.pop(0)[len("Name: "):]
        message.line += 1
    if lines and not lines[0].strip():
        lines.pop(0)
        message.line += 1
    if message.kind == "Ai":
        for i, line in enumerate(lines):
            if line == "Tool Calls:" and i + 1 < len(lines) and _CALL.match(lines[i + 1]):
                message.calls = _calls(lines[i + 1:])
                lines = lines[:i]
                break
    message.body = "\n".join(lines).strip("\n")


def _calls(lines: list[str]) -> list[_Call]:
    calls: list[_Call] = []
    key = None
    for line in lines:
        start, arg = _CALL.match(line), _ARG.match(line)
        if start:
            calls.append(_Call(start.group(1)))
            key = None
        elif arg and calls:
            key = arg.group(1)
            calls[-1].args[key] = arg.group(2)
        elif key is not None and not line.startswith((" Call ID: ", "  Args:", "  Error: ")):
            calls[-1].args[key] += "\n" + line  # a value printed over several lines
    return calls


def _tool(message: _Message, call: _Call | None, at: Where, trace: TraceBuilder) -> None:
    body = message.body.strip()
    sent = call.args.get("query") if call is not None else None
    if not body.startswith("{"):
        # The tool failed (LangChain prints the error text): a search still sent its query.
        if message.name == "tavily_search" and sent:
            trace.query(sent)
        return
    output = obj(parse_at(body, at), at)
    results_at = at.key("results")
    results = arr(need(output, "results", at), results_at)
    if message.name == "tavily_search":
        query = trace.query(sent or text(need(output, "query", at), at.key("query")))
    for i, raw in enumerate(results):
        here = results_at.item(i)
        item = obj(raw, here)
        link = url(need(item, "url", here), here.key("url"))
        page = item.get("raw_content")
        if message.name == "tavily_search":
            trace.result(query, link, title=_opt(item, "title", here), snippet=_opt(item, "content", here),
                         published=publication_date(_opt(item, "published_date", here)))
        elif page is None:
            raise here.key("raw_content").error("an extract result without raw_content")
        if page is not None and text(page, here.key("raw_content")).strip():
            trace.page(link, page)


def _opt(item: dict[str, Any], key: str, at: Where) -> str | None:
    return None if item.get(key) is None else text(item[key], at.key(key))
