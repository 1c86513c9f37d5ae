"""The frozen web at the real addresses, over TLS: a certificate authority made for each case, and the
replay server answering a case's ``CONNECT`` itself (``gate/replay/tls.py``, ``gate/replay/serve.py``).

A certificate the case's authority makes for a host (a name or an IP address) verifies for that host
only, and only against that authority: another case's bundle does not trust it, nor another run's. The
authority's key never reaches the disk, and the bundle the agent is pointed at keeps the roots it
trusted already. Inside a tunnel the server answers as the host; hostile input there gets an error
reply or a closed connection, never a server error, and the server goes on answering (it has a single
connection slot here, which a stuck thread would hold). A ``CONNECT`` that carries no running case's
token is refused as before. Everything happens in memory or on loopback.
"""

from __future__ import annotations

import base64
import io
import json
import os
import select
import shutil
import socket
import ssl
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import certifi
import pytest

from gate.replay.serve import MAX_BODY, ReplayServer
from gate.replay.tls import BUNDLE_VARIABLES, EXTRA_CA_VARIABLES, CertificateAuthority, ca_env, write_bundle
from gate.runner.scope import CaseScope
from gate.snapshot.records import PageRecord
from gate.snapshot.store import SnapshotStore
from tests.support.loopback import ServerThread

TOKEN = "case-token"
HOST = "a.test"
#: The server's timeouts, small (seconds in production): a handshake or a request that stalls is
#: given up on in well under a second, and a byte every TRICKLE seconds never trips the idle timeout.
IDLE = 0.35
REQUEST = 0.55
TRICKLE = 0.1
CURL = shutil.which("curl")


# ---------------------------------------------------------------- the authority and its certificates


def _handshake(server: ssl.SSLContext, client: ssl.SSLContext, name: str) -> None:
    """A TLS handshake in memory between ``server`` and a client that verifies ``name``; the client's
    ``ssl.SSLError`` when it does not trust what it was shown."""
    client_in, client_out, server_in, server_out = (ssl.MemoryBIO() for _ in range(4))
    ends = [client.wrap_bio(client_in, client_out, server_hostname=name),
            server.wrap_bio(server_in, server_out, server_side=True)]
    done: set[int] = set()
    for _ in range(8):
        for i, end in enumerate(ends):
            if i not in done:
                try:
                    end.do_handshake()
                    done.add(i)
                except ssl.SSLWantReadError:
                    pass
        server_in.write(client_out.read())
        client_in.write(server_out.read())
        if len(done) == 2:
            return
    raise AssertionError("the handshake did not finish")


def _trusting(pem_file: str | Path) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(pem_file))


def _trusting_pem(pem: bytes) -> ssl.SSLContext:
    return ssl.create_default_context(cadata=pem.decode("ascii"))


def test_a_certificate_for_a_host_name_verifies_against_its_authority_for_that_name_only() -> None:
    authority = CertificateAuthority("a case")
    served = authority.context("api.tavily.com")
    _handshake(served, _trusting_pem(authority.pem), "api.tavily.com")
    _handshake(authority.context("API.Tavily.com"), _trusting_pem(authority.pem), "api.tavily.com")  # any case
    for other in ("api.exa.ai", "www.api.tavily.com", "tavily.com"):
        with pytest.raises(ssl.SSLCertVerificationError, match="Hostname mismatch"):
            _handshake(served, _trusting_pem(authority.pem), other)


@pytest.mark.parametrize(("address", "others"), [("127.0.0.1", ("127.0.0.2", "localhost")),
                                                 ("::1", ("::2", "127.0.0.1"))])
def test_a_certificate_for_an_ip_address_verifies_for_that_address_only(address: str, others: tuple[str, ...]) -> None:
    authority = CertificateAuthority("a case")
    served = authority.context(address)
    _handshake(served, _trusting_pem(authority.pem), address)
    for other in others:
        with pytest.raises(ssl.SSLCertVerificationError, match="mismatch"):
            _handshake(served, _trusting_pem(authority.pem), other)


