"""Judge-cache entries are written by pull requests: each is read within the limits of any JSON file.

A real git repository holds the set (the base revision); the gate runs in-process through
``main(argv)``. An entry over the size limit (a sparse file: its size costs no disk, and reading it
whole would take seconds and all its bytes of memory), nested too deeply or with a duplicate key is an
input error (exit 2) naming the file and the JSON path, and is refused before it is read whole; an
entry the pull request changed is, in replay, not used and not parsed, as any unverified entry.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from gate.cli import main
from gate.errors import InputError
from gate.files.jsonio import MAX_DEPTH, MAX_JSON_BYTES
from gate.git.revision import blob_id
from gate.judge.base import ToolCall
from gate.judge.batch import PendingBatches
from gate.judge.cache import NOT_VERIFIED, JudgeCache, TrustedEntries
from gate.judge.tools import EXTRACT_CLAIMS
from gate.judgement import Usage
from tests.support.gitrepo import GitRepo

EXAMPLE = Path(__file__).resolve().parent.parent / "cached-snapshots" / "example"
CASES = ("python-dataclass-slots", "numpy-2-5-highlights")
OVER = MAX_JSON_BYTES + 2**20
"""Seconds a refusal may take at most (reading an oversized entry whole takes longer, and its size in memory)."""


@pytest.fixture(scope="module")
def base_template(tmp_path_factory: pytest.TempPathFactory) -> GitRepo:
    """Two clean cases of the example set with their judge cache, committed as the base revision."""
    root = tmp_path_factory.mktemp("cache-limits") / "repo"
    shutil.copytree(EXAMPLE, root / "set", ignore=shutil.ignore_patterns("baseline.json", "snapshot"))
    golden = yaml.safe_load((root / "set" / "golden.yaml").read_text(encoding="utf-8"))
    golden["cases"] = [c for c in golden["cases"] if c["id"] in CASES]
    (root / "set" / "golden.yaml").write_text(yaml.safe_dump(golden, sort_keys=False), encoding="utf-8")
    for run in (root / "set" / "runs").iterdir():
        if run.stem not in CASES:
            run.unlink()
    repo = GitRepo(root)
    repo.commit("base: two cases and their judge cache")
    return repo.packed()


@pytest.fixture
def repo(base_template: GitRepo, tmp_path: Path) -> GitRepo:
    return base_template.copy(tmp_path / "repo")


def _entries(repo: GitRepo) -> list[Path]:
    return sorted((repo.root / "set" / "judgements").glob("*.json"))


def _duplicate(entry: Path) -> str:
    """The entry with ``usage.input_tokens`` written twice."""
    text = json.dumps(json.loads(entry.read_text(encoding="utf-8")))
    assert '"usage": {' in text
    return text.replace('"usage": {', '"usage": {"input_tokens": 0, ', 1)


def _deep(entry: Path, levels: int) -> str:
    """The entry with ``levels`` arrays inside one another under ``input.deep``."""
    text = json.dumps(json.loads(entry.read_text(encoding="utf-8")))
    assert '"input": {' in text
    return text.replace('"input": {', '"input": {"deep": ' + "[" * levels + "]" * levels + ", ", 1)


def _spoil(repo: GitRepo, how: str) -> None:
    """Every entry of the set's judge cache made hostile in the same way."""
    for entry in _entries(repo):
        if how == "oversized":
            entry.write_bytes(b"")
            os.truncate(entry, OVER)  # sparse: no disk, and nothing to read before the size check
        elif how == "duplicate":
            entry.write_text(_duplicate(entry), encoding="utf-8")
        elif how == "deep":
            entry.write_text(_deep(entry, MAX_DEPTH + 20), encoding="utf-8")
        else:  # nested past the interpreter's recursion guard
            entry.write_text(_deep(entry, 200_000), encoding="utf-8")


EXPECTED = {
    "oversized": f"is {OVER:,} bytes, over the limit of {MAX_JSON_BYTES:,} bytes for a JSON file",
    "duplicate": ".json at $.usage.input_tokens: duplicate key 'input_tokens'",
    "deep": ".json at $.input.deep[0][0][0]",
    "very deep": "malformed JSON: nested too deeply",
}


def _check(repo: GitRepo, *argv: str) -> tuple[int, dict[str, object]]:
    out = repo.root.parent / "report.json"
    code = main(["check", str(repo.root / "set"), *argv, "--json", str(out)])
    report = json.loads(out.read_text(encoding="utf-8")) if code != 2 and out.exists() else {}
    return code, report


@pytest.mark.parametrize("how", list(EXPECTED))
def test_a_hostile_entry_is_an_input_error_naming_the_file_and_path(
        repo: GitRepo, how: str, capsys: pytest.CaptureFixture[str]) -> None:
    _spoil(repo, how)
    code, _ = _check(repo)
    err = capsys.readouterr().err
    assert code == 2, err
    assert "judgements" in err and ".json" in err and EXPECTED[how] in err
    if how == "deep":
        assert f"nested more than {MAX_DEPTH} levels deep" in err


