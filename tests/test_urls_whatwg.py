"""URL keys held to the WHATWG URL Standard's test suite (web-platform-tests' ``urltestdata.json``).

Every absolute http(s) input that browsers accept must get the key of the ``href`` a browser makes of
it, except for the spellings listed in ``EXCEPTIONS``, each with the reason it is accepted. For
inputs browsers reject, ``canonical`` must not raise, and distinct inputs keep distinct keys.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from gate.urls import canonical

FIXTURE = Path(__file__).parent / "fixtures" / "urls" / "urltestdata.json"
# The URL parser ignores leading and trailing C0 controls and spaces.
_C0_SPACE = "".join(chr(i) for i in range(0x21))
_WEB = re.compile(r"https?://", re.IGNORECASE)


def _absolute_web(entry: object) -> bool:
    return isinstance(entry, dict) and _WEB.match(entry["input"].strip(_C0_SPACE)) is not None


ENTRIES: list[dict[str, Any]] = [e for e in json.loads(FIXTURE.read_text("utf-8")) if _absolute_web(e)]
ACCEPTED = [e for e in ENTRIES if not e.get("failure")]
REJECTED = [e for e in ENTRIES if e.get("failure")]

NUMERIC_IPV4 = (
    "browsers read a host ending in a number as an IPv4 address, in decimal, octal or hex and with one to "
    "four parts; no search engine or page writes an address so, and a key that keeps such a spelling "
    "apart can only miss a match, never make a false one"
)
PERCENT_ENCODED_HOST = (
    "browsers percent-decode a host before mapping it; decoding would let an encoded '/', '@' or '?' "
    "(ho%2Fst) turn an invalid host into another URL's key, and no search engine returns such hosts"
)
EXCEPTIONS = {
    "http://192.0x00A80001": NUMERIC_IPV4,
    "http://\uff10\uff38\uff43\uff10\uff0e\uff10\uff12\uff15\uff10\uff0e\uff10\uff11": NUMERIC_IPV4,
    "http://192.168.257": NUMERIC_IPV4,
    "http://192.168.257.": NUMERIC_IPV4,
    "http://256": NUMERIC_IPV4,
    "http://999999999": NUMERIC_IPV4,
    "http://999999999.": NUMERIC_IPV4,
    "http://4294967295": NUMERIC_IPV4,
    "http://0xffffffff": NUMERIC_IPV4,
    "https://0x.0x.0": NUMERIC_IPV4,
    "http://%30%78%63%30%2e%30%32%35%30.01": PERCENT_ENCODED_HOST,
    "http://%30%78%63%30%2e%30%32%35%30.01%2e": PERCENT_ENCODED_HOST,
    "https://%e2%98%83": PERCENT_ENCODED_HOST,
}


def test_the_suite_holds_the_cases_it_is_measured_on() -> None:
    assert (len(ACCEPTED), len(REJECTED)) == (141, 183)
    assert set(EXCEPTIONS) <= {e["input"] for e in ACCEPTED}


AGREEING = [e for e in ACCEPTED if e["input"] not in EXCEPTIONS]


@pytest.mark.parametrize("entry", AGREEING, ids=[repr(e["input"])[1:40] for e in AGREEING])
def test_an_accepted_url_and_its_browser_form_share_a_key(entry: dict[str, Any]) -> None:
    assert canonical(entry["input"]) == canonical(entry["href"])


@pytest.mark.parametrize("url", sorted(EXCEPTIONS))
def test_an_exception_is_still_one(url: str) -> None:
    # When the key learns one of these spellings, the exception goes from the list.
    href = next(e["href"] for e in ACCEPTED if e["input"] == url)
    assert canonical(url) != canonical(href)


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

