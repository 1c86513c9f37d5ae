"""``paraphrase_drift``: which sentence each citation supports, how far it drifted from the cited
page, its soft default, and the calibration figures the docs report (pinned from the fixture)."""

from __future__ import annotations

import random

import pytest

from gate.checks.paraphrase_drift import MAX_SENTENCE_CHARS, drift, names_of, sentence_drift
from gate.checks.passage import NUMBER, normalise
from gate.config import Config, config_from_dict
from gate.errors import InputError
from gate.files.jsonio import validate
from gate.model import Case, Page, Run, SearchResult
from gate.score.evaluate import evaluate_run
from gate.urls.supported import cited_sentences
from tests import calibrate_drift

PAGE = ("Jupiter is the fifth planet from the Sun and the largest in the Solar System. Jupiter has 95 known "
        "moons, including the four large Galilean moons discovered by Galileo Galilei in 1610.")


def test_a_marker_supports_the_sentence_it_ends() -> None:
    answer = ("Jupiter has 95 moons [1]. Galileo found four of them.[2] Both agree [1][2].\n"
              "- A list item citing a [page](https://c.example/x).\n\n"
              "1. https://a.example/one\n2. https://b.example/two\n")
    found = [(s.text, s.urls) for s in cited_sentences(answer)]
    assert found == [
        ("Jupiter has 95 moons.", ("https://a.example/one",)),
        ("Galileo found four of them.", ("https://b.example/two",)),
        ("Both agree.", ("https://a.example/one", "https://b.example/two")),
        ("A list item citing a page.", ("https://c.example/x",)),
    ]


def test_markers_alone_after_a_sentence_and_emphasis_are_not_words() -> None:
    answer = "**Short answer:** moons `95` exist. [1]\n\n[1]: https://a.example/one\n"
    assert [(s.text, s.urls) for s in cited_sentences(answer)] == [("Short answer: moons 95 exist.",
                                                                    ("https://a.example/one",))]


def test_an_uncited_answer_has_no_cited_sentences() -> None:
    assert cited_sentences("Jupiter has 95 moons. No sources.") == []


def test_a_sentence_on_the_page_does_not_drift() -> None:
    d = drift("Jupiter has 95 known moons, including the four large Galilean moons.", PAGE)
    assert d.score < 10 and not d.numbers and not d.names
    assert "95 known moons" in d.passage


def test_a_name_is_on_the_page_only_as_a_whole_word_wherever_it_first_appears() -> None:
    sentence = "The survey was led by the agency of Gal in the Jovian system."
    only_inside = "Galilean moons were seen by the agency in the Jovian system, the survey led by it."
    assert drift(sentence, only_inside).names == ("Gal",)
    later_whole = only_inside + " Later, Gal led the survey of the Jovian system for the agency."
    assert drift(sentence, later_whole).names == ()
    sentence_numbers = "The survey of the Jovian system was led by the agency in 2016."
    assert drift(sentence_numbers, later_whole).numbers == ("2016",)
    assert drift(sentence_numbers, later_whole + " It began in 2016.").numbers == ()


def test_a_changed_number_or_name_is_reported_however_close_the_rest_is() -> None:
    d = drift("Jupiter has 97 known moons, including the four large Galilean moons.", PAGE)
    assert d.numbers == ("97",)
    d = drift("Jupiter has 95 known moons, including the four large moons found by Cassini.", PAGE)
    assert d.names == ("Cassini",)


@pytest.mark.parametrize("seed", range(4))
def test_a_number_is_on_the_page_when_it_is_one_of_the_numbers_the_passage_rule_reads_there(seed: int) -> None:
    # Pages of digits, separators and words, and numbers of the same stuff: "1,234" is one number on
    # "1,234.5"'s page only if it stands alone there, never as a part of a longer number.
    rng = random.Random(seed)
    stuff = "0123456789.,x -٣"
    for _ in range(2000):
        page = "".join(rng.choice(stuff) for _ in range(rng.randint(0, 40)))
        on_page = set(NUMBER.findall(page))
        for n in {*NUMBER.findall("".join(rng.choice(stuff) for _ in range(16))), *sorted(on_page)[:2]}:
            found = drift(f"it was {n}", page, page_is_normalised=True).numbers
            assert found == (() if n in on_page else (n,)), (n, page)


