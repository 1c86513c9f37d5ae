"""The verdict: the comparison with the baseline (``compare`` -> ``comparison`` values; ``figurediff``
for the set's figures, ``claimdiff`` for judged claims that flipped, ``configdiff`` for what a pull
request's configuration changes), what the verdict needs of the cases in one pass (``tally``), the
snapshot's own age (``goldenage``), and ``decide()``: the verdict and its reasons, called once per
set, into a :class:`~gate.verdict.report.Report`. Pure.
"""
