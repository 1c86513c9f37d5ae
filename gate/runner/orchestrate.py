"""``sourcegate run``, the I/O: the replay server, the agent once per case, the traces written.

The replay server serves the golden set's snapshot on a free loopback port, in this process; each
case gets its own scope on it (``$SOURCEGATE_REPLAY_URL`` ends in ``/case/<token>``), so requests
are attributed to the right case whatever runs in parallel (on Linux, only requests from the case's
own processes: :mod:`gate.runner.owners`). The server is also the agent's HTTP proxy
(:mod:`gate.replay.proxy`): a request for any other host than it and ``replay.allow`` is refused
and reported. With ``record`` (``--record``), what the snapshot lacks is recorded from the live web
as it is asked (:mod:`gate.replay.recording`), then listed and the set's version bumped. Each case
is dated by the recording's clock (:mod:`gate.runner.clock`), passed as ``$SOURCEGATE_NOW``. At
most ``jobs`` agents run at once; one that fails or times out is that case's ``agent_error``, its
kept stderr written beside the traces (``<case>.stderr.log``), and the others still run.

On Linux each agent runs in a network namespace of its own whose only way out is the replay server
(``network``: :mod:`gate.runner.network` decides once per run whether it can; :mod:`gate.runner.doors`
serves each namespace), so a client that ignores the proxy variables reaches nothing; a run that is not
confined says so on stderr and in every trace (``replay.network``).

Nothing is half-written: the traces go to a temporary folder beside the target, which replaces the
golden set's ``runs/`` only when every case has finished (``--out DIR``: each file is written
atomically into DIR). Ctrl-C ends every agent and what it started, stops the server and leaves the
old runs as they were. Each case finished is reported to the :class:`gate.term.progress.Progress` given.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import shutil
import socket
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from gate.config import Config, load_config
from gate.errors import GateError, InputError
from gate.exitcodes import ExitCode
from gate.files.digests import record_read
from gate.files.jsonio import dump_json, validate
from gate.files.outputs import TEMP_PREFIX, resolve_within, write_file
from gate.load.golden import RUNS_DIR, load_golden, load_trace
from gate.model import Case, Clock, Confinement, GoldenSet, Run
from gate.record.clock import NOW_ENV, format_now
from gate.record.recorder import CASE_ENV, QUESTION_ENV, TRACE_FILE_ENV
from gate.record.trace import trace_dict
from gate.replay.proxy import Reach, proxy_env
from gate.replay.serve import ReplayServer
from gate.replay.tls import CertificateAuthority, ca_env, trusted_roots, write_bundle
from gate.runner.assemble import Finished, assemble
from gate.runner.clock import CaseTimes, case_times, recorded_traces
from gate.runner.frozen import RunServer
from gate.runner.guarding import case_guard
from gate.runner.network import NetworkPlan, plan_network
from gate.runner.owners import CrossCase
from gate.runner.portable import portable_command, unchanged
from gate.runner.process import Processes, Stopped
from gate.runner.scope import CaseScope
from gate.snapshot.store import snapshot_dir
from gate.term.progress import NullProgress, Progress
from gate.text.redact import redact, scrub, secret_values

if TYPE_CHECKING:
    from gate.replay.recording import Session
    from gate.runner.doors import Doors

_RECORD_ALL = "record"
"""``RunOptions.record`` for ``--record all`` (gate.replay.recording's mode ``record``, not imported: slow)."""

__all__ = ["REPLAY_URL_ENV", "EveryAgentFailed", "RunOptions", "RunSummary", "run_agent"]

REPLAY_URL_ENV = "SOURCEGATE_REPLAY_URL"


@dataclass(frozen=True)
class RunOptions:
    """What ``sourcegate run`` was asked: the golden set, the agent's command, and how to run it."""

    golden: str
    command: tuple[str, ...]
    jobs: int = 4
    timeout: float = 300.0
    out: str | None = None
    record: str | None = None
    """None: replay only; ``new-episodes`` or ``record`` (all): what the snapshot lacks, or everything, is recorded"""
    config: str | None = None
    """sourcegate.yaml (None: the one beside the set)"""
    some: bool = False
    """only some of the set's cases run (``--case``, ``--failed``): their traces are written beside the
    others, which are kept, instead of replacing the folder"""
    network: str = "auto"
    """``auto``, ``confined`` or ``proxy`` (:data:`gate.runner.network.NETWORK_MODES`)"""


@dataclass(frozen=True)
class RunSummary:
    """What was written: the folder of traces and the run of every case, in golden.yaml's order, and
    what a recording session recorded (None: nothing was recorded)."""

    folder: str
    runs: tuple[Run, ...]
    session: Session | None = None


@dataclass(frozen=True)
class _Done:
    """A case's run, and its kept stderr when the agent failed (written beside the trace)."""

    run: Run
    stderr: str | None


def _now() -> datetime:
    return datetime.now(UTC)


def case_env(environ: Mapping[str, str], case: Case, url: str, trace_file: str, now: datetime | None = None,
             proxy: tuple[str, str] | None = None, ca: tuple[str, str] | None = None) -> dict[str, str]:
    """The agent's environment: the parent's (its secrets included), plus the case's variables: its
    time (``now``), with ``proxy`` (the server's URL and the case's token) every proxy variable at the
    replay server, and with ``ca`` (the case's authority and bundle files) every CA variable at them."""
    env = {**environ, CASE_ENV: case.id, QUESTION_ENV: case.question, REPLAY_URL_ENV: url,
           TRACE_FILE_ENV: trace_file}
    if now is not None:
        env[NOW_ENV] = format_now(now)
    if ca is not None:
        env = ca_env(env, *ca)
    return proxy_env(env, *proxy) if proxy is not None else env


def run_agent(opts: RunOptions, *, environ: Mapping[str, str] | None = None, clock: Clock = _now,
              log: Callable[[str], None] = lambda _line: None, progress: Progress | None = None,
              golden: GoldenSet | None = None) -> RunSummary:
    """Run the agent once per case of ``opts.golden`` against its snapshot and write the traces.

    ``golden`` is that set when the caller has loaded it already (its ``golden.yaml`` is not read again).

    ``progress`` hears of each case finished (default: nowhere).
    """
    env = dict(os.environ if environ is None else environ)
    golden = golden if golden is not None else load_golden(opts.golden)
    _require(opts, golden, env)
    plan = plan_network(opts.network)
    config = load_config(opts.config, beside=golden.root)
    target = opts.out if opts.out is not None else os.path.join(golden.root, RUNS_DIR)
    if opts.out is None:
        resolve_within(target, golden.root)
    recorded = recorded_traces(golden)  # read once: the cases' times, and what a re-run left unchanged
    times = case_times(golden, clock(), fresh=opts.record == _RECORD_ALL, traces=recorded)
    undated = times.undated([c.id for c in golden.cases]) if opts.record is None else []
    if undated:
        log(f"sourcegate run: {len(undated)} case(s) with no recorded run and no snapshot_at in golden.yaml: "
            "dated by the wall clock, so their sources' ages move from run to run (set snapshot_at)")
    log(plan.line())
    work = tempfile.mkdtemp(prefix="sourcegate-run-")
    frozen = RunServer(golden.root, opts.record, config, env, log)
    try:
        with frozen as server:
            server.reach = Reach.of(config.replay.allow, env)
            serving = threading.Thread(target=server.serve_forever, args=(0.05,), name="sourcegate-replay",
                                       daemon=True)
            serving.start()
            progress = progress or NullProgress()
            progress.start(len(golden.cases), "running the agent")
            try:
                with _doors(server, plan) as doors:
                    done = _run_cases(golden, opts, config, env, server, work, times, log, progress, target, plan,
                                      doors)
            finally:
                progress.close()
                server.shutdown()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    runs = tuple(d.run for d in done)
    _require_an_answer(done, target, plan)
    _say_every_failure(done, log)
    _write(done, target, replace_all=opts.out is None and not opts.some, before=recorded if opts.out is None else {})
    return RunSummary(target, runs, frozen.session)


def _doors(server: ReplayServer, plan: NetworkPlan) -> contextlib.AbstractContextManager[Doors | None]:
    """The confined cases' doors out of their namespaces (None: the run is not confined)."""
    if not plan.confined:
        return contextlib.nullcontext()
    # on first use: the doors load the DNS parser (dnspython), which an unconfined run never needs
    from gate.runner.doors import Doors  # noqa: PLC0415

    return Doors(server, int(server.server_address[1]), plan, own_names=(socket.gethostname(),))


class EveryAgentFailed(GateError):
    """Every case ended in ``agent_error`` and not one request was refused or missed: nothing is written
    (exit 1, the gate's verdict on such runs)."""

    exit_code = ExitCode.FAIL


def _explained(run: Run) -> bool:
    """Whether the run's failure may be the frozen web's doing: a request of it was refused or missed."""
    replay = run.replay
    return replay is not None and bool(replay.misses or replay.live_requests or replay.cross_case)


def _require_an_answer(done: Sequence[_Done], target: str, plan: NetworkPlan) -> None:
    """Refuse to write runs of which not one answered and none was refused or missed anything: the agent
    cannot have run (a missing key, a wrong command), and committed runs are worth more than a folder of
    agent errors. The kept stderr of each case is written where its message says it is, beside the runs
    kept (``<target>/<case>.stderr.log``): nothing is left in the system's temporary folder. When a
    case's requests were refused or missed, its trace says why the agent failed (a ``live_request``, a
    ``replay_miss``), and the traces are written: the report says it."""
    failed = [d.run for d in done if d.run.replay is not None and d.run.replay.agent_error is not None]
    if done and len(failed) == len(done) and not any(_explained(r) for r in failed):
        first = failed[0]
        assert first.replay is not None
        os.makedirs(target, exist_ok=True)
        for d in done:
            write_file(os.path.join(target, _log_name(d.run.case)), d.stderr or "")
        # the agent's stderr is untrusted: printable characters only, its lines kept
        error = "\n".join("".join(c if c.isprintable() else "?" for c in line)
                          for line in (first.replay.agent_error or "").splitlines())
        walled = (" Each agent ran in a network namespace whose only way out is the replay server: a client "
                  "that ignores the proxy variables fails there (docs/trust.md)." if plan.confined else "")
        raise EveryAgentFailed(f"the agent failed in every case ({len(done)}), no trace written, {target} "
                               f"kept as it was (each case's stderr beside them: "
                               f"{os.path.join(target, _log_name('<case>'))}); case {first.case!r}: {error}{walled}")


def _say_every_failure(done: Sequence[_Done], log: Callable[[str], None]) -> None:
    """Every case failed, some with requests refused or missed: the traces are written, and said to be why."""
    failed = [d.run for d in done if d.run.replay is not None and d.run.replay.agent_error is not None]
    if done and len(failed) == len(done):
        said = sum(1 for r in failed if _explained(r))
        log(f"sourcegate run: the agent failed in every case ({len(done)}); {said} of them had requests refused "
            "or missed (live_request, replay_miss, cross_case_request): the traces are written, and the report "
            "says why")


def _require(opts: RunOptions, golden: GoldenSet, env: Mapping[str, str]) -> None:
    if not opts.command:
        raise InputError("usage: no agent command: sourcegate run GOLDEN -- CMD ARGS...")
    if shutil.which(opts.command[0], path=env.get("PATH")) is None:
        raise InputError(f"the agent's command {opts.command[0]!r} is not found (nor executable)")
    if opts.jobs < 1 or opts.timeout <= 0:
        raise InputError("usage: --jobs must be 1 or more and --timeout more than 0")
    if not golden.cases:
        raise InputError("golden.yaml lists no case to run", file=golden.root)
    if opts.record is None and not os.path.isdir(snapshot_dir(golden.root)):
        raise InputError("no snapshot/ folder to replay: record one first, with `sourcegate run "
                         f"{golden.root} --record -- CMD ARGS...` (docs/recording.md)", file=golden.root)


def _run_cases(golden: GoldenSet, opts: RunOptions, config: Config, env: Mapping[str, str], server: ReplayServer,
               work: str, times: CaseTimes, log: Callable[[str], None], progress: Progress,
               target: str, plan: NetworkPlan, doors: Doors | None) -> tuple[_Done, ...]:
    with Processes() as procs:
        return _in_parallel(golden, opts, config, env, server, procs, work, times, log, progress, target, plan,
                            doors)


def _in_parallel(golden: GoldenSet, opts: RunOptions, config: Config, env: Mapping[str, str],
                 server: ReplayServer, procs: Processes, work: str, times: CaseTimes, log: Callable[[str], None],
                 progress: Progress, target: str, plan: NetworkPlan, doors: Doors | None) -> tuple[_Done, ...]:
    # Linux: a request under a case's token is served only from that case's processes
    host, port = server.server_address[:2]
    crossing = CrossCase(procs, (str(host), int(port))) if procs.contained else None
    network = plan.confinement()

    # what the traces say of the command: no path of this machine (the one that runs is opts.command)
    roots = trusted_roots(env)  # the agent's own roots, read once for every case's bundle
    shown = portable_command(opts.command, os.getcwd(), lambda name: shutil.which(name, path=env.get("PATH")))
    hidden = secret_values(env)  # the agent is given its keys; its trace, stderr and errors never show them

    def one(index: int, case: Case) -> _Done:
        token = secrets.token_urlsafe(16)
        scope = CaseScope(None if crossing is None else functools.partial(crossing.admit, case.id), server.clock,
                          case_guard(case, config))
        if crossing is not None:
            crossing.register(case.id, scope)
        server.scopes[token] = scope
        authority = server.authorities[token] = CertificateAuthority(f"case {case.id}")
        trace_file = os.path.join(work, f"{index}.json")
        started = times.of(case.id)
        try:
            ca = write_bundle(_case_folder(work, index), authority, env, roots)
            with doors.case(case.id, scope) if doors is not None else contextlib.nullcontext() as door:
                finished = procs.run(opts.command, case_env(env, case, f"{server.url}/case/{token}", trace_file,
                                                            started, (server.url, token), ca), opts.timeout,
                                     label=case.id, door=door)
        finally:
            del server.scopes[token], server.authorities[token]
            if crossing is not None:
                crossing.unregister(case.id)
        run = scrub(_naming_the_set(_case_run(case, shown, finished, scope, trace_file, started,
                                              os.path.join(target, _log_name(case.id)), network), opts.golden),
                    hidden)
        log(_line(run))
        progress.advance(1)
        failed = run.replay is not None and run.replay.agent_error is not None
        return _Done(run, redact(finished.stderr, hidden) if failed else None)

    pool = ThreadPoolExecutor(max_workers=opts.jobs, thread_name_prefix="sourcegate-agent")
    futures = [pool.submit(one, i, c) for i, c in enumerate(golden.cases)]
    try:
        done, _ = wait(futures, return_when=FIRST_EXCEPTION)
        for f in done:
            f.result()  # our own error (not an agent's) stops the run
    except BaseException:  # Ctrl-C or our bug: stop every agent, write nothing
        procs.stop()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    try:
        return tuple(f.result() for f in futures)
    except Stopped as e:  # pragma: no cover (only after stop(), which re-raised above)
        raise KeyboardInterrupt from e


def _case_folder(work: str, index: int) -> str:
    """A folder of the case's own in the run's work folder (its certificate authority's files)."""
    folder = os.path.join(work, f"{index}.case")
    os.makedirs(folder, exist_ok=True)
    return folder


def _case_run(case: Case, command: Sequence[str], finished: Finished, scope: CaseScope, trace_file: str,
              started: datetime, stderr_log: str, network: Confinement) -> Run:
    own = None
    if finished.failure is None and os.path.exists(trace_file):
        try:
            own = load_trace(trace_file)
        except InputError as e:
            finished = replace(finished, failure=f"wrote an invalid trace ({e})")
    return assemble(case, command, finished, scope.calls(), own, started, scope.refusals(),
                    scope.outside_connections(), scope.live_requests(), stderr_log, network)


def _log_name(case: str) -> str:
    return f"{case}.stderr.log"


def _naming_the_set(run: Run, golden: str) -> Run:
    """A run that missed something names the golden set as given, for the command that records it."""
    if run.replay is None or not run.replay.misses:
        return run
    return replace(run, replay=replace(run.replay, golden=golden))


def _line(run: Run) -> str:
    replay = run.replay
    assert replay is not None
    if replay.agent_error is not None:
        status = "agent_error"
    else:
        status = "answered" + (" (trace assembled from what was served)" if replay.served else "")
    missed = f", {len(replay.misses)} replay miss(es)" if replay.misses else ""
    return f"sourcegate run: case {run.case}: {status}{missed}"


def _write(done: Sequence[_Done], target: str, *, replace_all: bool, before: Mapping[str, Any]) -> None:
    """The traces into ``target``; a case's trace that says what its run in ``before`` said but for the
    timing is written as that run was (a re-run that changed nothing leaves ``git status`` clean)."""
    texts = []
    for d in done:
        data = trace_dict(d.run)
        validate(data, "trace", f"the trace of case {d.run.case!r}")
        old = before.get(d.run.case)
        texts.append((f"{d.run.case}.json", dump_json(old if old is not None and unchanged(old, data) else data)))
        if d.stderr is not None:
            texts.append((_log_name(d.run.case), d.stderr))
    if not replace_all:
        os.makedirs(target, exist_ok=True)
        for name, text in texts:
            write_file(os.path.join(target, name), text)
        _written(target, texts)
        return
    parent = os.path.dirname(os.path.abspath(target))
    fresh = tempfile.mkdtemp(prefix=TEMP_PREFIX + "runs-", dir=parent)
    old = None
    try:
        for name, text in texts:
            write_file(os.path.join(fresh, name), text)
        os.chmod(fresh, 0o777 & ~_UMASK)
        if os.path.lexists(target):
            old = tempfile.mkdtemp(prefix=TEMP_PREFIX + "old-runs-", dir=parent)
            os.replace(target, os.path.join(old, "runs"))
        os.replace(fresh, target)
        _written(target, texts)
    except BaseException:
        if old is not None and not os.path.lexists(target):
            os.replace(os.path.join(old, "runs"), target)  # the old runs back where they were
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


def _written(folder: str, texts: Sequence[tuple[str, str]]) -> None:
    """Tell :mod:`gate.files.digests` what each file written holds: a comparison with the base revision
    then needs not read back what was just written (the old runs were read for their times)."""
    for name, text in texts:
        data = text.encode("utf-8")
        st = os.stat(os.path.join(folder, name))
        if st.st_size == len(data):
            record_read(st, data)


def _read_umask() -> int:
    # The umask can only be read by setting it: once, at import, before any thread runs.
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _read_umask()
