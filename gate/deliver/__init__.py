"""Delivery: the only writers of a report. One set's files, all or nothing, its job summary, PR
comment, spans and verdict line (``delivery``); the comment of a report artifact (``comment``);
the job summary file and the PR comment as GitHub takes them (``publish``); what a person sees on
the terminal (``console``); and every output path checked before any work (``targets``). Both doors,
``gate.commands`` and ``gate.action``, call it; neither imports the other.
"""
