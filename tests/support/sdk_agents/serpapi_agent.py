"""An agent with SerpApi's official client (``serpapi``), its pages read with a plain GET."""

import requests
import serpapi
from common import BASE_URL, answer, plan

steps = plan()
client = serpapi.Client(api_key="serpapi-replay")
client.BASE_DOMAIN = BASE_URL  # the client's base URL is a class setting, as SerpApi documents
errors = []
for query in steps["search"]:
    try:
        found = client.search(q=query, engine="google", **steps.get("options", {}))
        assert "search_metadata" in found
    except serpapi.HTTPError as e:
        errors.append(f"{type(e).__name__}: {e.error}")
for url in steps.get("read", []):
    page = requests.get(f"{BASE_URL}/page", params={"url": url}, timeout=10)
    page.raise_for_status()
answer(steps, errors)
