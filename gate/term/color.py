"""Whether terminal output is coloured: ``--color``, then ``NO_COLOR``, then ``FORCE_COLOR``, then the terminal.

The order is the one of the conventions themselves (https://no-color.org, https://force-color.org)
and of the tools that follow them: an explicit ``--color always|never`` wins; with ``auto`` (the
default) a non-empty ``NO_COLOR`` turns colour off, else a non-empty ``FORCE_COLOR`` turns it on
(CI logs render ANSI colours though they are no terminal), else colour is on when the output is a
terminal that is not ``TERM=dumb``. Pure: the caller passes the environment and ``isatty()``.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["COLOR_CHOICES", "use_color"]

COLOR_CHOICES = ("auto", "always", "never")


def use_color(choice: str, env: Mapping[str, str], isatty: bool) -> bool:
    """True when output should be coloured (see the module docstring for the order of the rules)."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR"):
        return True
    return isatty and env.get("TERM") != "dumb"
