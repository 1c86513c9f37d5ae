"""The terminal: when to use colour (``color``) and how long work shows its progress on stderr
(``progress``: a bar on a terminal, plain lines in CI logs, nothing with ``-q``).
"""