def test_a_case_s_certificate_is_trusted_by_no_other_case_s_bundle_nor_another_run_s(tmp_path: Path) -> None:
    # the same label: what another run of the same case makes
    one, other, next_run = (CertificateAuthority("case euro"), CertificateAuthority("case slots"),
                            CertificateAuthority("case euro"))
    bundles = {}
    for name, authority in {"one": one, "other": other, "next_run": next_run}.items():
        (tmp_path / name).mkdir()
        _, bundles[name] = write_bundle(str(tmp_path / name), authority, {})
    _handshake(one.context(HOST), _trusting(bundles["one"]), HOST)
    for stranger in ("other", "next_run"):
        with pytest.raises(ssl.SSLCertVerificationError, match="certificate verify failed"):
            _handshake(one.context(HOST), _trusting(bundles[stranger]), HOST)
    assert len({one.pem, other.pem, next_run.pem}) == 3


def test_the_authority_s_key_is_never_written_in_the_clear_and_no_key_file_is_left(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(temp))
    loaded: list[str] = []
    load_cert_chain = ssl.SSLContext.load_cert_chain

    def reading(context: ssl.SSLContext, certfile: Any, *args: Any, **kwargs: Any) -> None:
        loaded.append(Path(certfile).read_text(encoding="ascii"))  # what is on disk while ssl reads it
        load_cert_chain(context, certfile, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_cert_chain", reading)
    authority = CertificateAuthority("a case")
    for host in ("api.tavily.com", "www.bbc.com", "127.0.0.1"):
        authority.context(host)
    (tmp_path / "case").mkdir()
    written = write_bundle(str(tmp_path / "case"), authority, {})
    assert len(loaded) == 3
    for text in loaded:
        assert "-----BEGIN ENCRYPTED PRIVATE KEY-----" in text
        assert "-----BEGIN PRIVATE KEY-----" not in text and "-----BEGIN EC PRIVATE KEY-----" not in text
    assert list(temp.iterdir()) == []  # every file ssl read is gone
    for path in written:
        assert "PRIVATE KEY" not in Path(path).read_text(encoding="ascii")


def test_the_authority_keeps_the_contexts_of_the_hosts_last_asked_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """An agent that asks for host after host (a loop, a crawler gone wrong) does not make the server keep a
    context for each: a host not asked for since others were is given one made again."""
    monkeypatch.setattr("gate.replay.tls.MAX_CONTEXTS", 3)
    authority = CertificateAuthority("a case")
    first, kept = authority.context("h0.test"), authority.context("h1.test")
    assert authority.context("h0.test") is first  # made once for a host asked again
    for i in range(2, 4):  # h1 is now the one asked longest ago
        authority.context(f"h{i}.test")
    assert authority.context("h0.test") is first and authority.context("h1.test") is not kept
    _handshake(authority.context("h1.test"), _trusting_pem(authority.pem), "h1.test")


# ---------------------------------------------------------------- the bundle the agent is given


def _root(tmp_path: Path, name: str) -> tuple[CertificateAuthority, Path]:
    """A root the environment trusted already (a company's), in a file of its own."""
    root = CertificateAuthority(name)
    path = tmp_path / f"{name}.pem"
    path.write_bytes(root.pem)
    return root, path


def test_the_bundle_keeps_the_roots_the_environment_named_and_adds_the_case_s_authority(tmp_path: Path) -> None:
    first, first_file = _root(tmp_path, "company-a")
    second, second_file = _root(tmp_path, "company-b")
    authority = CertificateAuthority("a case")
    environ = {"SSL_CERT_FILE": str(first_file), "REQUESTS_CA_BUNDLE": str(second_file),
               "CURL_CA_BUNDLE": str(first_file)}
    (tmp_path / "case").mkdir()
    ca_file, bundle = write_bundle(str(tmp_path / "case"), authority, environ)
    assert Path(bundle).read_bytes() == first.pem + second.pem + authority.pem  # each root once, in order
    assert Path(ca_file).read_bytes() == authority.pem
    for served in (first, second, authority):
        _handshake(served.context(HOST), _trusting(bundle), HOST)


def test_without_roots_named_the_bundle_is_certifi_s_and_the_case_s_authority(tmp_path: Path) -> None:
    authority = CertificateAuthority("a case")
    _, bundle = write_bundle(str(tmp_path), authority, {"PATH": "/usr/bin"})
    text = Path(bundle).read_bytes()
    assert text.startswith(Path(certifi.where()).read_bytes().rstrip(b"\n")) and text.endswith(authority.pem)


def test_a_directory_of_roots_named_by_requests_ca_bundle_is_kept_in_the_bundle(tmp_path: Path) -> None:
    """requests takes a folder of certificates in ``REQUESTS_CA_BUNDLE`` (OpenSSL's ``capath``): its roots
    stay trusted, or the agent could no longer reach the model API it is allowed to."""
    folder = tmp_path / "roots"
    folder.mkdir()
    first, second = CertificateAuthority("company-a"), CertificateAuthority("company-b")
    (folder / "a.pem").write_bytes(first.pem)
    (folder / "b.crt").write_bytes(second.pem)
    (folder / "README").write_text("not a certificate\n", encoding="utf-8")
    authority = CertificateAuthority("a case")
    (tmp_path / "case").mkdir()
    _, bundle = write_bundle(str(tmp_path / "case"), authority, {"REQUESTS_CA_BUNDLE": str(folder)})
    for served in (first, second, authority):
        _handshake(served.context(HOST), _trusting(bundle), HOST)
    assert b"not a certificate" not in Path(bundle).read_bytes()


def test_the_extra_roots_node_was_given_are_kept_beside_the_case_s_authority(tmp_path: Path) -> None:
    """``NODE_EXTRA_CA_CERTS`` names one file, read once: the one the agent is given holds the roots its
    environment named there and the case's authority."""
    company, company_file = _root(tmp_path, "company")
    authority = CertificateAuthority("a case")
    (tmp_path / "case").mkdir()
    ca_file, _ = write_bundle(str(tmp_path / "case"), authority, {"NODE_EXTRA_CA_CERTS": str(company_file)})
    for served in (company, authority):
        _handshake(served.context(HOST), _trusting(ca_file), HOST)
    assert Path(ca_file).read_bytes().endswith(authority.pem)


def test_the_agent_s_variables_name_the_bundle_and_node_s_extra_roots_the_authority() -> None:
    env = ca_env({"PATH": "/usr/bin", "SSL_CERT_FILE": "/etc/ssl/cert.pem"}, "/w/ca.pem", "/w/bundle.pem")
    assert {v: env[v] for v in BUNDLE_VARIABLES} == dict.fromkeys(BUNDLE_VARIABLES, "/w/bundle.pem")
    assert {v: env[v] for v in EXTRA_CA_VARIABLES} == {"NODE_EXTRA_CA_CERTS": "/w/ca.pem"}
    assert env["PATH"] == "/usr/bin"


# ---------------------------------------------------------------- the server inside a tunnel


@dataclass
class Tunnels:
    """A replay server on loopback with one running case (its token, scope and authority)."""

    server: ReplayServer
    scope: CaseScope
    authority: CertificateAuthority
    log: io.StringIO

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.server.server_address[:2]
        return str(host), int(port)

    def connect(self, target: str, token: str | None = TOKEN, user: str = "sourcegate") -> socket.socket:
        """A connection to the server that has sent ``CONNECT target`` with the case's token as the proxy's
        password (none: no ``Proxy-Authorization``)."""
        sock = socket.create_connection(self.address, timeout=10)
        auth = ("" if token is None else
                "Proxy-Authorization: Basic " + base64.b64encode(f"{user}:{token}".encode()).decode() + "\r\n")
        sock.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n{auth}\r\n".encode("latin-1"))
        return sock

    def tunnel(self, target: str = f"{HOST}:443") -> socket.socket:
        """A tunnel the server answered: the connection after its ``200 Connection established``."""
        sock = self.connect(target)
        assert _head(sock) == b"HTTP/1.1 200 Connection established\r\n\r\n"
        return sock

    def tls(self, host: str = HOST) -> ssl.SSLSocket:
        """A tunnel to ``host`` over TLS, trusting the case's authority (as the agent's bundle does)."""
        return _trusting_pem(self.authority.pem).wrap_socket(self.tunnel(f"{host}:443"), server_hostname=host)

    def still_serving(self) -> None:
        """Another client is answered and the log names no error of the server's own. The server has one
        connection slot: the answer also says that the connection before has been let go, its thread done
        (and whatever it told the case, told)."""
        with socket.create_connection(self.address, timeout=10) as sock:
            target = "/fetch?" + urlencode({"url": f"https://{HOST}/"})  # no case's: the scope is told nothing
            status, _, body = _exchange(sock, f"GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert status == 200 and json.loads(body)["body"] == "A page"
        assert "ERROR" not in self.log.getvalue(), self.log.getvalue()


@pytest.fixture
def tunnels(tmp_path: Path) -> Iterator[Tunnels]:
    store = SnapshotStore(str(tmp_path / "snapshot"))
    store.put_page(PageRecord(url=f"https://{HOST}/", status=200, body="A page", content_type="text/html"))
    store.put_page(PageRecord(url=f"http://{HOST}:8080/", status=200, body="A page on 8080",
                              content_type="text/plain"))
    log = io.StringIO()
    server = ReplayServer(store, log=log, idle_timeout=IDLE, request_timeout=REQUEST, max_connections=1)
    scope = CaseScope()
    server.scopes[TOKEN] = scope
    authority = server.authorities[TOKEN] = CertificateAuthority("a case")
    with ServerThread(server, "replay"):
        yield Tunnels(server, scope, authority, log)


def _head(sock: socket.socket) -> bytes:
    """The reply to a CONNECT, byte by byte (what follows it belongs to the tunnel)."""
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        byte = sock.recv(1)
        if not byte:
            break
        head += byte
    return head


def _rest(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    came = b""
    try:
        while data := sock.recv(65536):
            came += data
    except (ssl.SSLError, ConnectionError):  # a TLS connection closed without its close_notify, a reset
        pass
    return came


def _exchange(sock: socket.socket, request: str | bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``request`` (which asks to close); the reply's status, headers (names in lower case) and body."""
    sock.sendall(request.encode("latin-1") if isinstance(request, str) else request)
    return _parsed(_rest(sock))


def _parsed(reply: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = reply.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, body


def _client_hello(host: str) -> bytes:
    """The first flight of a TLS client for ``host``: a ClientHello."""
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    client = ssl.create_default_context().wrap_bio(incoming, outgoing, server_hostname=host)
    with pytest.raises(ssl.SSLWantReadError):
        client.do_handshake()
    return outgoing.read()


def test_a_connect_is_answered_over_tls_as_the_host_with_its_recorded_page(tunnels: Tunnels) -> None:
    with tunnels.tls() as tls:
        assert tls.selected_alpn_protocol() in (None, "http/1.1")
        status, headers, body = _exchange(tls, f"GET / HTTP/1.1\r\nHost: {HOST}\r\nConnection: close\r\n\r\n")
    assert (status, headers["content-type"], body) == (200, "text/html; charset=utf-8", b"A page")
    tunnels.still_serving()
    [served] = tunnels.scope.calls()
    assert (served.layer, served.key, served.hit, served.request) == ("pages", f"https://{HOST}/", True,
                                                                      f"GET https://{HOST}/")


def test_a_page_the_snapshot_lacks_at_its_own_url_is_a_miss_naming_the_url(tunnels: Tunnels) -> None:
    with tunnels.tls() as tls:
        status, headers, body = _exchange(tls, f"GET /gone?x=1 HTTP/1.1\r\nHost: {HOST}\r\nConnection: close\r\n\r\n")
    assert (status, headers["x-sourcegate-miss"], json.loads(body)["miss"]) == (404, "1", True)
    tunnels.still_serving()
    [missed] = tunnels.scope.calls()
    assert (missed.layer, missed.key, missed.hit) == ("pages", f"https://{HOST}/gone?x=1", False)


def test_garbage_in_place_of_a_tls_client_hello_is_a_bad_request_and_the_connection_closes(tunnels: Tunnels) -> None:
    with tunnels.tunnel() as sock:
        sock.sendall(b"\x00\x01\x02 garbage \xff\xfe\r\n\r\n")
        reply = _rest(sock)
    # http.server answers a request line without an HTTP version as HTTP/0.9 would: the body alone
    assert "Bad request version" in json.loads(reply)["error"]
    tunnels.still_serving()
    assert tunnels.scope.calls() == () and tunnels.scope.live_requests() == ()


def test_a_client_hello_then_garbage_closes_the_tunnel_and_the_case_is_told(tunnels: Tunnels) -> None:
    with tunnels.tunnel() as sock:
        sock.sendall(_client_hello(HOST) + b"\x17\x03\x03\x00\x20" + bytes(range(32)) + b"garbage" * 100)
        _rest(sock)  # an alert at most, then the close
    tunnels.still_serving()
    [told] = tunnels.scope.live_requests()
    assert told.host == f"{HOST}:443" and "TLS refused" in told.request


def test_a_client_hello_then_silence_is_dropped_at_the_idle_timeout(tunnels: Tunnels) -> None:
    with tunnels.tunnel() as sock:
        sock.sendall(_client_hello(HOST))
        _rest(sock)  # the server's half of the handshake, then the close, the client still silent
    tunnels.still_serving()
    [told] = tunnels.scope.live_requests()
    assert told.host == f"{HOST}:443" and "timed out" in told.request


def test_a_tunnel_silent_after_its_handshake_is_dropped_at_the_idle_timeout(tunnels: Tunnels) -> None:
    with tunnels.tls() as tls:
        assert _rest(tls) == b""  # the session tickets of TLS 1.3 aside, nothing: then the close
    tunnels.still_serving()
    assert tunnels.scope.calls() == () and tunnels.scope.live_requests() == ()


def test_garbage_records_after_the_handshake_close_the_connection_and_are_no_server_error(tunnels: Tunnels) -> None:
    with tunnels.tls() as tls:
        raw = socket.socket(fileno=os.dup(tls.fileno()))  # beneath the TLS layer, on the same connection
        with raw:
            raw.settimeout(10)
            raw.sendall(b"\x17\x03\x03\x00\x40" + bytes(64))  # application data no key encrypted
            _rest(raw)
    tunnels.still_serving()
    assert tunnels.scope.calls() == ()


@pytest.mark.parametrize(("request_head", "status"), [
    (b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\nHost: a.test\r\n\r\n", 414),
    (b"GET / HTTP/1.1\r\nHost: a.test\r\nX-Long: " + b"a" * 70000 + b"\r\n\r\n", 431),
    (b"GET / HTTP/1.1\r\nHost: a.test\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(200)) + b"\r\n", 431),
], ids=["request-line", "header-line", "header-count"])
def test_a_request_line_or_headers_too_long_inside_the_tunnel_get_an_error_reply(
        tunnels: Tunnels, request_head: bytes, status: int) -> None:
    with tunnels.tls() as tls:
        got, headers, body = _exchange(tls, request_head)
    assert (got, headers["connection"]) == (status, "close") and "error" in json.loads(body)
    tunnels.still_serving()


def test_a_body_over_the_limit_inside_the_tunnel_is_refused_unread(tunnels: Tunnels) -> None:
    with tunnels.tls("api.tavily.com") as tls:
        status, _, body = _exchange(tls, f"POST /search HTTP/1.1\r\nHost: api.tavily.com\r\nContent-Type: "
                                         f"application/json\r\nContent-Length: {MAX_BODY + 1}\r\n\r\n{{")
    assert status == 413 and str(MAX_BODY) in json.loads(body)["error"]
    tunnels.still_serving()
    assert tunnels.scope.calls() == ()


def _answer_so_far(tls: ssl.SSLSocket) -> bytes:
    """The reply's bytes that have come (none when the connection only carried TLS's own messages, such as
    the session tickets a TLS 1.3 server sends after the handshake)."""
    tls.setblocking(False)
    try:
        return tls.recv(65536)
    except ssl.SSLWantReadError:
        return b""
    finally:
        tls.setblocking(True)


def test_a_request_trickling_inside_the_tunnel_is_answered_408_at_its_deadline(tunnels: Tunnels) -> None:
    """A byte every 0.1 s never trips the 0.35 s idle timeout; the 0.55 s deadline of the request does."""
    request = f"GET / HTTP/1.1\r\nHost: {HOST}\r\nX-Slow: ".encode() + b"a" * 200
    answer, sent = b"", 0
    with tunnels.tls() as tls:
        while not answer and sent < len(request):
            tls.sendall(request[sent:sent + 1])
            sent += 1
            if select.select([tls], [], [], TRICKLE)[0]:
                answer = _answer_so_far(tls)
        status, headers, _ = _parsed(answer + _rest(tls))
    assert (status, headers["connection"]) == (408, "close")
    assert sent * TRICKLE >= REQUEST * 0.9 and sent < len(request)  # stopped at the deadline, not before
    tunnels.still_serving()


def test_plain_http_inside_a_connect_to_another_port_is_served_as_that_origin(tunnels: Tunnels) -> None:
    with tunnels.tunnel(f"{HOST}:8080") as sock:
        status, _, body = _exchange(sock, f"GET / HTTP/1.1\r\nHost: {HOST}:8080\r\nConnection: close\r\n\r\n")
    assert (status, body) == (200, b"A page on 8080")
    tunnels.still_serving()
    assert [c.key for c in tunnels.scope.calls()] == [f"http://{HOST}:8080/"]


@pytest.mark.parametrize(("token", "user"), [(None, "sourcegate"), ("no-such-case", "sourcegate"),
                                             (TOKEN, "someone-else")], ids=["no-token", "unknown", "wrong-user"])
def test_a_connect_without_a_running_case_s_token_is_refused_and_nothing_is_served(
        tunnels: Tunnels, token: str | None, user: str) -> None:
    with tunnels.connect(f"{HOST}:443", token, user) as sock:
        status, headers, body = _parsed(_rest(sock))  # plain HTTP, then the close: no TLS was offered
    assert (status, headers["connection"], json.loads(body)["live_request"]) == (403, "close", True)
    tunnels.still_serving()
    assert tunnels.scope.calls() == () and tunnels.scope.live_requests() == ()
    assert f"LIVE REQUEST refused: CONNECT {HOST}:443 (from no running case)" in tunnels.log.getvalue()


def test_a_connect_for_a_host_no_certificate_can_name_closes_the_tunnel_and_the_case_is_told(
        tunnels: Tunnels) -> None:
    with tunnels.tunnel("b\u00fccher.test:443") as sock:  # a name not in its A-label form (xn--...)
        sock.sendall(_client_hello("xn--bcher-kva.test"))
        _rest(sock)
    tunnels.still_serving()
    [told] = tunnels.scope.live_requests()
    assert told.host == "b\u00fccher.test:443" and "no certificate can name the host" in told.request


def _fetch_target() -> str:
    return f"/case/{TOKEN}/fetch?" + urlencode({"url": f"https://{HOST}/"})


def test_a_connect_to_the_server_itself_serves_the_requests_inside_by_their_path(tunnels: Tunnels) -> None:
    """A client that tunnels every origin through its proxy (undici's ``ProxyAgent``, which Node's
    ``fetch`` uses with ``NODE_USE_ENV_PROXY=1``) asks ``CONNECT`` for the replay server's own address."""
    host, port = tunnels.address
    with tunnels.tunnel(f"{host}:{port}") as sock:
        status, _, body = _exchange(sock, f"GET {_fetch_target()} HTTP/1.1\r\nHost: {host}:{port}\r\n"
                                          "Connection: close\r\n\r\n")
    assert status == 200 and json.loads(body)["body"] == "A page"
    tunnels.still_serving()
    assert [(c.layer, c.key, c.hit) for c in tunnels.scope.calls()] == [("pages", f"https://{HOST}/", True)]
    assert tunnels.scope.live_requests() == ()


@pytest.mark.skipif(CURL is None, reason="needs curl")
def test_curl_tunnelling_to_the_server_itself_is_served_by_path(tunnels: Tunnels) -> None:
    host, port = tunnels.address
    done = subprocess.run([str(CURL), "-sS", "--proxytunnel", "--proxy", f"http://sourcegate:{TOKEN}@{host}:{port}",
                           f"http://{host}:{port}{_fetch_target()}"],
                          capture_output=True, text=True, timeout=30, check=False, env={"PATH": os.environ["PATH"]})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["body"] == "A page"
    tunnels.still_serving()
