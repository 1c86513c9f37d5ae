"""URL keys held to the WHATWG URL Standard's test suite (web-platform-tests' ``urltestdata.json``).

Every absolute http(s) input that browsers accept must get the key of the ``href`` a browser makes of
it, and record mode must fetch it from the host and port a browser reaches, the host the checks judge
it by. For inputs browsers reject, ``canonical`` must not raise, distinct inputs keep distinct keys,
and record mode refuses to fetch them.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from gate.urls import canonical, host
from gate.urls.weburl import parse_web

FIXTURE = Path(__file__).parent / "fixtures" / "urls" / "urltestdata.json"
# The URL parser ignores leading and trailing C0 controls and spaces.
_C0_SPACE = "".join(chr(i) for i in range(0x21))
_WEB = re.compile(r"https?://", re.IGNORECASE)


def _absolute_web(entry: object) -> bool:
    return isinstance(entry, dict) and _WEB.match(entry["input"].strip(_C0_SPACE)) is not None


ENTRIES: list[dict[str, Any]] = [e for e in json.loads(FIXTURE.read_text("utf-8")) if _absolute_web(e)]
ACCEPTED = [e for e in ENTRIES if not e.get("failure")]
REJECTED = [e for e in ENTRIES if e.get("failure")]

def test_the_suite_holds_the_cases_it_is_measured_on() -> None:
    assert (len(ACCEPTED), len(REJECTED)) == (141, 183)


@pytest.mark.parametrize("entry", ACCEPTED, ids=[repr(e["input"])[1:40] for e in ACCEPTED])
def test_an_accepted_url_and_its_browser_form_share_a_key(entry: dict[str, Any]) -> None:
    # numeric IPv4 spellings (0x7f.1, 4294967295) and percent-encoded hosts included: no exceptions
    assert canonical(entry["input"]) == canonical(entry["href"])


@pytest.mark.parametrize("entry", ACCEPTED, ids=[repr(e["input"])[1:40] for e in ACCEPTED])
def test_an_accepted_url_is_fetched_from_the_host_and_port_browsers_reach(entry: dict[str, Any]) -> None:
    parsed = parse_web(entry["input"])
    assert (parsed.host, parsed.port) == (entry["hostname"], int(entry["port"]) if entry["port"] else None)
    # and the checks judge that same host: the browser's own form of the URL has the same one
    assert host(entry["input"]) == host(entry["href"]) == host(parsed.request_url())


@pytest.mark.parametrize("entry", REJECTED, ids=[repr(e["input"])[1:40] for e in REJECTED])
def test_a_rejected_url_is_never_fetched(entry: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        parse_web(entry["input"])


@pytest.mark.parametrize("entry", REJECTED, ids=[repr(e["input"])[1:40] for e in REJECTED])
def test_a_rejected_url_still_gets_a_key(entry: dict[str, Any]) -> None:
    assert isinstance(canonical(entry["input"]), str)


def _same_host_spelling(url: str) -> str:
    """A URL with its host's case and trailing dot ignored, as every key ignores them."""
    return re.sub(r"\.(?=/|$)", "", url.lower())


def test_rejected_urls_do_not_collapse_into_one_key() -> None:
    by_key: dict[str, set[str]] = defaultdict(set)
    for entry in REJECTED:
        by_key[canonical(entry["input"])].add(_same_host_spelling(entry["input"]))
    assert {key: inputs for key, inputs in by_key.items() if len(inputs) > 1} == {}

