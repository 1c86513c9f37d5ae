"""Judge providers by name: the registry, the configuration that picks one, and what each says.

The scenarios every provider must pass run in ``tests/test_judge_live.py`` (parametrised over both
real SDKs); here is what is particular to the seam and to a provider: keys, errors, usage, Azure.
"""

from __future__ import annotations

import gc
import ssl
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from gate.action.inputs import JUDGE_KEYS, read_inputs, resolve_judge
from gate.cli import main
from gate.config import DEFAULT_MODELS, Config, JudgeConfig, config_from_dict, parse_config, with_judge_provider
from gate.errors import InputError, JudgeUnavailable
from gate.files.jsonio import load_json, schema
from gate.judge.base import KEY_VERSION, ToolCall
from gate.judge.providers import PROVIDERS, build_provider
from gate.judge.providers.anthropic import AnthropicProvider
from gate.judge.providers.openai import OpenAIProvider, _usage
from gate.judge.providers.scripted import ScriptedProvider
from gate.judge.providers.transport import CA_VARIABLES, tls_context
from gate.judge.session import JudgeSession
from gate.judge.tools import EXTRACT_CLAIMS
from gate.model import Case
from gate.usage.cost import priced
from tests.support.anthropic_server import AnthropicServer
from tests.support.golden_factory import write_golden
from tests.support.judge_run import make_run
from tests.support.llm_wire import LOOPBACK_CERT, Reply, Request
from tests.support.openai_server import OpenAIServer
from tests.support.scripted_judge import scripted_judge

OPENAI = JudgeConfig(provider="openai", model="gpt-4.1-mini", max_retries=0)


def test_the_registry_the_schema_and_the_default_models_name_the_same_providers() -> None:
    enum = schema("config")["properties"]["judge"]["properties"]["provider"]["enum"]
    assert list(PROVIDERS) == enum == list(DEFAULT_MODELS) == ["anthropic", "openai", "scripted"]
    assert set(JUDGE_KEYS) <= set(PROVIDERS)


def test_a_provider_without_a_model_gets_its_own_default_model() -> None:
    assert config_from_dict({"judge": {"provider": "openai"}}).judge.model == "gpt-4.1-mini"
    assert config_from_dict({}).judge.model == DEFAULT_MODELS["anthropic"]
    assert config_from_dict({"judge": {"provider": "openai", "model": "gpt-5"}}).judge.model == "gpt-5"


@pytest.mark.parametrize("text, where", [
    ("judge:\n  provider: gemini\n", "judge.provider"),
    ("judge:\n  base_url: localhost:8000\n", "judge.base_url"),
])
def test_an_unknown_provider_or_a_base_url_without_scheme_is_an_input_error(text: str, where: str) -> None:
    with pytest.raises(InputError) as e:
        parse_config(text, "sourcegate.yaml")
    assert where in str(e.value)


def test_the_cache_key_holds_the_provider_and_anthropic_keys_are_unchanged() -> None:
    import hashlib
    import json

    anthropic = ToolCall(EXTRACT_CLAIMS, "m", "user text")
    material = {"key_version": KEY_VERSION, "model": "m", "prompt": EXTRACT_CLAIMS.prompt,
                "tool": EXTRACT_CLAIMS.definition(), "system": EXTRACT_CLAIMS.system, "user": "user text"}
    before = hashlib.sha256(json.dumps(material, sort_keys=True, ensure_ascii=False,
                                       separators=(",", ":")).encode("utf-8")).hexdigest()
    assert anthropic.key == before  # judge caches recorded before there were providers still hit
    keys = {ToolCall(EXTRACT_CLAIMS, "m", "user text", provider=p).key for p in PROVIDERS}
    assert len(keys) == len(PROVIDERS)


