"""An agent with Exa's official client (``exa-py``): search (with the page text, its default), then contents."""

from common import BASE_URL, answer, plan
from exa_py import Exa

steps = plan()
exa = Exa(api_key="exa-replay", base_url=BASE_URL)
errors = []
for query in steps["search"]:
    try:
        found = exa.search(query, **steps.get("options", {}))
        assert all(r.url for r in found.results)
    except ValueError as e:  # exa-py's error for a status >= 400
        errors.append(f"{type(e).__name__}: {e}")
if steps.get("read"):
    pages = exa.get_contents(steps["read"])
    errors += [f"failed: {s.id}" for s in pages.statuses if s.status != "success"]
answer(steps, errors)
