"""The run the live-judge tests grade: a question about the Eiffel Tower, answered from two pages.

The answer makes four cited claims about the tower and Paris, and the two pages hold the facts.
:func:`make_run` swaps in another answer or adds a third page (an injection attempt, say).
"""

from __future__ import annotations

from gate.model import Page, Run, SearchResult

EIFFEL = "https://www.toureiffel.example/en/the-monument/key-figures"
PARIS = "https://www.insee.example/fr/statistiques/paris"
PAGE_EIFFEL = ("Key figures. The Eiffel Tower is 330 metres tall since the new antenna of 2022. "
               "It was completed in 1889 for the World's Fair.\n\n" + "Visitors queue at the pillars. " * 60)
PAGE_PARIS = ("Paris is the capital of France. The city had 2,102,650 inhabitants in 2021 according to the "
              "census. The Eiffel Tower is repainted every seven years.")
ANSWER = ("The Eiffel Tower is 330 metres tall [1]. It was completed in 1889 [1]. "
          "The tower is repainted every seven years [1]. Paris had 2,102,650 inhabitants in 2021 [2].\n\n"
          f"[1]: {EIFFEL}\n[2]: {PARIS}")


def make_run(answer: str = ANSWER, extra_page: str | None = None) -> Run:
    """The run with ``answer``, and ``extra_page`` as a third page read (from a blog) if given."""
    pages = [Page(EIFFEL, PAGE_EIFFEL, status=200), Page(PARIS, PAGE_PARIS, status=200)]
    if extra_page is not None:
        pages.append(Page("https://blog.example.net/notes", extra_page, status=200))
    results = tuple(SearchResult(0, i + 1, f"Result {i}", p.url, "") for i, p in enumerate(pages))
    return Run(case="eiffel", question="How tall is the Eiffel Tower, and when was it completed?",
               answer=answer, queries=("Eiffel Tower height completion year",), results=results,
               pages=tuple(pages))
