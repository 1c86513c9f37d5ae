"""Where an answer cites (gate.urls.extract.citation_spans): offsets into the answer itself, so the
HTML report can mark each citation where it stands, fenced code and tables included."""

from __future__ import annotations

from gate.urls import extract_urls
from gate.urls.extract import citation_spans

A = "https://a.example/one"
B = "https://b.example/two"


def test_each_citation_is_found_where_it_stands() -> None:
    answer = (f"First [1]. Then [the review]({B}).\n\n```\nexample {A} in code\n```\n"
              f"| cell | {A} |\n|---|---|\n| x | <{B}> |\n\n[1]: {A}\n")
    spans = citation_spans(answer)
    assert [(answer[s:e], urls) for s, e, urls in spans] == [
        ("[1]", (A,)), (f"[the review]({B})", (B,)), (A, (A,)), (f"<{B}>", (B,)), (f"[1]: {A}", (A,))]


def test_the_urls_are_those_extract_urls_finds() -> None:
    answer = f"See [2] and {A}.\n\n1. {A}\n2. {B}\n"
    found = [u for _, _, urls in citation_spans(answer) for u in urls]
    assert list(dict.fromkeys(found)) == extract_urls(answer)


def test_brackets_that_cite_nothing_are_not_spans() -> None:
    assert citation_spans("A year [2019] and [sic], no sources.") == []