def test_names_skip_first_words_and_closing_attributions() -> None:
    assert names_of("Moons of Jupiter were found by Galileo in Padua (NASA; ESA).") == ("Jupiter", "Galileo", "Padua")
    assert names_of("The UN's vote") == ("UN",)


def test_a_sentence_unlike_the_page_drifts_far() -> None:
    assert drift("Its moons hold oceans of liquid methane under frozen crusts.", PAGE).score > 50


def test_an_empty_page_is_total_drift_and_an_empty_sentence_none() -> None:
    assert drift("Jupiter has 95 moons.", "").score == 100.0
    assert drift("  ", PAGE).score == 0.0


def test_work_is_bounded_by_the_sentence_cap() -> None:
    long = "Jupiter has 95 known moons. " * 100
    assert drift(long, PAGE).score == drift(long[:MAX_SENTENCE_CHARS], PAGE).score


def test_a_sentence_may_draw_its_numbers_from_any_page_it_cites() -> None:
    pages = [("https://a.example/", normalise(PAGE)), ("https://b.example/", "saturn has 274 moons.")]
    url, d = sentence_drift("Jupiter has 95 moons and Saturn 274.", pages)
    assert d.numbers == () and url == "https://a.example/"


def _run(answer: str) -> Run:
    url = "https://science.example.gov/jupiter"
    return Run(case="c", question="q", answer=answer,
               results=(SearchResult(query=0, position=1, title="t", url=url, snippet="s"),),
               pages=(Page(url=url, status=200, text=PAGE),))


def test_soft_by_default_a_warning_hard_when_configured() -> None:
    run = _run("Jupiter has 102 known moons [1].\n\n[1]: https://science.example.gov/jupiter\n")
    case = Case(id="c", question="q")
    soft = evaluate_run(run, case, Config())
    assert not soft.hard_failures
    assert [w.kind for w in soft.warnings] == ["paraphrase_drift"]
    assert "102" in soft.warnings[0].message
    assert {s.check: s.status for s in soft.checks}["paraphrase_drift"] == "warn"
    hard = evaluate_run(run, case, config_from_dict({"checks": {"paraphrase_drift": {"block": True}}}))
    assert [f.check for f in hard.hard_failures] == ["paraphrase_drift"]
    assert {s.check: s.status for s in hard.checks}["paraphrase_drift"] == "fail"


def test_the_threshold_is_configurable_and_checked() -> None:
    assert config_from_dict({"checks": {"paraphrase_drift": {"max_drift": 70}}}).drift_max == 70.0
    with pytest.raises(InputError, match="max_drift"):
        validate({"checks": {"paraphrase_drift": {"max_drift": 170}}}, "config", "sourcegate.yaml")
    with pytest.raises(InputError):
        validate({"checks": {"paraphrase_drift": {"treshold": 50}}}, "config", "sourcegate.yaml")


def test_calibration_figures_are_the_documented_ones() -> None:
    claims = calibrate_drift.load_claims()
    rows = calibrate_drift.table(claims)
    assert (len(claims), rows[0].unsupported) == (202, 69)
    chosen = calibrate_drift.choose(rows)
    assert (chosen.max_drift, chosen.flagged, chosen.true_flags) == (50.0, 75, 30)
    assert round(chosen.precision, 3) == 0.4 and round(chosen.recall, 3) == 0.435
    # Below the 0.9 precision a hard check needs: the default is soft, at the chosen threshold.
    assert chosen.precision < 0.9
    assert Config().drift_max == chosen.max_drift and Config().drift_block is False
