"""An agent with Exa's official client at its default host (``Exa()``: https://api.exa.ai, its key from
``EXA_API_KEY``): search (with the pages' text, its default), fetch the first page's contents, and GET the
others at their own URLs with ``requests``. Nothing in it names sourcegate or a base URL."""

import requests
from common import answer, plan
from exa_py import Exa

steps = plan()
exa = Exa()
for query in steps["search"]:
    found = exa.search(query)
    assert all(r.url for r in found.results)
first, *others = steps["read"]
contents = exa.get_contents([first])
errors = [f"failed: {s.id}" for s in contents.statuses if s.status != "success"]
for url in others:
    page = requests.get(url, timeout=30)
    if page.status_code != 200:
        errors.append(f"HTTP {page.status_code}: {url}")
answer(steps, errors)
