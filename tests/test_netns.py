"""A case's network namespace as its keeper makes it (gate/runner/netns.py): real namespaces, made in
child processes (a process cannot leave one), which then look at what they can reach. Nothing is sent
past loopback: a child only reads its own view of the network and connects to the host's loopback."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from typing import Any

import pytest

from gate.runner import netns
from tests.support.namespaces import METHOD, needs_namespace

CHILD = r'''
import importlib.machinery, json, os, socket, sys
path, method, port, channel = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
module = type(sys)("netns")
importlib.machinery.SourceFileLoader("netns", path).exec_module(module)
outside = os.readlink("/proc/self/ns/net")
seen = {}
if channel < 0:
    module.enter(method)
else:
    seen["confined"] = module.confine(channel, method, port, ["127.0.0.53"])
seen["namespace"] = os.readlink("/proc/self/ns/net") != outside
with open("/proc/self/net/dev") as f:
    seen["interfaces"] = [line.split(":")[0].strip() for line in f.read().splitlines()[2:]]
with open("/proc/self/net/route") as f:
    seen["routes"] = len(f.read().splitlines()) - 1
try:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(b"hello from inside")
        seen["answered"] = conn.recv(100).decode()
except OSError as e:
    seen["connect"] = e.errno
if channel >= 0 and seen["confined"]:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as dns:
        dns.sendto(b"a look-up", ("127.0.0.53", 53))
print(json.dumps(seen))
'''

methods = [pytest.param(m, marks=pytest.mark.skipif(m == "net" and os.geteuid() != 0, reason="needs root"))
           for m in netns.METHODS]


def _child(method: str, port: int, channel: socket.socket | None = None) -> subprocess.Popen[str]:
    fd = channel.fileno() if channel is not None else -1
    return subprocess.Popen([sys.executable, "-I", "-S", "-c", CHILD, netns.__file__, method, str(port), str(fd)],
                            stdout=subprocess.PIPE, text=True, pass_fds=() if channel is None else (fd,))


def _seen(child: subprocess.Popen[str]) -> dict[str, Any]:
    out, _ = child.communicate(timeout=60)
    assert child.returncode == 0
    seen: dict[str, Any] = json.loads(out)
    return seen


@needs_namespace
@pytest.mark.parametrize("method", methods)
def test_inside_a_namespace_there_is_only_its_own_loopback(method: str) -> None:
    with socket.create_server(("127.0.0.1", 0)) as host:  # the host's loopback: not reachable from inside
        host.settimeout(0.2)
        seen = _seen(_child(method, host.getsockname()[1]))
        with pytest.raises(TimeoutError):
            host.accept()
    assert seen == {"namespace": True, "interfaces": ["lo"], "routes": 0, "connect": 111}  # ECONNREFUSED


@needs_namespace
def test_the_keeper_hands_over_a_listener_on_the_servers_own_port_and_its_resolvers() -> None:
    gate_end, keeper_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with socket.create_server(("127.0.0.1", 0)) as host, gate_end:
        port = host.getsockname()[1]  # the same port inside: every namespace has a loopback of its own
        with keeper_end:
            child = _child(str(METHOD), port, keeper_end)
        message, fds, _, _ = socket.recv_fds(gate_end, 100, 4)
        assert message == b"ok" and len(fds) == 2
        listener, dns = (socket.socket(fileno=fd) for fd in fds)
        with listener, dns:
            assert (listener.type, listener.getsockname()) == (socket.SOCK_STREAM, ("127.0.0.1", port))
            assert (dns.type, dns.getsockname()) == (socket.SOCK_DGRAM, ("127.0.0.53", 53))
            conn, _ = listener.accept()
            with conn:
                assert conn.recv(100) == b"hello from inside"
                conn.sendall(b"served by the gate")
            dns.settimeout(30)
            assert dns.recvfrom(100)[0] == b"a look-up"
            seen = _seen(child)
    assert seen["confined"] is True and seen["answered"] == "served by the gate"
    assert seen["interfaces"] == ["lo"] and seen["routes"] == 0


def test_a_keeper_that_cannot_make_its_namespace_says_why_and_hands_over_nothing() -> None:
    gate_end, keeper_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with gate_end:
        with keeper_end:
            child = _child("no-such-method", 0, keeper_end)
        message, fds, _, _ = socket.recv_fds(gate_end, 100, 4)
        seen = _seen(child)
    assert (message, fds) == (b"error: no method 'no-such-method'", [])
    assert seen["confined"] is False and seen["namespace"] is False


@needs_namespace
def test_the_probe_says_which_namespaces_can_be_made() -> None:
    done = subprocess.run([sys.executable, "-I", "-S", netns.__file__, "probe"], capture_output=True, text=True,
                          check=True)
    assert done.stdout == f"{METHOD}\n"
    assert subprocess.run([sys.executable, "-I", "-S", netns.__file__], capture_output=True).returncode == 2
