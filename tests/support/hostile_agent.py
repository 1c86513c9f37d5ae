"""An agent that does what a hostile pull request's agent would, step by step, as its plan says.

Each case's plan (``$HOSTILE_AGENT_PLAN``, JSON: case id -> a list of steps) is run in order, then the
agent prints an answer on stdout (``{"answer": "ok"}``) and exits 0, unless a step said otherwise:

- ``{"leave": "group" | "setsid" | "double_fork", "pid_file": PATH, "ignore_term": true}``: leave a
  process running (in the agent's group, in a new session, or a new session's child whose parent
  exits), which writes its pid to PATH and sleeps; the agent goes on once PATH is written.
- ``{"signal_parent": "SIGKILL" | "SIGSTOP"}``: signal the agent's parent (the keeper, on Linux).
- ``{"print": {"stdout": MIB, "stderr": MIB}}``: that many MiB of log lines on each stream.
- ``{"search": QUERY}``: a search through the case's own ``$SOURCEGATE_REPLAY_URL``.
- ``{"steal": QUERY, "out": PATH}``: the ``SOURCEGATE_REPLAY_URL`` of every other process that shows
  one on the same server in ``/proc/<pid>/environ``, each asked for QUERY; PATH gets ``{url: status}``.
  With ``"from": FILE``, the URL another case wrote there (``url_to``) instead.
- ``{"url_to": PATH}``: write the case's ``$SOURCEGATE_REPLAY_URL`` to PATH.
- ``{"wait_for": PATH}``: wait until PATH exists (another case's step wrote it).
- ``{"touch": PATH}``, ``{"sleep": SECONDS}``, ``{"exit": CODE}``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

PLAN_ENV = "HOSTILE_AGENT_PLAN"

HOSTILE_AGENT = r'''
import json, os, signal, socket, sys, time
from urllib.parse import urlencode, urlsplit

steps = json.loads(os.environ["HOSTILE_AGENT_PLAN"]).get(os.environ["SOURCEGATE_CASE"], [])
own = os.environ["SOURCEGATE_REPLAY_URL"]

def get(url, **params):
    base = urlsplit(url)
    target = f"{base.path}/search?{urlencode(params)}"
    with socket.create_connection((base.hostname, base.port), timeout=10) as conn:
        conn.sendall(f"GET {target} HTTP/1.1\r\nHost: {base.netloc}\r\nConnection: close\r\n\r\n".encode())
        response = b"".join(iter(lambda: conn.recv(65536), b""))
    return int(response.split(b" ", 2)[1])

def wait_for(path):
    while not os.path.exists(path):
        time.sleep(0.01)

def leave(how, pid_file, ignore_term=False):
    if os.fork():
        wait_for(pid_file)
        return
    if how != "group":
        os.setsid()
    if how == "double_fork" and os.fork():
        os._exit(0)
    if ignore_term:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    with open(pid_file + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.replace(pid_file + ".tmp", pid_file)
    time.sleep(600)
    os._exit(0)

def others():
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                env = dict(v.split(b"=", 1) for v in f.read().split(b"\0") if b"=" in v)
        except OSError:
            continue
        url = env.get(b"SOURCEGATE_REPLAY_URL", b"").decode()
        # only this run's server: what else runs on the machine is none of this agent's business
        if urlsplit(url).netloc == urlsplit(own).netloc and url != own and url not in found:
            found.append(url)
    return found

for step in steps:
    if "leave" in step:
        leave(step["leave"], step["pid_file"], step.get("ignore_term", False))
    elif "signal_parent" in step:
        os.kill(os.getppid(), getattr(signal, step["signal_parent"]))
    elif "print" in step:
        line = b"x" * 1023 + b"\n"
        for stream, mib in step["print"].items():
            out = sys.stdout.buffer if stream == "stdout" else sys.stderr.buffer
            for _ in range(mib):
                out.write(line * 1024)
            out.flush()
    elif "search" in step:
        get(own, provider="trace", q=step["search"])
    elif "steal" in step:
        urls = [open(step["from"]).read()] if "from" in step else others()
        got = {url: get(url, provider="trace", q=step["steal"]) for url in urls}
        with open(step["out"], "w") as f:
            json.dump(got, f)
    elif "url_to" in step:
        with open(step["url_to"] + ".tmp", "w") as f:
            f.write(own)
        os.replace(step["url_to"] + ".tmp", step["url_to"])
    elif "wait_for" in step:
        wait_for(step["wait_for"])
    elif "touch" in step:
        open(step["touch"], "w").close()
    elif "sleep" in step:
        time.sleep(step["sleep"])
    elif "exit" in step:
        sys.exit(step["exit"])
print(json.dumps({"answer": "ok"}))
'''


def hostile_agent(folder: Path) -> list[str]:
    """The command that runs the hostile agent (its plan comes from ``$HOSTILE_AGENT_PLAN``)."""
    script = folder / "hostile_agent.py"
    script.write_text(HOSTILE_AGENT, encoding="utf-8")
    return [sys.executable, "-I", "-S", str(script)]


def plan_env(plan: dict[str, list[dict[str, object]]]) -> str:
    """``$HOSTILE_AGENT_PLAN`` for ``plan``."""
    return json.dumps(plan)
