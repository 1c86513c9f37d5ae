"""An agent with Tavily's official client (``tavily-python``): search, then extract what it reads."""

from common import BASE_URL, answer, plan
from tavily import TavilyClient
from tavily.errors import BadRequestError

steps = plan()
client = TavilyClient(api_key="tvly-replay", api_base_url=BASE_URL)
errors = []
for query in steps["search"]:
    try:
        found = client.search(query, **steps.get("options", {}))
        assert isinstance(found["results"], list)
    except BadRequestError as e:
        errors.append(f"{type(e).__name__}: {e}")
if steps.get("read"):
    pages = client.extract(steps["read"])
    errors += [f"failed: {f['url']}" for f in pages["failed_results"]]
if steps.get("crawl"):
    try:
        client.crawl(steps["crawl"])
    except BadRequestError as e:
        errors.append(f"{type(e).__name__}: {e}")
answer(steps, errors)
