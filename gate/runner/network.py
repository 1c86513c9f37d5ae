"""Where an agent's network ends (``sourcegate run --network``): the modes, and the plan of one run.

:data:`NETWORK_MODES` is the registry the flag's choices derive from:

- ``auto`` (the default): each agent runs in a network namespace of its own whose only way out is the
  replay server (:mod:`gate.runner.netns`), where one can be made; elsewhere the agents run as with
  ``proxy``, and the run says so on stderr and in every case's trace (``replay.network``), and the
  report warns of it in every case (``unconfined``);
- ``confined``: a namespace or nothing: the run stops before any agent starts (exit 2) when none can be
  made;
- ``proxy``: no namespace; the replay server is only the agent's proxy, which a client that ignores the
  proxy variables goes round. Said in the traces and the report as ``auto``'s fallback is.

Whether a namespace can be made is asked once per run, of a throw-away process (:func:`probe`), so a
run is confined in every case or in none; a keeper that still cannot make one fails its case.
"""

from __future__ import annotations

import ipaddress
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass

from gate.errors import InputError
from gate.model import Confinement

__all__ = ["NETWORK_MODES", "NetworkPlan", "plan_network", "probe", "resolvers"]

NETWORK_MODES = {
    "auto": "a network namespace per agent where one can be made, else proxy (said in the report)",
    "confined": "a network namespace per agent, or exit 2 before any agent starts",
    "proxy": "no namespace: the replay server is the agent's proxy only (said in the report)",
}
"""``--network``'s choices: mode -> what it does, in a line."""
RESOLV_CONF = "/etc/resolv.conf"
HOW_TO = ("on Ubuntu 23.10 and later (GitHub's runners) AppArmor refuses unprivileged user namespaces until "
          "`sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`; elsewhere see "
          "`sysctl user.max_user_namespaces` (docs/trust.md)")


@dataclass(frozen=True)
class NetworkPlan:
    """How the agents of one run reach the network: ``method`` the namespaces each keeper makes
    (:data:`gate.runner.netns.METHODS`), None when they run unconfined, for ``reason``."""

    mode: str
    method: str | None = None
    reason: str | None = None
    resolvers: tuple[str, ...] = ()
    """the loopback DNS resolvers answered inside each namespace"""

    @property
    def confined(self) -> bool:
        """Whether each agent runs in a namespace of its own."""
        return self.method is not None

    def confinement(self) -> Confinement:
        """What a case's trace says of it (``replay.network``)."""
        return Confinement(True) if self.confined else Confinement(False, self.reason)

    def line(self) -> str:
        """What the run says of it on stderr, before the first agent starts."""
        if self.confined:
            return ("sourcegate run: each agent runs in a network namespace of its own whose only way out is "
                    f"the replay server ({'user and network' if self.method == 'user' else 'network'} namespaces)")
        return (f"sourcegate run: NOT CONFINED: {self.reason}; a client that ignores the proxy variables can "
                "reach the live web unseen (docs/trust.md)")


def probe() -> tuple[str | None, str]:
    """The namespaces this machine lets this user make (``user``, ``net``), or (None, why not), asked
    of a throw-away process (:mod:`gate.runner.netns`)."""
    # Here, not at the top: netns loads ctypes, which the CLI's start (this module gives run its flag) can spare.
    from gate.runner import netns

    try:
        done = subprocess.run([sys.executable, "-I", "-S", netns.__file__, "probe"], capture_output=True,
                              timeout=30, check=False, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"the probe could not run ({e})"
    said = done.stdout.decode("utf-8", "replace").strip()
    if said in netns.METHODS:
        return said, ""
    return None, said.removeprefix("none: ") or f"the probe failed: {done.stderr.decode('utf-8', 'replace')[-300:]}"


def read_resolvers(path: str = RESOLV_CONF) -> tuple[str, ...]:
    """The loopback resolvers ``path`` names (none when it cannot be read)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return resolvers(f.read(64 * 1024))
    except OSError:
        return ()


def plan_network(mode: str, linux: bool = sys.platform.startswith("linux"),
                 asked: Callable[[], tuple[str | None, str]] | None = None) -> NetworkPlan:
    """The plan for ``mode`` (:data:`NETWORK_MODES`) on this machine; ``asked`` says which namespaces can
    be made (default: :func:`probe`, looked up when called). Raises InputError for an unknown mode, and
    for ``confined`` where no namespace can be made."""
    if mode not in NETWORK_MODES:
        raise InputError(f"usage: --network must be one of {', '.join(NETWORK_MODES)}, not {mode!r}")
    if mode == "proxy":
        return NetworkPlan(mode, reason="--network proxy")
    if not linux:
        why = f"network namespaces are Linux's, and this is {sys.platform}"
    else:
        method, why = (asked or probe)()
        if method is not None:
            return NetworkPlan(mode, method, resolvers=read_resolvers())
        why = f"no network namespace could be made ({why}); {HOW_TO}"
    if mode == "confined":
        raise InputError(f"--network confined: {why}")
    return NetworkPlan(mode, reason=why)


def resolvers(resolv_conf: str) -> tuple[str, ...]:
    """The loopback resolvers a ``resolv.conf`` names (``nameserver 127.0.0.53``, ``::1``): the ones a
    namespace can answer. With no ``nameserver`` line at all, the C library asks 127.0.0.1."""
    named = []
    for line in resolv_conf.splitlines():
        words = line.split("#", 1)[0].split(";", 1)[0].split()
        if len(words) >= 2 and words[0] == "nameserver":
            named.append(words[1].split("%", 1)[0])
    if not named:
        return ("127.0.0.1",)
    return tuple(dict.fromkeys(a for a in named if _loopback(a)))


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:  # "127.1", "127.0.0.300": not what the C library reads as an address
        return False
