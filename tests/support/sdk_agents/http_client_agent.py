"""An agent with a plain HTTP client at the real addresses: ``python http_client_agent.py CLIENT``.

It searches a provider's REST API at the provider's own host, then reads each page at its own URL,
as a team writes it: the client's defaults, no base URL, nothing of sourcegate. The run's proxy and
certificate variables are all that bring it to the frozen web. Each client asks a provider of its own:

    requests   Tavily   POST https://api.tavily.com/search
    httpx      Brave    GET  https://api.search.brave.com/res/v1/web/search
    urllib     Serper   POST https://google.serper.dev/search
    aiohttp    Serply   GET  https://api.serply.io/v1/search/q=...   (ClientSession(trust_env=True))
    curl       SerpApi  GET  https://serpapi.com/search.json          (the curl binary)

A page read with a status other than 200 is said in the answer (``HTTP 404: URL``).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from common import answer, plan

Search = Callable[[str], Any]
Read = Callable[[str], int]


def _requests() -> tuple[Search, Read]:
    import requests

    def search(query: str) -> Any:
        reply = requests.post("https://api.tavily.com/search", json={"query": query},
                              headers={"Authorization": "Bearer tvly-replay"}, timeout=30)
        reply.raise_for_status()
        return reply.json()

    return search, lambda url: requests.get(url, timeout=30).status_code


def _httpx() -> tuple[Search, Read]:
    import httpx2 as httpx

    def search(query: str) -> Any:
        reply = httpx.get("https://api.search.brave.com/res/v1/web/search", params={"q": query},
                          headers={"X-Subscription-Token": "brave-replay"}, timeout=30)
        reply.raise_for_status()
        return reply.json()

    return search, lambda url: httpx.get(url, timeout=30).status_code


def _urllib() -> tuple[Search, Read]:
    def search(query: str) -> Any:
        request = urllib.request.Request("https://google.serper.dev/search", data=json.dumps({"q": query}).encode(),
                                         headers={"X-API-KEY": "serper-replay", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as reply:
            return json.load(reply)

    def read(url: str) -> int:
        try:
            with urllib.request.urlopen(url, timeout=30) as reply:
                reply.read()
                return int(reply.status)
        except urllib.error.HTTPError as e:
            return e.code

    return search, read


def _aiohttp() -> tuple[Search, Read]:
    import aiohttp

    async def search(query: str) -> Any:
        async with aiohttp.ClientSession(trust_env=True) as session, session.get(
                "https://api.serply.io/v1/search/" + urlencode({"q": query}),
                headers={"X-Api-Key": "serply-replay"}) as reply:
            reply.raise_for_status()
            return await reply.json()

    async def read(url: str) -> int:
        async with aiohttp.ClientSession(trust_env=True) as session, session.get(url) as reply:
            await reply.read()
            return reply.status

    return lambda query: asyncio.run(search(query)), lambda url: asyncio.run(read(url))


def _curl() -> tuple[Search, Read]:
    def search(query: str) -> Any:
        url = "https://serpapi.com/search.json?" + urlencode({"q": query, "api_key": "serpapi-replay"})
        return json.loads(subprocess.run(["curl", "-sSf", url], capture_output=True, check=True, text=True).stdout)

    def read(url: str) -> int:
        done = subprocess.run(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", url],
                              capture_output=True, check=True, text=True)
        return int(done.stdout)

    return search, read


CLIENTS = {"requests": _requests, "httpx": _httpx, "urllib": _urllib, "aiohttp": _aiohttp, "curl": _curl}

steps = plan()
search, read = CLIENTS[sys.argv[1]]()
for query in steps["search"]:
    search(query)
errors = []
for url in steps["read"]:
    status = read(url)
    if status != 200:
        errors.append(f"HTTP {status}: {url}")
answer(steps, errors)
