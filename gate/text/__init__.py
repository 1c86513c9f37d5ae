"""Text the gate shows, made safe: the one escaping of untrusted text for markdown, logs and terminals
(``escape``), the hidden marker that finds the gate's own comment and issue (``marker``),
"did you mean" (``suggest``), and keys kept out of everything stored or printed (``redact``).
"""
