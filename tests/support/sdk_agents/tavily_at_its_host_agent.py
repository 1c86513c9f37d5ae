"""An agent with Tavily's official client at its default host (``TavilyClient()``: https://api.tavily.com,
its key from ``TAVILY_API_KEY``): search, extract the first page it reads, and GET the others at their own
URLs with ``requests``. Nothing in it names sourcegate or a base URL."""

import requests
from common import answer, plan
from tavily import TavilyClient

steps = plan()
client = TavilyClient()
for query in steps["search"]:
    found = client.search(query)
    assert isinstance(found["results"], list)
first, *others = steps["read"]
extracted = client.extract([first])
errors = [f"failed: {f['url']}" for f in extracted["failed_results"]]
for url in others:
    page = requests.get(url, timeout=30)
    if page.status_code != 200:
        errors.append(f"HTTP {page.status_code}: {url}")
answer(steps, errors)
