"""``domain_cap`` and ``domain_floor``: citations spread over enough distinct sites.

Sites are registered domains per the Public Suffix List, private section included, so
``news.bbc.co.uk`` and ``bbc.co.uk`` are one site and ``alice.github.io`` and
``bob.github.io`` are two.
"""

from __future__ import annotations

from collections import defaultdict

from gate.checks.base import Subject
from gate.model import Finding, Outcome
from gate.urls import host, is_under, registered_domain


def cited_domains(subject: Subject) -> dict[str, list[str]]:
    """Registered domain -> the distinct cited URLs on it, in citation order."""
    out: dict[str, list[str]] = defaultdict(list)
    for raw in subject.cited.values():
        out[registered_domain(host(raw))].append(raw)
    return dict(out)


def cap_breaches(subject: Subject) -> dict[str, list[str]]:
    """Registered domain -> its counted cited URLs, for each domain over ``domain_cap`` (``about_domains`` exempt)."""
    about = subject.case.about_domains
    out = {}
    for domain, urls in cited_domains(subject).items():
        counted = [u for u in urls if not any(is_under(host(u), a) for a in about)]
        if len(counted) > subject.config.domain_cap:
            out[domain] = counted
    return out


class DomainCap:
    """More than N distinct cited URLs on one site (the case's own sites are exempt)."""

    id = "domain_cap"
    description = "Too many citations share one registered domain."

    def run(self, subject: Subject) -> Outcome:
        """One finding per over-cited domain, naming the first URL over the cap."""
        if not subject.cited:
            return Outcome(not_checked="no citations")
        cap = subject.config.domain_cap
        findings = [
            Finding(self.id, f"{len(counted)} cited URLs on {domain} (cap {cap}): " + ", ".join(counted), counted[cap])
            for domain, counted in cap_breaches(subject).items()
        ]
        return Outcome(findings=tuple(findings))


class DomainFloor:
    """Fewer unique sites among the citations than the case's class needs."""

    id = "domain_floor"
    description = "Too few unique registered domains among the citations."

    def run(self, subject: Subject) -> Outcome:
        """A finding when the unique-domain count is under the class floor."""
        if not subject.cited:
            return Outcome(not_checked="no citations")
        floor = subject.config.floor_for(subject.case.cls)
        domains = cited_domains(subject)
        if len(domains) >= floor:
            return Outcome()
        cls = subject.case.cls or "unclassified"
        return Outcome(findings=(Finding(
            self.id,
            f"{len(domains)} unique domain(s) cited ({', '.join(domains)}); a {cls} case needs {floor}",
        ),))
