"""``sourcegate run`` makes the agent's other network use visible: the replay server is its proxy.

Real agent processes (Python ``requests``, ``httpx``, ``urllib``; Node's ``fetch`` in
``examples/agent-node``) call a host that is not the replay server. The replay server answers it as
that host, from the frozen web: what the snapshot never recorded is a ``replay_miss`` naming the URL
and the command that records it; a client that will not talk to the frozen web (it trusts no
certificate but its own roots) is a hard ``live_request`` naming the host. The replay server's own
traffic goes through the same proxy and is served. A site on loopback standing in for the real host
hears nothing of it, over HTTP or HTTPS, unless ``replay.allow`` names it: then the agent's connection
is tunnelled to it untouched, the site's own certificate and all, the case's authority nowhere. Nothing
here reaches the network: a request goes nowhere past the replay server, and the hosts a case may reach
are loopback stand-ins.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from gate.cli import main
from gate.pipeline import run_paths
from gate.replay.tls import CertificateAuthority
from gate.results import CaseResult
from tests.support.run_golden import make_golden
from tests.support.web_sites import Site, page

EURO = "euro-adoption-after-2010"
ROOT = Path(__file__).resolve().parent.parent
NODE = shutil.which("node")

AGENT = r'''
import json, os, sys
import urllib.request
import requests
import httpx2 as httpx

base = os.environ["SOURCEGATE_REPLAY_URL"]
client = sys.argv[1]
served = requests.get(f"{base}/search", params={"provider": "trace", "q": "EU member states adopted euro after 2010"},
                      timeout=10)
assert served.status_code == 200, served.status_code
calls = {
    "requests": lambda url: requests.get(url, timeout=10),
    "httpx": lambda url: httpx.get(url, timeout=10),
    "urllib": lambda url: urllib.request.urlopen(url, timeout=10),
}
for url in sys.argv[2:]:
    try:
        calls[client](url)
        print(f"reached {url}", file=sys.stderr)
    except Exception as e:
        print(f"refused {url}: {type(e).__name__}", file=sys.stderr)
print(json.dumps({"answer": "Estonia, Latvia, Lithuania and Croatia."}))
'''


def _agent(tmp_path: Path) -> list[str]:
    script = tmp_path / "agent.py"
    script.write_text(AGENT, encoding="utf-8")
    return [sys.executable, str(script)]


def _trace(golden: Path, case: str = EURO) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((golden / "runs" / f"{case}.json").read_text(encoding="utf-8"))
    return data


def _result(golden: Path, case: str = EURO) -> CaseResult:
    return {c.id: c for c in run_paths([str(golden)], None, judge_mode="off").cases}[case]


@pytest.mark.parametrize("client", ["requests", "httpx", "urllib"])
def test_a_request_past_the_replay_server_is_answered_as_its_host_and_a_miss_names_it(
        tmp_path: Path, client: str) -> None:
    golden = make_golden(tmp_path / "set", [EURO])
    command = [*_agent(tmp_path), client, "https://api.tavily.com/search", "http://search.example.net/q?x=1"]
    assert main(["run", str(golden), "--", *command]) == 0
    trace = _trace(golden)
    assert trace["queries"] == ["EU member states adopted euro after 2010"]  # the replay, through the proxy
    assert "live_requests" not in trace["replay"]
    assert [(m["layer"], m["key"], m.get("provider")) for m in trace["replay"]["misses"]] == [
        ("route", "GET /search", "tavily"),  # Tavily's host, a route its API does not have
        ("pages", "http://search.example.net/q?x=1", "page")]
    found = [f for f in _result(golden).hard_failures if f.check == "replay_miss"]
    assert len(found) == 2 and "http://search.example.net/q?x=1" in found[1].message
    assert "--record --" in found[1].message  # the command that records it


def test_a_client_that_trusts_only_its_own_roots_is_a_live_request_naming_the_host(tmp_path: Path) -> None:
    script = tmp_path / "pinned.py"
    script.write_text(
        "import json, ssl, certifi, urllib.request\n"
        "context = ssl.create_default_context(cafile=certifi.where())  # not the case's authority\n"
        "try:\n"
        "    urllib.request.urlopen('https://api.exa.ai/search', context=context, timeout=10)\n"
        "except Exception as e:\n"
        "    print(type(e).__name__, e, file=__import__('sys').stderr)\n"
        "print(json.dumps({'answer': 'Estonia.'}))\n", encoding="utf-8")
    golden = make_golden(tmp_path / "set", [EURO])
    assert main(["run", str(golden), "--", sys.executable, str(script)]) == 0
    [reached] = _trace(golden)["replay"]["live_requests"]
    assert reached["host"] == "api.exa.ai:443" and "TLS refused" in reached["request"]
    [found] = [f for f in _result(golden).hard_failures if f.check == "live_request"]
    assert "api.exa.ai:443" in found.message


def test_a_host_in_replay_allow_is_reached_through_the_proxy_and_not_flagged(tmp_path: Path) -> None:
    with Site("127.0.0.1", {"/v1/models": page("the model API")}) as api:
        port = api.authority.rsplit(":", 1)[1]
        golden = make_golden(tmp_path / "set", [EURO], config={"replay": {"allow": [f"localhost:{port}"]}})
        url = f"http://localhost:{port}/v1/models"
        assert main(["run", str(golden), "--", *_agent(tmp_path), "requests", url]) == 0
        assert ("GET", "/v1/models") in api.seen  # forwarded, as origin-form, to the allowed host
    assert "live_requests" not in _trace(golden)["replay"]
    assert "live_request" not in {f.check for f in _result(golden).hard_failures}


@pytest.mark.parametrize("client", ["requests", "httpx", "urllib"])
def test_a_live_site_on_loopback_hears_nothing_from_an_agent_that_asks_for_it(tmp_path: Path, client: str) -> None:
    with Site("127.0.0.1", {"/news": page("the live site")}) as live:
        port = live.authority.rsplit(":", 1)[1]
        urls = [f"https://127.0.0.1:{port}/news", f"https://localhost:{port}/news?x=1", f"http://localhost:{port}/news"]
        golden = make_golden(tmp_path / "set", [EURO])
        assert main(["run", str(golden), "--", *_agent(tmp_path), client, *urls]) == 0
        assert (live.connections, live.seen) == (0, [])  # not a connection, let alone a request
    trace = _trace(golden)
    assert [(m["layer"], m["key"]) for m in trace["replay"]["misses"]] == [("pages", url) for url in urls]
    assert "live_requests" not in trace["replay"]


ALLOWED_OVER_TLS = r'''
import json, sys
import requests

url, own_authority = sys.argv[1], sys.argv[2]
page = requests.get(url, verify=own_authority, timeout=10)  # verified by the site's own authority alone
try:
    requests.get(url, timeout=10)  # the case's bundle: certifi's roots and the case's authority
    bundle = "verified"
except requests.exceptions.SSLError:
    bundle = "not verified"
print(json.dumps({"answer": f"{page.status_code} {page.text}; with the case's bundle: {bundle}"}))
'''


def test_a_host_in_replay_allow_is_tunnelled_untouched_and_the_case_s_authority_is_not_involved(
        tmp_path: Path) -> None:
    own = CertificateAuthority("the model API's own")
    own_file = tmp_path / "own-authority.pem"
    own_file.write_bytes(own.pem)
    script = tmp_path / "allowed.py"
    script.write_text(ALLOWED_OVER_TLS, encoding="utf-8")
    with Site("127.0.0.1", {"/v1/models": page("the model API")}, tls=own.context("localhost")) as api:
        port = api.authority.rsplit(":", 1)[1]
        golden = make_golden(tmp_path / "set", [EURO], config={"replay": {"allow": [f"localhost:{port}"]}})
        command = [sys.executable, str(script), f"https://localhost:{port}/v1/models", str(own_file)]
        assert main(["run", str(golden), "--", *command]) == 0
        assert api.seen == [("GET", "/v1/models")]  # the second request never passed the agent's handshake
        assert api.connections == 2
    trace = _trace(golden)
    assert trace["answer"] == "200 the model API; with the case's bundle: not verified"
    assert trace["replay"]["misses"] == [] and "live_requests" not in trace["replay"]


def test_no_proxy_in_the_environment_opens_no_hole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # requests matches a NO_PROXY address without its port: 127.0.0.1 would let every loopback port through
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    with Site("127.0.0.1", {"/secret": page("not the frozen web")}) as other:
        golden = make_golden(tmp_path / "set", [EURO])
        assert main(["run", str(golden), "--", *_agent(tmp_path), "requests", other.url("/secret")]) == 0
        assert other.seen == []
    assert [m["key"] for m in _trace(golden)["replay"]["misses"]] == [other.url("/secret")]


def test_a_trace_that_claims_searches_the_server_never_saw_is_flagged(tmp_path: Path) -> None:
    script = tmp_path / "own_trace.py"
    script.write_text(
        "import os\nfrom gate import Recorder\n"
        "rec = Recorder()\n"
        "rec.search(lambda q: {'results': [{'title': 't', 'url': 'https://example.org/', 'snippet': ''}]},"
        " provider='trace')('euro adoption, asked of the live API')\n"
        "rec.answer('Estonia.')\nrec.save()\n", encoding="utf-8")
    golden = make_golden(tmp_path / "set", [EURO])
    assert main(["run", str(golden), "--", sys.executable, str(script)]) == 0
    assert _trace(golden)["replay"]["unserved_searches"] == ["euro adoption, asked of the live API"]
    [found] = [f for f in _result(golden).hard_failures if f.check == "unserved_search"]
    assert "'euro adoption, asked of the live API'" in found.message


@pytest.mark.skipif(NODE is None, reason="needs node")
def test_node_fetch_of_an_unrecorded_page_at_its_own_url_is_a_miss(tmp_path: Path) -> None:
    script = tmp_path / "agent.mjs"
    script.write_text(
        "const replay = process.env.SOURCEGATE_REPLAY_URL;\n"
        "const q = new URLSearchParams({provider: 'trace', q: 'EU member states adopted euro after 2010'});\n"
        "const served = await fetch(`${replay}/search?${q}`);\n"
        "if (!served.ok) throw new Error(`replay: ${served.status}`);\n"
        "const live = await fetch('https://www.example.org/unrecorded').then(r => r.status, e => e.message);\n"
        "console.error(`live: ${live}`);\n"
        "console.log(JSON.stringify({answer: 'Estonia.'}));\n", encoding="utf-8")
    golden = make_golden(tmp_path / "set", [EURO])
    assert main(["run", str(golden), "--", str(NODE), str(script)]) == 0
    trace = _trace(golden)
    assert trace["queries"] == ["EU member states adopted euro after 2010"]
    assert [(m["layer"], m["key"]) for m in trace["replay"]["misses"]] == [("pages", "https://www.example.org/unrecorded")]
