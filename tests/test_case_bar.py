"""The cases under the base revision's bar (gate/load/basecases.py) and what a pull request changes in
them (gate/verdict/casediff.py), as plain values. The attacks through real repositories are in
tests/test_trust.py."""

from __future__ import annotations

from gate.config import Config
from gate.load.basecases import under_base
from gate.model import Case, GoldenSet
from gate.verdict.casediff import case_changes

BASE = (Case("a", "q a?", cls="synthesis", freshness="fast", about_domains=("python.org",), constraints=("UK",)),
        Case("b", "q b?", cls="medical", entities=("NHS",)),
        Case("c", "q c?", cls="lookup"))


def _changes(*pr: Case) -> dict[str, tuple[object, object, str]]:
    return {c.setting: (c.base, c.pr, c.effect) for c in case_changes(Config(), BASE, pr)}


def test_a_case_the_base_has_keeps_the_bases_fields_that_decide_checks_and_the_prs_question() -> None:
    pr = GoldenSet("s", 1, (Case("a", "reworded?", cls="lookup", freshness="insensitive", about_domains=("bbc.com",)),
                            Case("new", "added?", cls="lookup"), Case("c", "q c?", cls="lookup")))
    got = under_base(pr, BASE)
    assert [c.id for c in got.cases] == ["a", "new", "c", "b"]  # the removed case last, as the base defines it
    assert got.cases[0] == Case("a", "reworded?", cls="synthesis", freshness="fast", about_domains=("python.org",),
                                constraints=("UK",))
    assert got.cases[1] == Case("new", "added?", cls="lookup")  # a case the base lacks is the pull request's
    assert got.cases[3] == BASE[1] and got.kept_from_base == frozenset({"b"})


def test_each_changed_field_is_a_row_marked_as_it_moves_the_bar() -> None:
    assert _changes(Case("a", "q a?", cls="lookup", freshness="insensitive", about_domains=("python.org", "bbc.com")),
                    Case("b", "q b?", cls="lookup", entities=("NHS",)), BASE[2]) == {
        "cases.a.class": ("synthesis", "lookup", "weakening"),  # a floor of 4 domains down to 1
        "cases.a.freshness": ("fast", "insensitive", "weakening"),  # 90 days down to no limit
        "cases.a.about_domains": ("python.org", "python.org, bbc.com", "weakening"),
        "cases.a.constraints": ("UK", None, "weakening"),
        "cases.b.class": ("medical", "lookup", "weakening"),  # no longer needs a primary source
    }
    assert _changes(Case("a", "q a?", cls="synthesis", freshness="realtime", about_domains=(),
                         constraints=("UK", "2026")), BASE[1], Case("c", "q c?", cls="medical")) == {
        "cases.a.freshness": ("fast", "realtime", "tightening"),
        "cases.a.about_domains": ("python.org", None, "tightening"),
        "cases.a.constraints": ("UK", "UK, 2026", "tightening"),
        "cases.c.class": ("lookup", "medical", "tightening"),
    }


def test_a_removed_case_is_a_weakening_and_an_unchanged_one_is_not_listed() -> None:
    assert _changes(*BASE) == {}
    assert _changes(BASE[0], BASE[2]) == {"cases.b": ("defined", "removed", "weakening")}
