"""``langsmith``: LangSmith runs, as the SDK posts them or as a run export lists them.

    {"post": [run...], "patch": [run...]}   the SDK's ingestion payload (a patch completes its post)
    [run...] or {"runs": [run...]}          an export of a trace's runs

    root run (no parent_run_id)  -> the question: inputs ``question``/``input``/``query``, or the last
                                    user message of ``inputs.messages``; the answer: outputs
                                    ``output``/``answer``/``text``, or the first choice's message
                                    (OpenAI), or the first generation (LangChain); start_time ->
                                    started_at (epoch milliseconds, or ISO; a time without a zone is UTC)
    retriever runs               -> a query (inputs ``query``) and its results: outputs ``documents``
                                    with ``metadata.source``/``url``, ``metadata.title``, ``page_content``
    tool runs named *search*     -> a query (inputs ``query``/``input``) and its results when the
                                    output is a list of objects with ``url``/``href``/``link``
    the first model named        -> agent.model (``extra.metadata.ls_model_name``, else outputs.model)
    start_time, end_time         -> when each search ran and how long it took
    llm runs                     -> model calls: times, model, tokens (outputs ``usage_metadata``, else
                                    ``usage``, else ``llm_output.token_usage``), priced from the gate's table

Runs are read in start order. Citations are left to the gate's extraction from the answer.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from gate.files.where import Where, arr, obj, publication_date, timestamp
from gate.importers.base import Context, TraceBuilder, duration_ms, last_message
from gate.importers.embedded import embedded, parsed
from gate.usage.tokens import tokens_of

_QUESTION_KEYS = ("question", "input", "query", "prompt")
_ANSWER_KEYS = ("output", "answer", "text", "content", "result")
_URL_KEYS = ("url", "source", "href", "link")


class LangSmithImporter:
    """LangSmith runs: the SDK's post/patch payload or a list of exported runs."""

    id = "langsmith"
    description = "LangSmith runs {post, patch} or [run...]: retriever and search runs, inputs, outputs"

    def convert(self, data: Any, ctx: Context) -> dict[str, Any]:
        """The trace of the one root run in the file."""
        at = Where(ctx.source)
        runs = _merged(parsed(data, ctx), at)
        ids = {r["id"] for r, _ in runs}
        roots = [(r, w) for r, w in runs if r.get("parent_run_id") not in ids]
        if len(roots) != 1:
            raise at.error(f"expected one root run (without a parent among the runs), found {len(roots)}")
        [(root, root_at)] = roots
        question = _question(root.get("inputs"))
        if question is None and ctx.question is None:
            raise root_at.key("inputs").error(f"no question found (expected one of {', '.join(_QUESTION_KEYS)} "
                                              "or a user message): pass --question")
        answer = _answer(root.get("outputs"))
        if answer is None:
            raise root_at.key("outputs").error(f"no answer found (expected one of {', '.join(_ANSWER_KEYS)}, "
                                               "choices or generations)")
        trace = TraceBuilder()
        model = None
        for run, here in sorted(runs, key=lambda pair: str(_start(pair[0].get("start_time"), pair[1]) or "")):
            model = model or _model(run)
            kind = run.get("run_type")
            name = str(run.get("name") or "").lower()
            if kind == "retriever" or (kind == "tool" and "search" in name):
                _search(run, here, trace)
            elif kind == "llm":
                _llm(run, here, trace)
        return trace.build(ctx, question=question, answer=answer, model=model, cited=False,
                           started_at=_start(root.get("start_time"), root_at.key("start_time")))


def _merged(doc: Any, at: Where) -> list[tuple[dict[str, Any], Where]]:
    """The runs, each patch merged into its post (by id), in the order they were posted."""
    if isinstance(doc, dict) and ("post" in doc or "patch" in doc):
        runs: dict[str, tuple[dict[str, Any], Where]] = {}
        by_order: dict[str, str] = {}  # a patch may name its run by dotted_order alone
        for part in ("post", "patch"):
            part_at = at.key(part)
            for i, raw in enumerate(arr(doc.get(part, []), part_at)):
                run = obj(raw, part_at.item(i))
                key = str(run.get("id") or by_order.get(str(run.get("dotted_order")), ""))
                if not key:
                    raise part_at.item(i).error("a run without an id (or the dotted_order of a posted run)")
                known, where = runs.get(key, ({"id": key}, part_at.item(i)))
                runs[key] = ({**known, **run}, where)
                if isinstance(run.get("dotted_order"), str):
                    by_order[run["dotted_order"]] = key
        return list(runs.values())
    listed_at = at.key("runs") if isinstance(doc, dict) else at
    items = arr(doc.get("runs") if isinstance(doc, dict) else doc, listed_at)
    out = []
    for i, raw in enumerate(items):
        run = obj(raw, listed_at.item(i))
        if not run.get("id"):
            raise listed_at.item(i).error("a run without an id")
        out.append((run, listed_at.item(i)))
    return out


