"""JUnit XML for test-report tooling: one test case per run and check. Pure.

Layout: a ``<testsuite>`` per golden set; in it one ``<testcase classname="sourcegate.<set>.<case>"
name="<check>">`` per run and hard check: ``<failure>`` for each finding of a failed check,
``<skipped>`` for a check that was not checked or is disabled, and ``<error>`` for a case whose run
is missing or unknown. Under ``compare.block_on: new``, a check whose every finding the baseline
already had does not block, so it is ``<skipped>`` with that reason, not a failure: test-report
tools then show the colour of the verdict; a check with a new finding fails and lists only those.
A baseline case this run does not have, decided by its baseline result (a baseline read at the base
revision), has one test case per check it failed in the baseline: failed under ``compare.block_on:
all``, skipped under ``new``, each saying the case is not in this run.
With a baseline, a second suite ``<set>.figures`` has one test case per soft set figure, failed
when the gate's decision says it blocks. Text that XML 1.0 cannot carry (control
characters) is removed; everything else is escaped by the XML writer.

Untrusted text (names, URLs, messages) goes through :func:`gate.text.escape.plain`: one line
each, so a URL or message with a line break cannot start a line of ``--junit -`` output that the
Actions runner would read as a workflow command. Findings in an element's text are one line each.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from gate.results import INPUT_ERROR, CaseResult
from gate.text.escape import plain
from gate.verdict.compare import Comparison
from gate.verdict.report import Report

__all__ = ["JUnitReporter"]

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _x(text: str) -> str:
    """Untrusted text as one line that XML 1.0 can carry."""
    return _NOT_XML.sub("", plain(text))


def _case_tests(suite: ET.Element, golden: str, c: CaseResult, cmp: Comparison | None) -> None:
    classname = _x(f"sourcegate.{golden}.{c.id}")
    problems = [f for f in c.hard_failures if f.check == INPUT_ERROR]
    if problems:
        tc = ET.SubElement(suite, "testcase", classname=classname, name=INPUT_ERROR, time="0")
        ET.SubElement(tc, "error", message=_x(problems[0].message), type=INPUT_ERROR).text = "\n".join(
            _x(f.message) for f in problems)
    for s in c.checks:
        tc = ET.SubElement(suite, "testcase", classname=classname, name=_x(s.check), time="0")
        found = [f for f in c.hard_failures if f.check == s.check]
        blocking = [f for f in found if cmp is None or cmp.blocks(c.id, f)]
        if s.status == "fail" and found and not blocking:
            ET.SubElement(tc, "skipped", message=_x(
                f"{len(found)} {s.check} failure(s) the baseline already had: not blocking "
                f"(compare.block_on is new): {found[0].message}"))
        elif s.status == "fail":
            found = blocking or found
            first = found[0] if found else None
            el = ET.SubElement(tc, "failure", type=_x(s.check),
                               message=_x(first.message if first else f"{s.check} failed"))
            el.text = "\n".join(f"{_x(f.url or '-')}: {_x(f.message)}" for f in found)
        elif s.status in ("not_checked", "disabled"):
            ET.SubElement(tc, "skipped", message=_x(s.reason or s.status))


def _removed_tests(suite: ET.Element, golden: str, cmp: Comparison) -> None:
    """The checks that removed cases failed in the baseline: they still decide (see the module docstring)."""
    for removed in cmp.removed_results:
        classname = _x(f"sourcegate.{golden}.{removed.id}")
        for check in dict.fromkeys(f.check for f in removed.failures):
            found = [f for f in removed.failures if f.check == check]
            tc = ET.SubElement(suite, "testcase", classname=classname, name=_x(check), time="0")
            why = (f"{len(found)} {check} failure(s) of a baseline case not in this run, decided by its "
                   "baseline result")
            if cmp.block_on == "new":
                ET.SubElement(tc, "skipped", message=_x(f"{why}: not blocking (compare.block_on is new)"))
            else:
                el = ET.SubElement(tc, "failure", type=_x(check), message=_x(f"{why}: {found[0].message}"))
                el.text = "\n".join(f"{_x(f.url or '-')}: {_x(f.message)}" for f in found)


def _count(suite: ET.Element) -> None:
    cases = suite.findall("testcase")
    suite.set("tests", str(len(cases)))
    for tag, attr in (("failure", "failures"), ("error", "errors"), ("skipped", "skipped")):
        suite.set(attr, str(sum(1 for tc in cases if tc.find(tag) is not None)))
    suite.set("time", "0")


class JUnitReporter:
    """Renders the report as JUnit XML."""

    def render(self, report: Report) -> str:
        """``<testsuites>`` with the hard-check suite and, with a baseline, the figures suite."""
        root = ET.Element("testsuites", name="sourcegate")
        suite = ET.SubElement(root, "testsuite", name=_x(report.golden_name))
        for c in report.cases:
            _case_tests(suite, report.golden_name, c, report.comparison)
        cmp = report.comparison
        if cmp is not None:
            _removed_tests(suite, report.golden_name, cmp)
        _count(suite)
        if cmp is not None:
            figs = ET.SubElement(root, "testsuite", name=_x(f"{report.golden_name}.figures"))
            for f in cmp.figures:
                tc = ET.SubElement(figs, "testcase", classname=_x(f"sourcegate.{report.golden_name}.figures"),
                                   name=_x(f.key), time="0")
                if f.status is not None and f.status.status == "blocking":
                    ET.SubElement(tc, "failure", type="soft_regression", message=_x(f.status.why))
                elif f.status is None or f.status.status == "n/a":
                    ET.SubElement(tc, "skipped", message="no value in this run")
            _count(figs)
        for attr in ("tests", "failures", "errors", "skipped"):
            root.set(attr, str(sum(int(s.get(attr, "0")) for s in root.findall("testsuite"))))
        ET.indent(root)
        return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
