"""Text the gate shows, made safe: the one escaping of untrusted text for markdown, logs and terminals
(``escape``), the hidden marker that finds the gate's own comment and issue (``marker``), and
"did you mean" (``suggest``).
"""