def _start(value: Any, at: Where) -> str | None:
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        if value > 1e11:  # LangSmith's SDK posts epoch milliseconds
            return timestamp(datetime.fromtimestamp(value / 1000, UTC).isoformat(), at)
        return timestamp(value, at)
    if isinstance(value, str) and "T" in value and not value.endswith("Z") and "+" not in value[10:]:
        value += "Z"  # LangSmith writes UTC times without a zone
    return timestamp(value, at)


def _question(inputs: Any) -> str | None:
    if isinstance(inputs, str):
        return inputs
    if not isinstance(inputs, dict):
        return None
    for key in _QUESTION_KEYS:
        if isinstance(inputs.get(key), str):
            return str(inputs[key])
    return last_message(inputs.get("messages"), ("user", "human"))


def _answer(outputs: Any) -> str | None:
    if isinstance(outputs, str):
        return outputs
    if not isinstance(outputs, dict):
        return None
    for key in _ANSWER_KEYS:
        if isinstance(outputs.get(key), str):
            return str(outputs[key])
    choices = outputs.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        message = choices[0].get("message")
        if isinstance(message, dict) and isinstance(message.get("content"), str):
            return str(message["content"])
    generations = outputs.get("generations")
    if isinstance(generations, list) and generations:
        first = generations[0][0] if isinstance(generations[0], list) and generations[0] else generations[0]
        if isinstance(first, dict) and isinstance(first.get("text"), str):
            return str(first["text"])
    return None


def _model(run: dict[str, Any]) -> str | None:
    extra = run.get("extra")
    metadata = extra.get("metadata") if isinstance(extra, dict) else None
    for value in ((metadata or {}).get("ls_model_name"), (run.get("outputs") or {}).get("model")
                  if isinstance(run.get("outputs"), dict) else None):
        if isinstance(value, str) and value:
            return value
    return None


def _times(run: dict[str, Any], at: Where) -> tuple[str | None, float | None]:
    start = _start(run.get("start_time"), at.key("start_time"))
    return start, duration_ms(start, _start(run.get("end_time"), at.key("end_time")))


def _llm(run: dict[str, Any], at: Where, trace: TraceBuilder) -> None:
    """A model call: its times, its model, and its tokens where the run's outputs hold them."""
    outputs = run.get("outputs")
    tokens = None
    if isinstance(outputs, dict):
        llm_output = outputs.get("llm_output")
        usage = outputs.get("usage_metadata") or outputs.get("usage") or (
            llm_output.get("token_usage") if isinstance(llm_output, dict) else None)
        tokens = tokens_of(usage)
    model = outputs.get("model") if isinstance(outputs, dict) else None
    start, took = _times(run, at)
    trace.model_call(started_at=start, duration_ms=took, model=model if isinstance(model, str) else _model(run),
                     tokens=tokens)


def _search(run: dict[str, Any], at: Where, trace: TraceBuilder) -> None:
    inputs = run.get("inputs")
    query = inputs if isinstance(inputs, str) else next(
        (inputs[k] for k in ("query", "input", "q") if isinstance(inputs, dict) and isinstance(inputs.get(k), str)),
        None)
    if query is None:
        raise at.key("inputs").error("a retriever or search run without a query (expected inputs.query)")
    index = trace.query(query)
    trace.timed_search(index, *_times(run, at))
    outputs = run.get("outputs")
    found: Any = outputs.get("documents", outputs.get("output")) if isinstance(outputs, dict) else outputs
    if isinstance(found, str):
        # a tool's text answer (not JSON) has no structured results to read
        found = embedded(found, at.key("outputs"), None)
    if not isinstance(found, list):
        return
    for raw in found:
        if not isinstance(raw, dict):
            continue
        inner = raw.get("metadata")
        metadata: dict[str, Any] = inner if isinstance(inner, dict) else raw
        link = next((metadata[k] for k in _URL_KEYS if isinstance(metadata.get(k), str)
                     and metadata[k].startswith(("http://", "https://"))), None)
        if link is None:
            continue  # not a web source
        snippet = raw.get("page_content", raw.get("content", raw.get("snippet")))
        title = metadata.get("title")
        published = metadata.get("published_date", metadata.get("published"))
        trace.result(index, link, title=title if isinstance(title, str) else None,
                     snippet=snippet if isinstance(snippet, str) else None,
                     published=publication_date(published) if isinstance(published, str) else None)
