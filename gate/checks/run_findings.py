"""What ``sourcegate run`` found while it ran the agent, as the gate reports it. Pure.

These are not checks over a trace's content: they are facts of the run (a request the snapshot
did not hold, an agent that failed), carried in the trace's ``replay`` section by ``sourcegate
run`` and turned into findings here, so ``sourcegate check`` on the produced runs reports them.
Each has a stable id and a description, like the checks of :data:`gate.checks.CHECKS`:

- ``replay_miss``: the agent asked for a search, a page or an extraction the snapshot does not
  hold (or asked it with a parameter that changes the answer and differs from the recording's), or
  made a request no route of the replay server answers; the message names the provider, the
  request, the query or URL, and the command that records it: ``sourcegate run`` on the set, with
  ``--record`` (``--record all`` when a recording exists that cannot answer the request, since
  ``--record`` keeps it) and the agent's command. A hard failure, or a warning with
  ``replay.on_miss: warn``.
- ``agent_error``: the agent exited non-zero, timed out or printed no answer; the message has the
  tail of its stderr (untrusted text: escaped by every renderer). Always a hard failure.
- ``cross_case_request``: a request reached the replay server with one case's URL from a process of
  another case (or of none), and was refused; reported in both cases. Always a hard failure.
- ``live_request``: the agent sent requests past the frozen web, to another host than the replay
  server, through the proxy ``sourcegate run`` points it at; they were refused. The message names
  the host. Always a hard failure: such a run was not the frozen web's.
- ``unserved_search``: the agent's own trace records searches the replay server never answered
  (made some other way, or never made). Always a hard failure.
- ``unserved_page``: the agent's own trace records a page the replay server never served, as a page
  or an extraction (read some other way, or written by the agent); one finding per URL, naming it.
  Always a hard failure: the gate would judge quotes against text no frozen web gave.
- ``agent_output_dropped``: the agent printed more than the gate keeps (:mod:`gate.runner.output`);
  the message says how much was dropped. A warning.
- ``agent_left_processes``: the agent exited and left processes running, which the gate ended. A
  warning (a helper it meant to stop is not a failure of the answer, but it was PR code still running).
- ``outside_connections``: connections with the case's URL came from a process of no running case
  (a service the agent hands its work to) and were served, attributed by the URL alone. A warning.
- ``unconfined``: the agent ran without a network namespace (``--network proxy``, or none could be
  made: the reason is said), so a client that ignores the proxy variables could have reached the live
  web unseen. A warning in every such case: a run is never quietly less confined than it could be.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from gate.config import Config
from gate.model import (
    NOT_IN_SNAPSHOT,
    NOT_RECORDED,
    STDERR_KEPT,
    STDOUT_KEPT,
    Finding,
    LiveRequest,
    Replay,
    ReplayMiss,
    Run,
)
from gate.results import CaseWarning
from gate.text.units import byte_size

__all__ = ["RUN_FINDINGS", "RunFindingKind", "record_command", "run_findings"]

GOLDEN = "GOLDEN"
"""What the record command says for the golden set when the trace does not name it (not made by ``run``)."""


@dataclass(frozen=True)
class RunFindingKind:
    """One kind of finding of a run: a stable id and a one-line description."""

    id: str
    description: str


RUN_FINDINGS: dict[str, RunFindingKind] = {
    k.id: k
    for k in (
        RunFindingKind("replay_miss", "the agent asked for a search or a page the snapshot does not hold"),
        RunFindingKind("agent_error", "the agent exited non-zero, timed out or printed no answer"),
        RunFindingKind("cross_case_request", "a request crossed from one case's processes to another case's URL"),
        RunFindingKind("live_request", "the agent sent requests past the frozen web, to another host"),
        RunFindingKind("unserved_search", "the agent's trace records searches the replay server never answered"),
        RunFindingKind("unserved_page", "the agent's trace records a page the replay server never served"),
        RunFindingKind("agent_output_dropped", "the agent printed more than the gate keeps; the rest was counted"),
        RunFindingKind("agent_left_processes", "the agent left processes running when it exited; the gate ended them"),
        RunFindingKind("outside_connections", "the case's URL was used by a process of no running case"),
        RunFindingKind("unconfined", "the agent ran without a network namespace: only its proxy was watched"),
    )
}


def record_command(golden: str | None, command: tuple[str, ...], *, afresh: bool = False) -> str:
    """The command that records what a run of the golden set at ``golden`` (as ``run`` was given it) with
    the agent's ``command`` missed: ``sourcegate run GOLDEN --record -- COMMAND``; ``afresh``, with
    ``--record all`` (a recording exists that cannot answer, and ``--record`` keeps what is recorded).
    Without the agent's command, the replay server in record mode, the agent to be run against it."""
    where = shlex.quote(golden) if golden is not None else GOLDEN
    if not command:
        return f"sourcegate snapshot record {where}{' --mode record' if afresh else ''}"
    return f"sourcegate run {where} --record{' all' if afresh else ''} -- {shlex.join(command)}"


