"""golden.yaml edited one line at a time: the version bumped, snapshot_at moved, the author's layout kept."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from gate.errors import InputError
from gate.snapshot.version import NOTE, bump_version, bumped_text, move_snapshot_at, moved_stamp_text

AT = datetime(2026, 12, 7, 5, 17, 42, 123456, tzinfo=UTC)
GOLDEN = """\
# news: re-recorded every week
format: sourcegate-golden/1
version: 4  # the snapshot changed: record the baseline again (sourcegate baseline update)
name: news
snapshot_at: 2026-10-15T09:00:00Z   # the first recording
resnapshot_days: 7
cases:
- id: a
  question: "snapshot_at: 2020 in a question is not the set's"
"""


def test_the_bumps_own_comment_is_kept_bump_after_bump() -> None:
    text, old, new = bumped_text(GOLDEN, "golden.yaml")
    assert (old, new) == (4, 5) and text == GOLDEN.replace("version: 4  ", "version: 5  ")
    assert bumped_text(text, "golden.yaml")[0].count(NOTE) == 1


def test_snapshot_at_moves_to_the_second_in_utc_and_keeps_its_comment() -> None:
    text, old, new = moved_stamp_text(GOLDEN, "golden.yaml", AT.astimezone(timezone(timedelta(hours=2))))
    assert (old, new) == ("2026-10-15T09:00:00Z", "2026-12-07T05:17:42Z")
    assert text == GOLDEN.replace("snapshot_at: 2026-10-15T09:00:00Z   # the first recording",
                                  'snapshot_at: "2026-12-07T05:17:42Z"  # the first recording')


def test_a_set_without_snapshot_at_gets_one_after_its_version_and_crlf_lines_stay_crlf() -> None:
    crlf = "version: 1\r\nname: x\r\ncases:\r\n- id: a\r\n  question: q\r\n"
    text, old, _ = moved_stamp_text(crlf, "golden.yaml", AT)
    stamped = 'version: 1\r\nsnapshot_at: "2026-12-07T05:17:42Z"\r\n'
    assert old is None and text == crlf.replace("version: 1\r\n", stamped)
    assert bumped_text(text, "golden.yaml")[0].startswith(f"version: 2  {NOTE}\r\nsnapshot_at:")


@pytest.mark.parametrize("text", [
    "version: 1\nsnapshot_at: '2026-01-01T00:00:00Z'\nname: x\nsnapshot_at: x\ncases: []\n",
    "{version: 1, name: x, snapshot_at: '2026-01-01T00:00:00Z', cases: []}\n",
    'version: 1\ndescription: "a\nsnapshot_at: b"\nname: x\ncases: []\n',  # the line is inside a quoted string
])
def test_a_snapshot_at_that_cannot_be_moved_safely_is_an_input_error(text: str) -> None:
    with pytest.raises(InputError, match=r"g\.yaml at \$\.snapshot_at: cannot (move|add) snapshot_at"):
        moved_stamp_text(text, "g.yaml", AT)


def test_the_golden_yaml_is_written_and_said(tmp_path: Path) -> None:
    (tmp_path / "golden.yaml").write_text(GOLDEN, encoding="utf-8")
    bump = bump_version(str(tmp_path))
    moved = move_snapshot_at(str(tmp_path), AT)
    assert bump is not None and moved is not None
    assert moved.describe() == (f"{tmp_path / 'golden.yaml'}: snapshot_at 2026-10-15T09:00:00Z -> "
                                "2026-12-07T05:17:42Z: every case was recorded afresh then")
    written = (tmp_path / "golden.yaml").read_text(encoding="utf-8")
    assert written.splitlines()[0] == "# news: re-recorded every week" and "version: 5  #" in written
    assert move_snapshot_at(str(tmp_path / "nothing"), AT) is None