def test_openai_usage_maps_cached_prompt_tokens_to_cache_reads_and_is_priced_from_the_table() -> None:
    import openai.types  # imported here, not when the tests are collected: the SDK takes a second to load

    usage = openai.types.CompletionUsage(prompt_tokens=3000, completion_tokens=200, total_tokens=3200,
                                         prompt_tokens_details={"cached_tokens": 2048})
    mapped = _usage(usage)
    assert (mapped.input_tokens, mapped.cache_read_tokens, mapped.output_tokens, mapped.cache_write_tokens) == (
        952, 2048, 200, 0)
    cost = priced(mapped, "gpt-4.1-mini", Config().judge.prices).cost_usd
    assert cost == pytest.approx((952 * 0.40 + 2048 * 0.10 + 200 * 1.60) / 1_000_000)
    assert _usage(None).calls == 1 and _usage(None).input_tokens == 0  # a server that reports none


def test_a_self_hosted_server_is_reached_through_judge_base_url(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    with OpenAIServer(scripted_judge) as api:
        monkeypatch.setenv("OPENAI_API_KEY", api.api_key)
        config = Config(judge=JudgeConfig(provider="openai", model="llama-3.1-8b", base_url=api.base_url))
        with JudgeSession("live", config, str(tmp_path)) as session:
            j = session.judge(make_run(), Case("eiffel", "How tall?"))
        assert j is not None and j.unscored_count == 0 and api.calls == 3
        assert {r.body["model"] for r in api.requests} == {"llama-3.1-8b"}
        assert api.requests[0].body["tools"][0]["function"]["parameters"] == EXTRACT_CLAIMS.input_schema
        assert api.requests[0].body["messages"][0] == {"role": "system", "content": EXTRACT_CLAIMS.system}
        assert j.usage.calls == 3 and j.usage.cost_usd is None  # no price for that model: no cost, not 0


def test_azure_openai_is_used_when_its_endpoint_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    with OpenAIServer(scripted_judge, api_key="azure-key") as api:
        monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", api.url)
        monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-key")
        monkeypatch.setenv("OPENAI_API_VERSION", "2024-10-21")
        with closing(OpenAIProvider(JudgeConfig(provider="openai", model="my-deployment"))) as provider:
            reply = provider.call(ToolCall(EXTRACT_CLAIMS, "my-deployment", "Marker: x\n", provider="openai"), 10)
    assert reply.tool_input == {"claims": []}
    request = api.requests[0]
    assert request.headers["api-key"] == "azure-key"
    assert request.body["tool_choice"] == {"type": "function", "function": {"name": "extract_claims"}}


@pytest.mark.parametrize("server, factory, variable", [
    (OpenAIServer, OpenAIProvider, "OPENAI_API_KEY"),
    (AnthropicServer, AnthropicProvider, "ANTHROPIC_API_KEY"),
])
def test_a_rejected_key_is_said_clearly_and_leaves_claims_unscored(server: Any, factory: Any, variable: str) -> None:
    with server(scripted_judge) as api:
        url = api.url + "/v1" if server is OpenAIServer else api.url
        with closing(factory(JudgeConfig(max_retries=0), base_url=url, api_key="wrong")) as provider, \
                pytest.raises(JudgeUnavailable) as e:
            provider.call(ToolCall(EXTRACT_CLAIMS, "m", "text"), 10)
    assert "refused the key (401" in str(e.value) and f"check {variable}" in str(e.value)
    assert e.value.__cause__ is not None  # chained to the SDK's error


def _chain(e: BaseException | None) -> str:
    """Every exception's text along ``e``'s causes and contexts."""
    texts = []
    while e is not None:
        texts.append(f"{type(e).__name__}: {e}")
        e = e.__cause__ or e.__context__
    return " <- ".join(texts)


@pytest.mark.parametrize("server, factory", [(OpenAIServer, OpenAIProvider), (AnthropicServer, AnthropicProvider)])
def test_https_is_verified_a_certificate_no_one_trusts_is_refused_and_ssl_cert_file_is_honoured(
        server: Any, factory: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in CA_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    call = ToolCall(EXTRACT_CLAIMS, "m", "Marker: x\n")
    with server(scripted_judge, tls=True) as api:
        url = api.url + "/v1" if server is OpenAIServer else api.url
        assert url.startswith("https://127.0.0.1:")
        with closing(factory(JudgeConfig(max_retries=0), base_url=url, api_key=api.api_key)) as provider, \
                pytest.raises(JudgeUnavailable, match="cannot reach the API") as e:
            provider.call(call, 10)
        assert "CERTIFICATE_VERIFY_FAILED" in _chain(e.value) and api.calls == 0
        monkeypatch.setenv("SSL_CERT_FILE", str(LOOPBACK_CERT))  # trusted from now on
        with closing(factory(JudgeConfig(max_retries=0), base_url=url, api_key=api.api_key)) as provider:
            reply = provider.call(call, 10)
    assert reply.tool_input is not None and api.calls == 1


@pytest.mark.parametrize("factory", [OpenAIProvider, AnthropicProvider])
def test_a_provider_left_open_is_named_when_it_is_collected(factory: Any) -> None:
    provider = factory(JudgeConfig(max_retries=0), base_url="http://127.0.0.1:9/v1", api_key="k")
    with pytest.warns(ResourceWarning, match="judge provider's HTTP client was collected open"):
        del provider
        gc.collect()
    with closing(factory(JudgeConfig(max_retries=0), base_url="http://127.0.0.1:9/v1", api_key="k")):
        pass
    gc.collect()  # closed: collected without a word (the suite turns a warning into an error)


def test_the_providers_share_one_verifying_tls_context_built_again_when_the_ca_variables_change(
        monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in CA_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    system = tls_context()
    assert tls_context() is system
    assert system.verify_mode == ssl.CERT_REQUIRED and system.check_hostname
    monkeypatch.setenv("SSL_CERT_FILE", str(LOOPBACK_CERT))
    loopback = tls_context()
    assert loopback is not system and loopback is tls_context()
    assert loopback.verify_mode == ssl.CERT_REQUIRED and loopback.check_hostname
    monkeypatch.delenv("SSL_CERT_FILE")
    assert tls_context() is system


@pytest.mark.parametrize("variable, provider", [("OPENAI_API_KEY", "openai"), ("ANTHROPIC_API_KEY", "anthropic")])
def test_live_without_the_providers_key_is_an_input_error(variable: str, provider: str,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    with pytest.raises(InputError) as e:
        build_provider(JudgeConfig(provider=provider))
    assert variable in str(e.value)


@pytest.mark.parametrize("arguments, finish, why", [
    ('{"verdicts": [', "length", "are not JSON"),
    ('{"verdicts": ' + "[" * 100_000 + "]" * 100_000 + "}", "stop", "are nested too deeply to read"),
], ids=["cut-off", "nested-past-the-interpreter-s-guard"])
def test_arguments_that_cannot_be_read_leave_the_claims_unscored(arguments: str, finish: str, why: str) -> None:
    def broken(request: Request) -> Reply:
        reply = scripted_judge(request)
        if request.tool_name != "grade_claims":
            return reply
        call = {"id": "call_1", "type": "function", "function": {"name": "grade_claims", "arguments": arguments}}
        message = {"role": "assistant", "content": None, "refusal": None, "tool_calls": [call]}
        return Reply(200, {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
                           "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}]})

    with OpenAIServer(broken) as api, \
            closing(OpenAIProvider(OPENAI, base_url=api.base_url, api_key=api.api_key)) as provider, \
            JudgeSession("live", Config(judge=OPENAI), None, caller=provider) as session:
        j = session.judge(make_run(), Case("eiffel", "How tall?"))
    assert j is not None and j.unscored_count == j.claim_count == 4
    assert {v.unscored_reason for v in j.verdicts} == {
        f"the reply has no grade_claims call (stop reason the grade_claims arguments {why})"}


def test_the_scripted_provider_is_picked_by_name_and_needs_no_key_and_no_network(tmp_path: Path) -> None:
    root = write_golden(tmp_path / "set", ["a", "b"])
    (root / "sourcegate.yaml").write_text("judge:\n  provider: scripted\n", encoding="utf-8")
    out = tmp_path / "r.json"
    assert main(["check", str(root), "--judge", "live", "--json", str(out)]) == 0
    report = load_json(str(out))
    assert report["judge"]["usage"]["calls"] == 6 and report["judge"]["counts"]["supported"] >= 2
    assert len(list((root / "judgements").glob("*.json"))) == 6
    assert isinstance(build_provider(JudgeConfig(provider="scripted")), ScriptedProvider)


def test_the_action_reads_the_provider_and_its_key_and_masks_the_key() -> None:
    from gate.action.inputs import SECRET_INPUTS, input_env_name

    env = {input_env_name("judge-provider"): "openai", input_env_name("openai-api-key"): "sk-proj-x"}
    inputs = read_inputs(env)
    assert inputs.judge_provider == "openai" and inputs.has_judge_key
    assert inputs.judge_keys == {"anthropic": "", "openai": "sk-proj-x"}
    assert "openai-api-key" in SECRET_INPUTS
    only_anthropic = read_inputs({input_env_name("judge-provider"): "openai",
                                  input_env_name("anthropic-api-key"): "sk-ant-x"})
    assert not only_anthropic.has_judge_key
    mode, why = resolve_judge("auto", only_anthropic.has_judge_key, only_anthropic.key_inputs)
    assert mode == "replay" and why is not None and why.startswith("no openai-api-key was given")
    assert read_inputs({input_env_name("judge-provider"): "scripted"}).has_judge_key
    with pytest.raises(InputError, match="judge-provider"):
        read_inputs({input_env_name("judge-provider"): "gemini"})


def test_judge_provider_on_the_command_line_overrides_the_config_and_its_default_model(tmp_path: Path) -> None:
    assert with_judge_provider(Config(), "openai").judge.model == "gpt-4.1-mini"
    pinned = Config(judge=JudgeConfig(model="claude-opus-4-5"))
    assert with_judge_provider(pinned, "openai").judge == JudgeConfig(provider="openai", model="claude-opus-4-5")
    assert with_judge_provider(pinned, None) is pinned
    root = write_golden(tmp_path / "set", ["a"])
    out = tmp_path / "r.json"
    assert main(["check", str(root), "--judge", "live", "--judge-provider", "scripted", "--json", str(out)]) == 0
    assert load_json(str(out))["judge"]["usage"]["calls"] == 3


def test_the_action_passes_the_provider_and_its_key_to_the_gate() -> None:
    from gate.action.inputs import Inputs
    from gate.action.plan import plan_check
    from gate.pipeline import SetRequest

    request = plan_check(Inputs(judge_provider="openai", openai_api_key="k"), ["set"], None).request
    assert isinstance(request, SetRequest)
    assert request.judge_provider == "openai" and request.judge_mode == "live"
    assert request.judge_keys is not None and request.judge_keys["openai"] == "k"
    default = plan_check(Inputs(), ["set"], None).request
    assert isinstance(default, SetRequest) and default.judge_provider is None


@pytest.mark.parametrize("server, factory", [(OpenAIServer, OpenAIProvider), (AnthropicServer, AnthropicProvider)])
def test_a_reply_nested_past_the_interpreter_s_guard_is_unavailable_not_a_traceback(server: Any,
                                                                                     factory: Any) -> None:
    deep = b'{"id": "x", "content": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    with server(lambda request: Reply(200, raw=deep)) as api:
        url = api.url + "/v1" if server is OpenAIServer else api.url
        with closing(factory(JudgeConfig(max_retries=0), base_url=url, api_key=api.api_key)) as provider, \
                pytest.raises(JudgeUnavailable) as e:
            provider.call(ToolCall(EXTRACT_CLAIMS, "m", "text"), 10)
    assert "nested too deeply" in str(e.value)
