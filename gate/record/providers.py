"""The search-result parsers, by provider id: they live in :mod:`gate.snapshot.parsers`, where the replay
server reads recorded answers with them too; this name stays for the recorder's users."""

from gate.snapshot.parsers import PARSERS, ResultParser, detect, parse_results

__all__ = ["PARSERS", "ResultParser", "detect", "parse_results"]
