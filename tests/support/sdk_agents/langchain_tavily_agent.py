"""An agent with LangChain's Tavily tools (``langchain-tavily``): the tools as a LangChain agent calls them."""

from common import BASE_URL, answer, plan
from langchain_tavily import TavilyExtract, TavilySearch

steps = plan()
search = TavilySearch(max_results=5, api_base_url=BASE_URL, tavily_api_key="tvly-replay")
extract = TavilyExtract(api_base_url=BASE_URL, tavily_api_key="tvly-replay")
errors = []
for query in steps["search"]:
    found = search.invoke({"query": query})
    if "error" in found:  # the tool hands the model its error instead of raising
        errors.append(str(found["error"]))
if steps.get("read"):
    pages = extract.invoke({"urls": steps["read"]})
    errors += [f"failed: {f['url']}" for f in pages.get("failed_results", [])]
answer(steps, errors)
