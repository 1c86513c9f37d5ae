"""Bump a golden set's ``version`` in ``golden.yaml``, or move its ``snapshot_at``, changing one line.

A baseline is tied to the golden set's version: when a recording session changes the snapshot,
the web the baseline was measured on is gone, so the version goes up and the baseline has to be
recorded again. ``golden.yaml`` is written by people, with comments and their own layout, so it
is not re-serialised: the one top-level ``version: N`` line is rewritten to ``version: N+1``,
with a comment saying why (a comment already on that line is kept instead, the bump's own
included, so a set recorded again and again keeps one note). The new text is parsed again and
must hold the same golden set with only the version changed before it is written (atomically,
through :func:`gate.files.outputs.write_file`). A ``version`` written any other way (quoted, in
flow style, twice) is an input error asking for the bump by hand.

``snapshot_at`` says when the set's web was recorded (the age the gate warns about). A recording of
every case afresh (``sourcegate run --record all``) moves it, the same way: its top-level line is
rewritten, its comment kept, or one is added after ``version`` when the file has none. Lines may
end in CRLF.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from gate.errors import InputError
from gate.files.jsonio import parse_yaml, read_text, validate
from gate.files.outputs import write_file
from gate.load.golden import GOLDEN_NAME

NOTE = "# the snapshot changed: record the baseline again (sourcegate baseline update)"
_LINE = re.compile(r"^version:[ \t]*(?P<value>[0-9]+)(?P<rest>[ \t]*(?:#[^\r\n]*)?)(?P<end>\r?)$", re.MULTILINE)
_STAMP = re.compile(r"^snapshot_at:(?P<value>[^#\r\n]*)(?P<rest>(?:#[^\r\n]*)?)(?P<end>\r?)$", re.MULTILINE)


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
    new_text = f"{text[:line.start()]}version: {old + 1}  {comment}{line['end']}{text[line.end():]}"
    _same_but(text, new_text, file, "version", old, old + 1, "cannot bump the version", "raise the version")
    return new_text, old, old + 1


def moved_stamp_text(text: str, file: str, at: datetime) -> tuple[str, str | None, str]:
    """``text`` with its ``snapshot_at`` at ``at`` (to the second, in UTC), the old and the new value (pure)."""
    new = at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    found = list(_STAMP.finditer(text))
    if len(found) > 1:
        raise InputError(f"cannot move snapshot_at: expected at most one top-level line `snapshot_at: ...`, found "
                         f"{len(found)}; set it to {new} by hand", file=file, path="$.snapshot_at")
    before = parse_yaml(text, file)
    old = before.get("snapshot_at") if isinstance(before, dict) else None
    if found:
        line = found[0]
        rest = f"  {line['rest']}" if line["rest"] else ""
        new_text = f'{text[:line.start()]}snapshot_at: "{new}"{rest}{line["end"]}{text[line.end():]}'
    else:
        versions = list(_LINE.finditer(text))
        if len(versions) != 1:
            raise InputError(f"cannot add snapshot_at: no one top-level line `version: N` to put it after; set it "
                             f"to {new} by hand", file=file, path="$.snapshot_at")
        line = versions[0]
        new_text = f'{text[:line.end()]}\nsnapshot_at: "{new}"{line["end"]}{text[line.end():]}'
    _same_but(text, new_text, file, "snapshot_at", old, new, "cannot move snapshot_at", f"set it to {new}")
    return new_text, found[0]["value"].strip().strip("'\"") if found else None, new


def _same_but(text: str, new_text: str, file: str, name: str, old: Any, new: Any, failed: str, by_hand: str) -> None:
    """Refuse ``new_text`` unless it holds the golden set of ``text`` with only ``name`` changed, ``old`` to ``new``."""
    before = parse_yaml(text, file)
    try:
        after = parse_yaml(new_text, file)
    except InputError:  # the line edited was inside something else (a quoted string): no YAML any more
        after = None
    if not isinstance(before, dict) or before.get(name) != old or after != {**before, name: new}:
        raise InputError(f"{failed}: the `{name}:` line is not the golden set's {name}; {by_hand} by hand",
                         file=file, path=f"$.{name}")


@dataclass(frozen=True)
class SnapshotAtMove:
    """A golden set's ``snapshot_at`` before (None: it had none) and after, and the file that holds it."""

    file: str
    old: str | None
    new: str

    def describe(self) -> str:
        """One line for the end of a recording."""
        return f"{self.file}: snapshot_at {self.old or '(none)'} -> {self.new}: every case was recorded afresh then"


def bump_version(golden_root: str) -> VersionBump | None:
    """Raise ``golden_root``'s version by one (None when it has no golden.yaml); InputError when unsafe."""
    file = os.path.join(golden_root, GOLDEN_NAME)
    if not os.path.isfile(file):
        return None
    new_text, old, new = bumped_text(read_text(file, root=golden_root, kind="YAML"), file)
    validate(parse_yaml(new_text, file), "golden", file)
    write_file(file, new_text, within=golden_root)
    return VersionBump(file, old, new)


def move_snapshot_at(golden_root: str, at: datetime) -> SnapshotAtMove | None:
    """Move ``golden_root``'s ``snapshot_at`` to ``at`` (None when it has no golden.yaml); InputError when unsafe."""
    file = os.path.join(golden_root, GOLDEN_NAME)
    if not os.path.isfile(file):
        return None
    new_text, old, new = moved_stamp_text(read_text(file, root=golden_root, kind="YAML"), file, at)
    validate(parse_yaml(new_text, file), "golden", file)
    write_file(file, new_text, within=golden_root)
    return SnapshotAtMove(file, old, new)
