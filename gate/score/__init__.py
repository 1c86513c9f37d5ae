"""Scoring one case: its run, the hard checks' findings and the judge's judgement become a
:class:`~gate.results.CaseResult` with the four-axis vector (``evaluate``, ``figures``), citation
validity per claim and cited URL (``alignment``) and the warnings that never fail it
(``case_warnings``). Pure.
"""
