"""How the Recorder wraps an agent's function: its argument found, the call timed, sync or async, and
what a model call's response says of its model, tokens and cost. Pure but for the timer it is given.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime
from typing import Any, ParamSpec, TypeVar, cast

from gate.errors import RecordError
from gate.model import ModelCall
from gate.usage.tokens import Tokens, model_of, price_tokens, tokens_of

__all__ = ["Took", "argument_of", "duration_of", "model_call_of", "wrapped"]

_P = ParamSpec("_P")
_R = TypeVar("_R")

Took = tuple[float, float]
"""A call's start and end on the recorder's timer."""


def duration_of(took: Took) -> float:
    """The call's duration in milliseconds (to the microsecond)."""
    return round(max(0.0, took[1] - took[0]) * 1000, 3)


def wrapped(f: Callable[_P, _R], before: Callable[[tuple[Any, ...], dict[str, Any]], Any],
            after: Callable[[Any, Any, Took], Any], timer: Callable[[], float]) -> Callable[_P, _R]:
    """``f`` with ``before`` run on its arguments and ``after`` on what it returned and when it ran
    (its start and end on ``timer``), sync or async."""
    if inspect.iscoroutinefunction(f):
        @functools.wraps(f)
        async def run_async(*args: Any, **kwargs: Any) -> Any:
            token = before(args, kwargs)
            began = timer()
            returned = await f(*args, **kwargs)
            return after(token, returned, (began, timer()))

        return cast(Callable[_P, _R], run_async)

    @functools.wraps(f)
    def run_sync(*args: Any, **kwargs: Any) -> Any:
        token = before(args, kwargs)
        began = timer()
        returned = f(*args, **kwargs)
        if inspect.isawaitable(returned):  # an async callable that does not look like one (a partial, ...)
            return _then(returned, token, after, began, timer)
        return after(token, returned, (began, timer()))

    return cast(Callable[_P, _R], run_sync)


async def _then(pending: Awaitable[Any], token: Any, after: Callable[[Any, Any, Took], Any], began: float,
                timer: Callable[[], float]) -> Any:
    returned = await pending
    return after(token, returned, (began, timer()))


def model_call_of(response: Any, started_at: datetime, duration_ms: float,
                  prices: Mapping[str, Mapping[str, float]]) -> ModelCall:
    """A model call as recorded: its time, and the model, tokens and cost its response holds."""
    model = model_of(response)
    tokens: Tokens | None = tokens_of(response.get("usage")) if isinstance(response, Mapping) else None
    if tokens is None:
        return ModelCall(started_at=started_at, duration_ms=duration_ms, model=model)
    return ModelCall(started_at=started_at, duration_ms=duration_ms, model=model, input_tokens=tokens.input_tokens,
                     output_tokens=tokens.output_tokens, cache_read_tokens=tokens.cache_read_tokens,
                     cache_write_tokens=tokens.cache_write_tokens, cost_usd=price_tokens(model, tokens, prices))


def argument_of(f: Callable[..., Any], arg: str | None, what: str) -> Callable[[tuple[Any, ...], dict[str, Any]], str]:
    """How to find the query (or URL) among a call's arguments: ``arg``, else the first parameter."""
    sig = inspect.signature(f)
    params = list(sig.parameters)
    name = getattr(f, "__name__", repr(f))
    if arg is not None and arg not in params:
        raise RecordError(f"{name!r} has no parameter {arg!r} (it has {params})")
    if not params:
        raise RecordError(f"{name!r} takes no arguments: nothing to record")
    chosen = arg or params[0]

    def find(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
        value = sig.bind_partial(*args, **kwargs).arguments.get(chosen)
        if not isinstance(value, str):
            raise RecordError(f"expected the {what} as the string argument {chosen!r} of {name!r}, "
                              f"got {type(value).__name__}")
        return value

    return find