@pytest.mark.parametrize("how", ["duplicate", "deep"])
def test_a_hostile_entry_the_base_has_is_an_input_error_too(
        repo: GitRepo, how: str, capsys: pytest.CaptureFixture[str]) -> None:
    _spoil(repo, how)
    repo.commit("base: hostile judge-cache entries")
    code, _ = _check(repo, "--baseline-ref", "HEAD")
    err = capsys.readouterr().err
    assert code == 2, err
    assert "judgements" in err and EXPECTED[how] in err


def test_an_oversized_entry_the_pr_put_in_place_of_the_bases_is_refused_unread(
        repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    # Left uncommitted: the working tree against its base commit is what a pull request's checkout
    # is, and git need not hash gigabytes of sparse zeros.
    _spoil(repo, "oversized")
    code, _ = _check(repo, "--baseline-ref", "HEAD")
    err = capsys.readouterr().err
    assert code == 2, err
    assert "judgements" in err and EXPECTED["oversized"] in err


@pytest.mark.parametrize("how", ["duplicate", "deep", "very deep"])
def test_in_replay_a_hostile_entry_the_pr_changed_is_not_used_and_not_parsed(
        repo: GitRepo, how: str, capsys: pytest.CaptureFixture[str]) -> None:
    _spoil(repo, how)
    repo.commit("pr: hostile judge-cache entries")
    code, report = _check(repo, "--baseline-ref", "HEAD~1")
    capsys.readouterr()
    assert code == 3 and report["verdict"] == "inconclusive"
    warnings = report["warnings"]
    assert isinstance(warnings, list)
    assert any("added or changed by this pull request were not used" in w for w in warnings)
    assert NOT_VERIFIED in json.dumps(report["cases"])


# -- the cache itself ------------------------------------------------------------------------------

def _stored(tmp_path: Path) -> tuple[JudgeCache, ToolCall]:
    cache = JudgeCache(str(tmp_path / "set" / "judgements"))
    call = ToolCall(EXTRACT_CLAIMS, "claude-sonnet-4-6", "text")
    cache.put(call, {"claims": []}, Usage(1, 10, 2))
    return cache, call


def test_an_entry_the_base_names_is_hashed_within_the_size_limit(tmp_path: Path) -> None:
    cache, call = _stored(tmp_path)
    file = Path(cache.path(call))
    trusted = TrustedEntries({file.name: blob_id(file.read_bytes(), "0" * 40)})
    assert JudgeCache(cache.folder, trusted).get(call) == {"claims": []}
    os.truncate(file, OVER)
    for read in (JudgeCache(cache.folder, trusted).get, JudgeCache(cache.folder, trusted).unverified):
        with pytest.raises(InputError, match="over the limit") as e:
            read(call)
        assert e.value.file == str(file)


def test_an_unverified_entry_is_read_strictly_for_the_comparison(tmp_path: Path) -> None:
    cache, call = _stored(tmp_path)
    file = Path(cache.path(call))
    file.write_text(_duplicate(file), encoding="utf-8")
    untrusted = JudgeCache(cache.folder, TrustedEntries({}))
    assert untrusted.get(call) is None and untrusted.unverified_keys == {call.key}
    with pytest.raises(InputError, match="duplicate key") as e:
        untrusted.unverified(call)
    assert e.value.path == "$.usage.input_tokens"


def test_an_unverified_entry_that_links_out_of_the_set_is_refused_by_name(tmp_path: Path) -> None:
    cache, call = _stored(tmp_path)
    file = Path(cache.path(call))
    outside = tmp_path / "secret.json"
    outside.write_text('{"token": "s3cr3t"}', encoding="utf-8")
    file.unlink()
    file.symlink_to(outside)
    for trusted in (TrustedEntries({}), TrustedEntries({file.name: "0" * 40})):
        for read in (JudgeCache(cache.folder, trusted).get, JudgeCache(cache.folder, trusted).unverified):
            with pytest.raises(InputError, match="leaves the golden set") as e:
                read(call)
            assert "s3cr3t" not in str(e.value)


@pytest.mark.parametrize("how", ["oversized", "duplicate"])
def test_the_pending_batch_file_is_read_within_the_same_limits(tmp_path: Path, how: str) -> None:
    folder = tmp_path / "set" / "judgements"
    folder.mkdir(parents=True)
    pending = folder / ".batch.json"
    if how == "oversized":
        pending.write_bytes(b"")
        os.truncate(pending, OVER)
    else:
        pending.write_text('{"format": "sourcegate-batch/1", "batches": [], "batches": []}', encoding="utf-8")
    with pytest.raises(InputError, match="over the limit" if how == "oversized" else "duplicate key") as e:
        PendingBatches(str(folder)).load()
    assert e.value.file == str(pending)
