"""The keeper: one small process per case between the gate and the agent, so that nothing the agent
starts outlives its case (Linux).

    python -I -S keeper.py GATE_PID GO_FD STATUS_FD [--net FD METHOD PORT RESOLVERS] -- CMD ARGS...

The keeper makes itself a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``): a process the agent
starts that loses its parent (a double fork, ``setsid`` and exit) is re-parented to the keeper, not
to init, so the keeper's descendants are exactly the case's processes. It waits for one byte on
``GO_FD`` (the gate has registered it), runs the agent in a session of its own, and when the agent
exits, or the gate asks (SIGTERM, SIGINT, SIGHUP, or the gate's death: ``PR_SET_PDEATHSIG``), it
kills every process left below it (read from ``/proc``), reaps them, writes one JSON line on
``STATUS_FD`` and exits 0::

    {"exit": 0, "signal": null, "stopped": false, "ended": 2, "left": 0}

``exit``/``signal``: how the agent ended (both null when it never started); ``stopped``: the gate
asked; ``ended``: the processes still running that the keeper killed (when stopped, the agent's own
group included); ``left``: those it could not end within :data:`PATIENCE` seconds.

With ``--net``, the keeper first moves into a network namespace of its own (:mod:`gate.runner.netns`,
loaded from its file beside this one), which the agent and all it starts inherit, and hands the
sockets it listens on there to the gate on the Unix socket ``FD`` (or says why it could not: the
gate then never sends the byte, and the agent never starts).

The keeper runs from its file with the standard library alone: ``-I -S`` (no site-packages, no
``PYTHON*`` variables, not the current folder on ``sys.path``), so nothing in the working tree, which
the pull request controls, is imported into it. The gate imports this module for its process table.
"""

from __future__ import annotations

import ctypes
import os
import sys
import time

# Only what starting the keeper needs (every case waits for it): not typing, json or contextlib, and
# signal's C module rather than signal.py, whose enums are a third of the start-up (the names are
# the same). mypy reads TYPE_CHECKING below as typing's.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import signal
    from collections.abc import Callable, Iterable, Mapping, Sequence
else:
    try:
        import _signal as signal
    except ImportError:  # pragma: no cover - an interpreter without it
        import signal

__all__ = ["PATIENCE", "Proc", "descendants", "end_tree", "process_table", "read_stat", "set_subreaper"]

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
PR_GET_CHILD_SUBREAPER = 37
PATIENCE = 10.0
"""Seconds :func:`end_tree` keeps killing before it reports what is left (a process in the kernel's
uninterruptible sleep dies only when that ends)."""
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
_RESTORED = (signal.SIGPIPE, signal.SIGXFSZ)
"""Signals Python ignores that a program expects at their default, as ``subprocess`` restores them."""


class Proc(tuple[int, str, int]):
    """One line of the process table: the parent's pid, the state (``Z``: a zombie, not running) and
    the start time (clock ticks after boot: with the pid, it names one process, whatever reuses the pid)."""

    __slots__ = ()

    @property
    def ppid(self) -> int:
        """The parent's pid."""
        return self[0]

    @property
    def state(self) -> str:
        """``R``, ``S``, ``D``, ``T``, ``Z`` (a zombie: ended, not reaped yet), ..."""
        return self[1]

    @property
    def start(self) -> int:
        """When the process started, in clock ticks after boot."""
        return self[2]


def process_table(proc: str = "/proc") -> dict[int, Proc]:
    """Every process the system shows: pid -> its parent and state (a process gone meanwhile is left out)."""
    table: dict[int, Proc] = {}
    for name in os.listdir(proc):
        if name.isdigit():
            line = read_stat(int(name), proc)
            if line is not None:
                table[int(name)] = line
    return table


