"""What a saved report is checked against before it counts: the merge's re-derivation of partial reports
(:mod:`gate.store.rederive`)."""

from gate.store.rederive import rederive

__all__ = ["rederive"]