def _miss_message(miss: ReplayMiss, replay: Replay) -> str:
    by = f" ({', '.join(x for x in (miss.provider, miss.request) if x)})" if miss.provider or miss.request else ""
    if miss.layer == "route":
        who = f"{miss.provider}'s API" if miss.provider else "any API it speaks"
        return (f"the request {miss.key} is not a route of the replay server ({who}): not implemented, so "
                "nothing can record it; use a route it answers (docs/snapshots.md)")
    if miss.layer == "search":
        what = f"the search {miss.key!r}{by}"
    elif miss.layer == "pages":
        what = f"the page {miss.key}{by}"
    elif miss.layer == "exchanges":
        what = f"the request {miss.request or miss.key}"
    else:
        what = f"the extraction of {miss.key}{by}"
    absent = miss.reason is None or miss.reason == NOT_IN_SNAPSHOT
    why = "is not in the snapshot" if absent else f"is not answered: {miss.reason}"
    # a recording that cannot answer (a parameter differs, too few results) is kept by --record
    kept = not absent and not (miss.reason or "").startswith(NOT_RECORDED)
    command = record_command(replay.golden, replay.command, afresh=kept)
    return f"{what} {why}: record it with `{command}`, then run the agent again"


def _live_message(request: LiveRequest) -> str:
    times = f"{request.count} requests" if request.count > 1 else "a request"
    return (f"the agent sent {times} past the frozen web to {request.host} ({request.request}), refused: "
            f"a re-run may reach only the replay server (SOURCEGATE_REPLAY_URL), and the hosts listed in "
            "replay.allow (the agent's model API)")


def run_findings(run: Run, config: Config) -> tuple[tuple[Finding, ...], tuple[CaseWarning, ...]]:
    """The hard failures and the warnings the run itself produced (none for a trace not made by ``run``)."""
    replay = run.replay
    if replay is None:
        return (), ()
    failures: list[Finding] = []
    warnings: list[CaseWarning] = []
    if replay.agent_error is not None:
        failures.append(Finding("agent_error", f"the agent gave no answer: {replay.agent_error}"))
    failures.extend(Finding("cross_case_request", message) for message in replay.cross_case)
    failures.extend(Finding("live_request", _live_message(r)) for r in replay.live_requests)
    if replay.unserved_searches:
        queries = ", ".join(repr(q) for q in replay.unserved_searches)
        failures.append(Finding("unserved_search", (
            f"the agent's trace records search(es) the replay server never answered: {queries}; made past the "
            "frozen web, or never made")))
    failures.extend(Finding("unserved_page", (
        f"the agent's trace records the page {url}, which the replay server never served to this case (as a "
        "page or an extraction): read past the frozen web, or written by the agent; its text is no evidence"),
        url=url) for url in replay.unserved_pages)
    dropped = [f"{byte_size(n)} of {stream}" for stream, n in (("stdout", replay.stdout_dropped),
                                                         ("stderr", replay.stderr_dropped)) if n]
    if dropped:
        warnings.append(CaseWarning("agent_output_dropped", (
            f"the agent printed more than the gate keeps (the last {byte_size(STDOUT_KEPT)} of stdout, where its "
            f"answer is read, and {byte_size(STDERR_KEPT)} of stderr): {' and '.join(dropped)} counted and dropped")))
    if replay.outside_connections:
        warnings.append(CaseWarning("outside_connections", (
            f"{replay.outside_connections} connection(s) with this case's replay URL came from a process outside "
            "every running case (a service the agent hands its work to?): served, and attributed to this case by "
            "the URL alone")))
    if replay.network is not None and not replay.network.confined:
        warnings.append(CaseWarning("unconfined", (
            f"not confined: the agent ran without a network namespace ({replay.network.reason or 'no reason given'}), "
            "so a client that ignores the proxy variables could have reached the live web unseen (docs/trust.md)")))
    if replay.left_running:
        warnings.append(CaseWarning("agent_left_processes", (
            f"the agent left {replay.left_running} process(es) running when it exited: the gate ended them")))
    for miss in replay.misses:
        message = _miss_message(miss, replay)
        if config.replay.on_miss == "warn":
            warnings.append(CaseWarning("replay_miss", message + " (warning: replay.on_miss is warn)"))
        else:
            failures.append(Finding("replay_miss", message, url=None if miss.layer == "search" else miss.key))
    return tuple(failures), tuple(warnings)