def read_stat(pid: int, proc: str = "/proc") -> Proc | None:
    """The table's line of one process (None: it is gone)."""
    try:
        with open(f"{proc}/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    # "pid (comm) state ppid ... starttime ...": comm may hold spaces and parentheses: read from the last ")"
    fields = data[data.rindex(b")") + 2:].split()
    return Proc((int(fields[1]), fields[0].decode("ascii", "replace"), int(fields[19])))


def stopped(pid: int, proc: str = "/proc") -> bool:
    """Whether the process is stopped (``SIGSTOP``, a tracer): it acts on no signal but ``SIGKILL`` until
    it is continued."""
    line = read_stat(pid, proc)
    return line is not None and line.state in ("T", "t")


def descendants(table: Mapping[int, Proc], root: int, spare: Iterable[int] = ()) -> set[int]:
    """The pids below ``root`` in ``table``, without the processes in ``spare`` and what is below them."""
    children: dict[int, list[int]] = {}
    for pid, proc in table.items():
        children.setdefault(proc.ppid, []).append(pid)
    kept = set(spare)
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in kept and child not in found:
                found.add(child)
                todo.append(child)
    return found


def end_tree(root: int, spare: Iterable[int] = (), *, reap_any: bool, patience: float = PATIENCE) -> tuple[int, int]:
    """Kill every process below ``root`` (but ``spare``'s subtrees) until none is left; (killed, left).

    ``root`` is this process, a subreaper: what a killed process leaves is re-parented to it, found on
    the next round and killed too, and its direct children are reaped (``reap_any``: any child, as the
    keeper does; otherwise only the children killed here, so a caller's own children stay its own).
    Zombies are reaped, not counted. ``left``: processes still there after ``patience`` seconds.
    """
    spared = frozenset(spare)
    killed: set[int] = set()
    give_up = time.monotonic() + patience
    pause = 0.001
    while True:
        if reap_any and not _children():  # no child, so nothing below: no need to read the table
            return len(killed), 0
        table = process_table()
        below = descendants(table, root, spared)
        if not below:
            return len(killed), 0
        for pid in below:
            if table[pid].state != "Z":
                _signal(os.kill, pid)
                killed.add(pid)
        _reap(pid for pid in below if table[pid].ppid == root) if not reap_any else _reap_any()
        if time.monotonic() > give_up:
            return len(killed), len(descendants(process_table(), root, spared))
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def _signal(kill: Callable[[int, int], None], target: int) -> None:
    """SIGKILL to ``target`` (``os.kill`` or ``os.killpg``); one already gone, or not ours, is passed over."""
    try:  # noqa: SIM105 (contextlib is not imported: see the imports)
        kill(target, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _reap(children: Iterable[int]) -> None:
    for pid in children:
        try:  # noqa: SIM105 (as above)
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass


def _children() -> bool:
    """Whether this process has a child (running, or ended and not reaped yet); reaps one that ended."""
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return False
    return True


def _reap_any() -> None:
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


def _prctl(option: int, value: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"prctl({option}): {os.strerror(error)}")


def set_subreaper(on: bool) -> bool:
    """Make this process a child subreaper (or no longer one); whether it was one before (Linux only)."""
    libc = ctypes.CDLL(None, use_errno=True)
    was = ctypes.c_int(0)
    libc.prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(was), 0, 0, 0)
    _prctl(PR_SET_CHILD_SUBREAPER, int(on))
    return bool(was.value)


class _Case:
    """The agent's pid once it runs, and whether the gate asked the case to end."""

    agent = 0
    stopped = False

    @classmethod
    def stop(cls, _signum: int = 0, _frame: object = None) -> None:
        """A request to end (a signal handler): the agent is killed, and its wait then returns."""
        cls.stopped = True
        if cls.agent:
            _kill_agent(cls.agent)


def _kill_agent(pid: int) -> None:
    _signal(os.kill, pid)  # the process itself: it may not have its own group yet
    _signal(os.killpg, pid)


