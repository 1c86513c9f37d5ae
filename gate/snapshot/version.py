"""Bump a golden set's ``version`` in ``golden.yaml``, changing that one line and nothing else.

A baseline is tied to the golden set's version: when a recording session changes the snapshot,
the web the baseline was measured on is gone, so the version goes up and the baseline has to be
recorded again. ``golden.yaml`` is written by people, with comments and their own layout, so it
is not re-serialised: the one top-level ``version: N`` line is rewritten to ``version: N+1``,
with a comment saying why (a comment already on that line is kept instead). The new text is
parsed again and must hold the same golden set with only the version changed before it is
written (atomically, through :func:`gate.files.outputs.write_file`). A ``version`` written any other
way (quoted, in flow style, twice) is an input error asking for the bump by hand.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from gate.errors import InputError
from gate.files.jsonio import parse_yaml, read_text, validate
from gate.files.outputs import write_file
from gate.load.golden import GOLDEN_NAME

NOTE = "# the snapshot changed: record the baseline again (sourcegate baseline update)"
_LINE = re.compile(r"^version:[ \t]*(?P<value>[0-9]+)(?P<rest>[ \t]*(?:#.*)?)$", re.MULTILINE)


@dataclass(frozen=True)
class VersionBump:
    """A golden set's version before and after, and the file that holds it."""

    file: str
    old: int
    new: int

    def describe(self) -> str:
        """One line for the end of a session."""
        return (f"{self.file}: version {self.old} -> {self.new}; the baseline was measured on the old "
                "snapshot: record it again with `sourcegate baseline update`")


def bumped_text(text: str, file: str) -> tuple[str, int, int]:
    """``text`` with its version line raised by one, the old and the new version (pure)."""
    found = list(_LINE.finditer(text))
    if len(found) != 1:
        raise InputError("cannot bump the version: expected one top-level line `version: N`, found "
                         f"{len(found)}; raise the version by hand", file=file, path="$.version")
    line = found[0]
    old = int(line["value"])
    rest = line["rest"].strip()
    comment = rest if rest and rest != NOTE else NOTE
    new_text = f"{text[:line.start()]}version: {old + 1}  {comment}{text[line.end():]}"
    before, after = parse_yaml(text, file), parse_yaml(new_text, file)
    if not isinstance(before, dict) or before.get("version") != old or \
            after != {**before, "version": old + 1}:
        raise InputError("cannot bump the version: the `version:` line is not the golden set's version; "
                         "raise the version by hand", file=file, path="$.version")
    return new_text, old, old + 1


def bump_version(golden_root: str) -> VersionBump | None:
    """Raise ``golden_root``'s version by one (None when it has no golden.yaml); InputError when unsafe."""
    file = os.path.join(golden_root, GOLDEN_NAME)
    if not os.path.isfile(file):
        return None
    new_text, old, new = bumped_text(read_text(file, root=golden_root, kind="YAML"), file)
    validate(parse_yaml(new_text, file), "golden", file)
    write_file(file, new_text, within=golden_root)
    return VersionBump(file, old, new)
