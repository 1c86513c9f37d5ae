"""The error tree of sourcegate, and the exit codes it maps to.

    GateError                 exit 4 unless a subclass says otherwise
    ├── InputError            exit 2: a file, path or argument is wrong (names file and JSON path)
    ├── SnapshotMiss          exit 2: replay asked for something the cache does not hold
    ├── LiveWebError          exit 2: record mode got no answer it may record (nothing is written)
    │   ├── FetchRefused      the address, scheme or URL is not fetched (private, metadata, a secret in it)
    │   ├── BodyTooLarge      the answer is over record.max_bytes
    │   ├── FetchTimeout      no complete answer within record.deadline_seconds (redirects included)
    │   └── SearchFailed      the search provider is unknown, has no key, or answered an error
    ├── RecordError           exit 2: the recorder got what it cannot record (names provider and JSON path)
    ├── RecordingIncomplete   exit 3: ``run --record`` left searches or pages unrecorded (what it recorded is kept)
    ├── JudgeUnavailable      never an exit by itself: claims stay unscored, the verdict may be inconclusive
    │   └── JudgeAuthError    the API refused the key (401, 403): no further call is made, the run is
    │                         inconclusive (exit 3), with one message naming the provider and key variable
    └── GitHubError           never changes the verdict: reported, the job summary is kept

The numbers are the exit codes of :class:`gate.exitcodes.ExitCode`; :func:`guarded` is the one place
where an exception becomes one, and the message (and the trace of our bug) it writes holds no value of
the environment's secret-named variables (:func:`gate.text.redact.secret_values`).
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable
from typing import TextIO

from gate.exitcodes import ExitCode
from gate.text.redact import redact, secret_values


class GateError(Exception):
    """Base of every error sourcegate raises on purpose."""

    exit_code = ExitCode.INTERNAL


class InputError(GateError):
    """Bad input: which file, which JSON path, what was expected."""

    exit_code = ExitCode.INPUT

    def __init__(self, message: str, *, file: str | None = None, path: str | None = None,
                 case: str | None = None) -> None:
        self.file = file
        self.path = path
        self.case = case
        self.detail = message
        where = file or ""
        if case is not None:  # the case id beside the file: which case of the set is bad
            where = f"{where} (case {case!r})" if where else f"case {case!r}"
        if path:
            where = f"{where} at {path}" if where else path
        super().__init__(f"{where}: {message}" if where else message)


class SnapshotMiss(InputError):
    """Replay needed a recording that the snapshot does not hold: said out loud, never a live call."""


class LiveWebError(GateError):
    """Record mode could not get an answer to record from the live web; the message names the URL,
    with every secret redacted."""

    exit_code = ExitCode.INPUT


class FetchRefused(LiveWebError):
    """A fetch refused on purpose: a private, loopback or metadata address, a scheme, a secret in a URL."""


class BodyTooLarge(LiveWebError):
    """An answer longer than the configured cap; reading stopped at the cap."""


class FetchTimeout(LiveWebError):
    """No complete answer within the deadline of the whole request, redirects included."""


class SearchFailed(LiveWebError):
    """A search that cannot be recorded: no such provider, no key, or the provider answered an error."""


class RecordError(InputError):
    """The recorder was handed something it cannot record, e.g. a search response of an unknown shape."""


class RecordingIncomplete(GateError):
    """A recording run (``sourcegate run --record``) whose agents asked for searches or pages it could not
    record: the snapshot, the version and the traces are written, but the set is not the web the agent
    met. Inconclusive (exit 3), as an outage is: the message says how many, and the command that
    records them."""

    exit_code = ExitCode.INCONCLUSIVE


class JudgeUnavailable(GateError):
    """The judge could not answer (API down, refusal, unparseable output)."""


class JudgeAuthError(JudgeUnavailable):
    """The judge API refused the credentials (401 or 403): every further call would be refused too.

    The judge stops calling at once (its breaker opens on the first one); the claims stay unscored
    and the run is inconclusive, as for any outage, with one message that names what to fix.
    """


class GitHubError(GateError):
    """The GitHub API refused or failed; never changes the gate's verdict."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        self.status = status
        super().__init__(message)


class Interrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM, with what was kept (the message): the command line exits 130 and says it."""


def error_line(error: Exception, label: str = "") -> str:
    """The line an error is said with: a GateError's message, or that anything else is our bug."""
    if isinstance(error, GateError):
        return f"sourcegate: error: {label}{error}"
    return f"sourcegate: {label}internal error (please report it):"


def guarded(run: Callable[[], int], label: str = "", *, err: TextIO | None = None,
            say: Callable[[Exception], None] | None = None) -> int:
    """``run()``, with its exceptions mapped to exit codes: a GateError is its message and its code,
    anything else is our bug (the trace, exit 4). ``label`` names the golden set when a run has
    several, each guarded on its own so that one set's error does not stop the next.

    ``err`` is where the message and the trace go (None: stderr). ``say``, when given, is told the
    error instead of the message line being written (the action says it as a workflow command);
    the trace of our bug is written to ``err`` either way."""
    stream = sys.stderr if err is None else err
    try:
        return run()
    except Exception as e:  # the last resort: a GateError is the user's, anything else our bug
        hidden = secret_values(os.environ)  # a message can quote what an agent or an SDK printed
        if say is None:
            print(redact(error_line(e, label), hidden), file=stream)
        else:
            say(e)
        if isinstance(e, GateError):
            return e.exit_code
        stream.write(redact(traceback.format_exc(), hidden))
        return ExitCode.INTERNAL
