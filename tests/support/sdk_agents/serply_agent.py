"""An agent with Serply's official client (``serply``), its pages read with a plain GET."""

import requests
from common import BASE_URL, answer, plan
from serply import Serply

steps = plan()
client = Serply("serply-replay")
client.base_url = BASE_URL + "/"  # the client joins paths to its base URL as given
errors = []
for query in steps["search"]:
    found = client.search(query)
    if "error" in found:  # how the client reports a failed request
        errors.append(found["error"])
for url in steps.get("read", []):
    requests.get(f"{BASE_URL}/page", params={"url": url}, timeout=10).raise_for_status()
answer(steps, errors)
