"""What every test gets: no network beyond loopback, no credentials from the shell, shared fixtures.

* **Loopback only.** From start to end of the run, a connection or name lookup that would leave
  the machine raises :class:`tests.support.network.NetworkBlocked` before any packet is sent, and
  fails the test even when the code under test swallows the error. Fake servers listen on
  127.0.0.1 (``tests/support/*_server.py``).
* **A clean environment.** ``ANTHROPIC_*``, ``OPENAI_*``, ``AZURE_OPENAI_*``, ``GITHUB_*`` and the
  gate's own ``SOURCEGATE_*`` variables are removed for the whole run and again before every
  test, so a developer's key or a CI runner's ``GITHUB_*`` never turns a test live or changes
  its result. Tests set what they need with ``monkeypatch.setenv``. The switches that steer the
  tests themselves stay: :data:`TEST_SWITCHES`.
* **Compiled once.** Before collecting, each pytest-xdist worker compiles its share of the test
  modules and the package into ``__pycache__`` (:mod:`tests.support.compiled`), so the workers,
  and every process the tests start, read the result instead of each redoing the work.
* **Opt-in real calls.** A test marked ``real_api`` (never part of ``make test``: it also skips
  itself without ``SOURCEGATE_REAL_API=1``) gets the network and the shell's ``ANTHROPIC_*`` back.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from gate.pipeline import run_paths
from gate.verdict.report import Report
from tests.support.action_runner import Runner
from tests.support.compiled import compile_sources, runs_tests, worker_place
from tests.support.fresh_import import FreshImport, fresh_import
from tests.support.github_server import FakeGitHub
from tests.support.live_providers import LIVE_PROVIDERS, LiveProvider
from tests.support.network import GUARD, NetworkGuard

SCRUBBED_PREFIXES = ("ANTHROPIC_", "OPENAI_", "AZURE_OPENAI_", "GITHUB_", "SOURCEGATE_")
#: Variables that steer the tests, not the gate: kept.
TEST_SWITCHES = frozenset({"SOURCEGATE_UPDATE_GOLDEN", "SOURCEGATE_REAL_API", "SOURCEGATE_REAL_MODEL",
                           "SOURCEGATE_SCREENSHOTS"})
#: What a ``real_api`` test gets back from the shell.
REAL_API_PREFIXES = ("ANTHROPIC_",)
EXAMPLE = Path(__file__).resolve().parent.parent / "cached-snapshots" / "example"

_shell: dict[str, str] = {}


def scrubbed_names() -> list[str]:
    """The variables of the current environment that tests must not see."""
    return [k for k in os.environ if k.startswith(SCRUBBED_PREFIXES) and k not in TEST_SWITCHES]


def pytest_configure(config: pytest.Config) -> None:
    """Install the network guard before anything is collected or imported."""
    config.addinivalue_line("markers", "real_api: talks to a real API (network and the shell's ANTHROPIC_* key)")
    GUARD.install()


def pytest_sessionstart(session: pytest.Session) -> None:
    """Compile this worker's share of the sources before any test module is imported."""
    if runs_tests(session.config):
        compile_sources(session.config, *worker_place())


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the network guard, collect the garbage the run left, then freeze what remains.

    What a finished run still holds (every module the tests imported, two SDKs among them) needs no
    collecting again: frozen, the interpreter's exit skips it, which takes a worker's exit from
    about a second to a tenth of one. Whatever the run leaked is still collected, and reported, here.
    """
    GUARD.uninstall()
    gc.collect()
    gc.freeze()


@pytest.fixture(scope="session", autouse=True)
def _scrubbed_run() -> Iterator[None]:
    """The whole run (fixtures shared by a module or by every test too) goes without the variables."""
    with pytest.MonkeyPatch.context() as mp:
        for name in scrubbed_names():
            _shell[name] = os.environ[name]
            mp.delenv(name)
        yield


@pytest.fixture(autouse=True)
def _isolated(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Scrub again (a variable leaked by an earlier test) and fail on any blocked network attempt."""
    for name in scrubbed_names():
        monkeypatch.delenv(name)
    real_api = request.node.get_closest_marker("real_api") is not None
    if real_api:
        for name, value in _shell.items():
            if name.startswith(REAL_API_PREFIXES):
                monkeypatch.setenv(name, value)
    GUARD.allow_all = real_api
    try:
        yield
    finally:
        GUARD.allow_all = False
    attempts = GUARD.take_attempts()
    if attempts:
        pytest.fail("the test reached for the network (only loopback is allowed):\n  " + "\n  ".join(attempts),
                    pytrace=False)


@pytest.fixture
def network_guard() -> NetworkGuard:
    """The run's network guard (to check that it blocks, and to take the attempts it recorded)."""
    return GUARD


@pytest.fixture
def fake_github() -> Iterator[FakeGitHub]:
    """A running :class:`FakeGitHub` with an Actions-like token."""
    with FakeGitHub() as server:
        yield server


@pytest.fixture
def runner(tmp_path: Path, fake_github: FakeGitHub, monkeypatch: pytest.MonkeyPatch) -> Runner:
    """A simulated Actions runner (see ``tests/support/action_runner.py``) with the fake GitHub,
    in its workspace: the runner starts a container action there."""
    r = Runner(tmp_path, fake_github)
    monkeypatch.chdir(r.ws)
    return r


@pytest.fixture(scope="session")
def example_report() -> Report:
    """The report of the example golden set, judged from its shipped judge cache.

    Built once per run: a report is a frozen value, which tests may read and ``replace``
    but never change."""
    return run_paths([str(EXAMPLE)], None, judge_mode="replay")


@pytest.fixture(scope="session")
def cli_import() -> FreshImport:
    """What a fresh process loads when it imports the CLI (see ``tests/support/fresh_import.py``).

    One process for every test that pins what start-up must leave unloaded."""
    return fresh_import()


@pytest.fixture(params=LIVE_PROVIDERS, ids=lambda p: p.name)
def provider(request: pytest.FixtureRequest) -> LiveProvider:
    """Each judge provider in turn: the live judge's scenarios run against every one."""
    p: LiveProvider = request.param
    return p