def _spawn(argv: Sequence[str]) -> int:
    """The agent, in a session of its own, with the signals Python changed back at their defaults."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child becomes the agent
        try:
            os.setsid()
            for sig in (*_STOP_SIGNALS, *_RESTORED):
                signal.signal(sig, signal.SIG_DFL)
            os.execvpe(argv[0], list(argv), os.environ)
        except OSError as e:
            os.write(2, f"sourcegate: cannot run {argv[0]!r}: {e.strerror}\n".encode("utf-8", "replace"))
        os._exit(127)
    return pid


def _wait(agent: int) -> int:
    """Reap children (orphans re-parented here included) until the agent ends; its wait status."""
    while True:
        pid, status = os.waitpid(-1, 0)
        if pid == agent:
            return status


def _json(report: Mapping[str, int | bool | None]) -> str:
    """One flat object of numbers, booleans and nulls, as ``json.dumps`` writes it."""
    words = {None: "null", True: "true", False: "false"}
    return "{" + ", ".join(f'"{k}": {words[v] if v is None or isinstance(v, bool) else v}'
                           for k, v in report.items()) + "}"


def _confine(options: Sequence[str]) -> None:
    """``--net FD METHOD PORT RESOLVERS``: the case's network namespace (:mod:`gate.runner.netns`)."""
    channel, method, port, resolvers = int(options[1]), options[2], int(options[3]), options[4]
    os.set_inheritable(channel, False)
    # Here, not at the top: only a confined case needs it. From its file, as this one runs (-I keeps
    # the folder of a script off sys.path): the gate's own module, never one of the working tree.
    import importlib.machinery

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "netns.py")
    module = type(sys)("sourcegate_netns")
    module.__file__ = path
    importlib.machinery.SourceFileLoader(module.__name__, path).exec_module(module)
    module.confine(channel, method, port, [r for r in resolvers.split(",") if r])


def main(argv: Sequence[str]) -> int:
    """Run the agent of one case; end everything it started; report on the status fd."""
    parent, go, status_fd = int(argv[1]), int(argv[2]), int(argv[3])
    split = list(argv).index("--", 4)
    options, command = list(argv[4:split]), list(argv[split + 1:])
    os.set_inheritable(go, False)
    os.set_inheritable(status_fd, False)
    # A handler that raised would cut the cleanup short: this one only kills the agent, whose wait
    # then returns, so every path goes through the cleanup below.
    for sig in _STOP_SIGNALS:
        signal.signal(sig, _Case.stop)
    report: dict[str, int | bool | None] = {"exit": None, "signal": None}
    if options:  # before the keeper is made not dumpable: a user namespace's maps are written to its /proc files
        _confine(options)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    # Not dumpable: a process of the same user (the agent) can then neither ptrace the keeper nor open
    # its /proc files (its status fd, its environment). The agent, exec'd, is dumpable as usual.
    _prctl(PR_SET_DUMPABLE, 0)
    # EOF on GO_FD, or another parent than GATE_PID: the gate is gone or stopped the case before it began
    if os.getppid() == parent and os.read(go, 1) == b"g" and not _Case.stopped:
        _Case.agent = _spawn(command)
        if _Case.stopped:  # asked between the fork and the line above
            _kill_agent(_Case.agent)
        status = _wait(_Case.agent)
        if os.WIFSIGNALED(status):
            report["signal"] = os.WTERMSIG(status)
        else:
            report["exit"] = os.waitstatus_to_exitcode(status)
    else:
        _Case.stopped = True
    for sig in _STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    ended, left = end_tree(os.getpid(), reap_any=True)
    report.update(stopped=_Case.stopped, ended=ended, left=left)
    os.write(status_fd, (_json(report) + "\n").encode("ascii"))
    return 0


if __name__ == "__main__":  # pragma: no cover - run by the gate as a script
    os._exit(main(sys.argv))  # nothing to flush (the report went out with os.write): no interpreter teardown
