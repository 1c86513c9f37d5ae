"""``sourcegate run --network``: the modes, and the plan of one run (gate/runner/network.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.cli import main
from gate.errors import InputError
from gate.model import Confinement
from gate.runner import network
from gate.runner.network import NETWORK_MODES, NetworkPlan, plan_network, resolvers


def _never() -> tuple[str | None, str]:
    raise AssertionError("the probe was not to be asked")


def test_proxy_makes_no_namespace_and_says_so() -> None:
    plan = plan_network("proxy", asked=_never)
    assert not plan.confined and plan.confinement() == Confinement(False, "--network proxy")
    assert plan.line().startswith("sourcegate run: NOT CONFINED: --network proxy;")


def test_auto_confines_where_the_probe_can_make_a_namespace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(network, "read_resolvers", lambda: ("127.0.0.53",))
    plan = plan_network("auto", linux=True, asked=lambda: ("user", ""))
    assert plan == NetworkPlan("auto", "user", resolvers=("127.0.0.53",))
    assert plan.confined and plan.confinement() == Confinement(True)
    assert "(user and network namespaces)" in plan.line()


@pytest.mark.parametrize(("linux", "why"), [(True, "user: Operation not permitted"), (False, "Linux's")])
def test_auto_without_a_namespace_runs_unconfined_and_says_why(linux: bool, why: str) -> None:
    plan = plan_network("auto", linux=linux, asked=lambda: (None, "user: Operation not permitted"))
    assert not plan.confined and plan.reason is not None and why in plan.reason
    if linux:  # how to allow one, on GitHub's runners
        assert "kernel.apparmor_restrict_unprivileged_userns=0" in plan.reason


@pytest.mark.parametrize("linux", [True, False])
def test_confined_without_a_namespace_is_an_input_error(linux: bool) -> None:
    with pytest.raises(InputError, match="^--network confined: ") as caught:
        plan_network("confined", linux=linux, asked=lambda: (None, "user: refused"))
    assert caught.value.exit_code == 2


def test_an_unknown_mode_is_refused() -> None:
    assert tuple(NETWORK_MODES) == ("auto", "confined", "proxy")
    with pytest.raises(InputError, match="auto, confined, proxy"):
        plan_network("open", asked=_never)


def test_the_flag_s_choices_are_the_registry_s(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(tmp_path), "--network", "open", "--", "true"]) == 2
    assert f"choose from {', '.join(NETWORK_MODES)}" in capsys.readouterr().err


def test_the_resolvers_are_read_from_resolv_conf(tmp_path: Path) -> None:
    conf = tmp_path / "resolv.conf"
    conf.write_text("nameserver 127.0.0.53\nsearch example.internal\n", encoding="utf-8")
    assert network.read_resolvers(str(conf)) == ("127.0.0.53",)
    assert network.read_resolvers(str(tmp_path / "missing")) == ()


@pytest.mark.parametrize(("text", "found"), [
    ("nameserver 127.0.0.53\noptions edns0 trust-ad\nsearch example.internal\n", ("127.0.0.53",)),
    ("nameserver 10.0.0.2\nnameserver 8.8.8.8\n", ()),  # not loopback: a look-up fails unseen
    ("nameserver ::1\nnameserver 127.0.0.11 # docker\n; nameserver 127.0.0.9\n", ("::1", "127.0.0.11")),
    ("search example.internal\n", ("127.0.0.1",)),  # none named: the C library asks 127.0.0.1
    ("nameserver 127.1\nnameserver 127.0.0.300\nnameserver 127.0.0.53\nnameserver 127.0.0.53\n", ("127.0.0.53",)),
])
def test_the_loopback_resolvers_of_resolv_conf(text: str, found: tuple[str, ...]) -> None:
    assert resolvers(text) == found
