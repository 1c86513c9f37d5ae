"""What the gate keeps between runs and jobs: the saved report format (``serialise``), a report's cases
spilled to a file past a few hundred (``casestore``), reading a saved report a case at a time
(``reportstream``), the baseline file (``baseline``), and partial reports merged back into one run
(``merge``), each case re-derived from its trace before it counts (``rederive``).
"""
