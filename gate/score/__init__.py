"""Scoring one case: its run, the hard checks' findings and the judge's judgement become a
:class:`~gate.results.CaseResult` with the four-axis vector (``evaluate``, ``figures``), citation
validity per claim and cited URL (``alignment``) and the warnings that never fail it
(``case_warnings``). Pure, but for ``workers``: the same evaluation of a set's runs spread over
worker processes (``check --jobs``), which read the traces there.
"""
