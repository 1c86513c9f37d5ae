"""``sourcegate.yaml`` -> a frozen :class:`Config`; every key has a default, unknown keys are errors."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from gate.errors import InputError
from gate.files.jsonio import parse_yaml, read_text, schema_errors, validate

CONFIG_NAME = "sourcegate.yaml"
MAX_CONFIG_ERRORS = 20
"""Configuration errors listed in one message; past that, the message says there are more."""

DEFAULT_DOMAIN_FLOOR: Mapping[str, int] = MappingProxyType(
    {"lookup": 1, "synthesis": 4, "other": 2, "unclassified": 1}
)
DEFAULT_STALE_DAYS: Mapping[str, float | None] = MappingProxyType(
    {"realtime": 2, "fast": 90, "slow": 730, "insensitive": None}
)


DEFAULT_REQUIRE_PRIMARY = ("regulatory", "medical", "legal")
"""Case classes whose answers must cite at least one primary source (``no_primary_source``)."""

DEFAULT_MODEL = "claude-sonnet-4-6"
"""The anthropic provider's default model: priced in :data:`DEFAULT_PRICES`, like every default."""

DEFAULT_PROVIDER = "anthropic"
JUDGE_MODES = ("live", "batch", "replay", "off")
"""How the judge runs: ``live`` calls the API, ``batch`` sends Message Batches, ``replay`` reads the
judge cache only, ``off`` judges nothing (``judge.mode``, ``check --judge``)."""
CALLING_MODES = ("live", "batch")
"""The judge modes that call an API, and so need its key."""
DEFAULT_MODELS: Mapping[str, str] = MappingProxyType({
    "anthropic": DEFAULT_MODEL,
    "openai": "gpt-4.1-mini",
    "scripted": "scripted",
})
"""The model each judge provider uses when ``judge.model`` is not set."""

DEFAULT_PRICES: Mapping[str, Mapping[str, float]] = MappingProxyType({
    # USD per million tokens; cache writes (5 minute) cost 1.25x input, cache reads 0.1x. A call sent
    # through the Message Batches API costs an entry's optional "batch" share of each (default 0.5).
    "claude-sonnet-4-5": MappingProxyType({"input": 3.0, "output": 15.0, "cache_write": 3.75, "cache_read": 0.30}),
    "claude-sonnet-4-6": MappingProxyType({"input": 3.0, "output": 15.0, "cache_write": 3.75, "cache_read": 0.30}),
    "claude-haiku-4-5": MappingProxyType({"input": 1.0, "output": 5.0, "cache_write": 1.25, "cache_read": 0.10}),
    "claude-opus-4-5": MappingProxyType({"input": 5.0, "output": 25.0, "cache_write": 6.25, "cache_read": 0.50}),
    # OpenAI list prices as published in August 2025 (standard tier). OpenAI caches prompt prefixes
    # itself, with no write premium: cache_write is the input price, cache_read the cached-input price.
    "gpt-4.1": MappingProxyType({"input": 2.0, "output": 8.0, "cache_write": 2.0, "cache_read": 0.50}),
    "gpt-4.1-mini": MappingProxyType({"input": 0.40, "output": 1.60, "cache_write": 0.40, "cache_read": 0.10}),
    "gpt-5": MappingProxyType({"input": 1.25, "output": 10.0, "cache_write": 1.25, "cache_read": 0.125}),
    "gpt-5-mini": MappingProxyType({"input": 0.25, "output": 2.0, "cache_write": 0.25, "cache_read": 0.025}),
})


@dataclass(frozen=True)
class SearchPrice:
    """What one search provider's calls cost: the price of a credit, and the credits each kind of call
    takes (``search``, ``advanced_search``, ``extract`` and ``advanced_extract``, per page read). A plan
    billed per request is a credit of the request's price and one credit a ``search``."""

    credit_usd: float
    credits: Mapping[str, float]


SEARCH_OPERATIONS = ("search", "advanced_search", "extract", "advanced_extract")
"""The kinds of call a search price counts credits for."""

DEFAULT_SEARCH_PRICES: Mapping[str, SearchPrice] = MappingProxyType({
    # Tavily, docs.tavily.com/documentation/api-credits (2026): pay as you go, $0.008 a credit; a basic
    # search takes 1 credit and an advanced one 2; an extract 1 credit per 5 pages read (2 advanced).
    "tavily": SearchPrice(0.008, MappingProxyType({"search": 1.0, "advanced_search": 2.0, "extract": 0.2,
                                                   "advanced_extract": 0.4})),
    # Brave Search API, its Search plan (api-dashboard.search.brave.com/app/plans, 2026): $5.00 per 1,000 requests.
    "brave": SearchPrice(0.005, MappingProxyType({"search": 1.0})),
    # SerpApi, its Developer plan (serpapi.com/pricing, 2026): $75 a month for 5,000 searches.
    "serpapi": SearchPrice(0.015, MappingProxyType({"search": 1.0})),
})
"""What a search costs at each provider that does not say it in its reply (Exa bills in its reply:
``costDollars``); the dates and sources are in docs/costs.md. ``search_prices`` in ``sourcegate.yaml``
replaces a provider's entry, or adds one; a provider in neither has no price, never $0."""


@dataclass(frozen=True)
class JudgeConfig:
    """How the LLM judges run."""

    mode: str = "replay"
    provider: str = DEFAULT_PROVIDER
    """a name from ``gate.judge.providers.PROVIDERS``"""
    base_url: str | None = None
    """where the provider's API is; None: the provider's environment variable, else its default"""
    model: str = DEFAULT_MODEL
    max_tokens: int = 4096
    concurrency: int = 4
    deadline_seconds: float = 900.0
    max_retries: int = 4
    max_evidence_chars: int = 60_000
    inconclusive_unscored_share: float = 0.2
    batch_deadline_seconds: float = 86_400.0
    """judge mode ``batch``: how long to wait for a batch before cancelling it (the API expires it at 24 h)"""
    prices: Mapping[str, Mapping[str, float]] = field(default_factory=lambda: DEFAULT_PRICES)


@dataclass(frozen=True)
class SoftBound:
    """A soft figure's bounds: a warning when out of bounds, a failure only when ``block``."""

    floor: float | None = None
    ceiling: float | None = None
    block: bool = False
    tolerance: float = 0.05


DEFAULT_SOFT: Mapping[str, SoftBound] = MappingProxyType({
    "grounding_rate": SoftBound(floor=0.8),
    "hallucination_rate": SoftBound(ceiling=0.1),
    "query_quality": SoftBound(floor=3.5, tolerance=0.25),
    "freshness": SoftBound(floor=0.8),
    "diversity": SoftBound(floor=0.8),
    "citation_validity": SoftBound(floor=0.9),
    "primary_share": SoftBound(floor=None),
    "regeneration_rate": SoftBound(),
})


@dataclass(frozen=True)
class CompareConfig:
    """How a run is compared with its baseline."""

    block_on: str = "all"
    max_baseline_age_days: float | None = 90.0
    significance: float = 0.05
    min_cases: int = 5


@dataclass(frozen=True)
class SearchProviderConfig:
    """One ``record.search.<name>`` entry; None leaves a known provider's own setting."""

    endpoint: str | None = None
    endpoint_env: str | None = None
    method: str | None = None
    query_param: str | None = None
    key_env: str | None = None
    key_in: str | None = None
    params: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class RecordConfig:
    """How record mode reaches the live web: search providers, caps and the allow-list."""

    search: Mapping[str, SearchProviderConfig] = field(default_factory=lambda: MappingProxyType({}))
    allow: tuple[str, ...] = ()
    max_bytes: int = 5_000_000
    deadline_seconds: float = 30.0
    max_redirects: int = 5


MODEL_HOSTS = ("api.anthropic.com", "api.openai.com", "generativelanguage.googleapis.com", "api.mistral.ai",
               "api.cohere.com", "api.groq.com", "api.deepseek.com", "api.together.xyz", "api.x.ai", "openrouter.ai")
"""The model APIs an agent under ``sourcegate run`` may reach by default (``replay.allow``)."""


@dataclass(frozen=True)
class ReplayConfig:
    """How ``sourcegate run`` runs the agent, and how the runs it produced are gated."""

    on_miss: str = "fail"
    """``fail``: a request the snapshot does not hold is a hard failure ``replay_miss``; ``warn``: a warning."""
    unrecorded_pages: str = "list"
    """With a base revision, a page a run read that the base's snapshot never recorded: ``list`` (shown as
    recorded in the pull request) or ``fail`` (a hard failure ``page_unrecorded`` as well)."""
    allow: tuple[str, ...] = MODEL_HOSTS
    """Hosts (``name`` or ``name:port``) the agent may reach past the frozen web: its model's API."""


@dataclass(frozen=True)
class Config:
    """Every threshold of the gate, each with its documented default."""

    disabled: frozenset[str] = frozenset()
    domain_cap: int = 2
    domain_floor: Mapping[str, int] = field(default_factory=lambda: DEFAULT_DOMAIN_FLOOR)
    drift_max: float = 50.0
    """``checks.paraphrase_drift.max_drift``: the most a cited sentence may drift (0-100) from its closest passage"""
    drift_block: bool = False
    """``checks.paraphrase_drift.block``: drifted sentences fail the case instead of warning"""
    stale_days: Mapping[str, float | None] = field(default_factory=lambda: DEFAULT_STALE_DAYS)
    require_primary: tuple[str, ...] = DEFAULT_REQUIRE_PRIMARY
    min_primary_share: float = 0.2
    resnapshot_days: float | None = None
    """re-snapshot interval for golden sets whose ``golden.yaml`` sets none"""
    min_results: int = 3
    min_pages: int = 1
    min_relevance: int = 3
    """least judged relevance (1-5) of the search results for retrieval to count as succeeded"""
    judge: JudgeConfig = field(default_factory=JudgeConfig)
    soft: Mapping[str, SoftBound] = field(default_factory=lambda: DEFAULT_SOFT)
    compare: CompareConfig = field(default_factory=CompareConfig)
    record: RecordConfig = field(default_factory=RecordConfig)
    replay: ReplayConfig = field(default_factory=ReplayConfig)
    search_prices: Mapping[str, SearchPrice] = field(default_factory=lambda: DEFAULT_SEARCH_PRICES)
    """what a search API's calls cost, by provider (:data:`DEFAULT_SEARCH_PRICES`, then the file's entries)"""
    source: str | None = None

    def blocks(self, check: str) -> bool:
        """Whether a check's findings fail the case (hard) or are case warnings (soft)."""
        return check != "paraphrase_drift" or self.drift_block

    def floor_for(self, cls: str | None) -> int:
        """Unique-domain floor for a case class."""
        if cls is None:
            return self.domain_floor.get("unclassified", 1)
        if cls in self.domain_floor:
            return self.domain_floor[cls]
        return self.domain_floor.get("other", 2)


SETTINGS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "disabled": ("checks", "disabled"),
    "domain_cap": ("checks", "domain_cap"),
    "domain_floor": ("checks", "domain_floor"),
    "drift_max": ("checks", "paraphrase_drift", "max_drift"),
    "drift_block": ("checks", "paraphrase_drift", "block"),
    "stale_days": ("checks", "stale_days"),
    "require_primary": ("checks", "require_primary"),
    "min_primary_share": ("checks", "min_primary_share"),
    "resnapshot_days": ("golden", "resnapshot_days"),
    "min_results": ("retrieval", "min_results"),
    "min_pages": ("retrieval", "min_pages"),
    "min_relevance": ("retrieval", "min_relevance"),
    "judge": ("judge",),
    "soft": ("soft",),
    "compare": ("compare",),
    "record": ("record",),
    "replay": ("replay",),
    "search_prices": ("search_prices",),
})
"""Where each field of :class:`Config` (all but ``source``) is written in ``sourcegate.yaml``, in the
order ``sourcegate init`` writes them. :func:`config_from_dict` reads through it and
:func:`gate.commands.scaffold.config_data` writes through it, so the two cannot disagree."""


def _section(data: Mapping[str, Any] | None, *keys: str) -> Mapping[str, Any]:
    """The mapping at ``keys`` under ``data``: empty when it is missing or written empty (null)."""
    for key in keys:
        data = (data or {}).get(key)
    return data or {}


def _judge(data: Mapping[str, Any]) -> JudgeConfig:
    return JudgeConfig(**{
        "model": DEFAULT_MODELS[data.get("provider", DEFAULT_PROVIDER)],
        **data,
        "prices": MappingProxyType({**DEFAULT_PRICES, **{m: MappingProxyType(dict(p))
                                                         for m, p in _section(data, "prices").items()}}),
    })


def _soft(data: Mapping[str, Any]) -> Mapping[str, SoftBound]:
    return MappingProxyType({**DEFAULT_SOFT, **{k: SoftBound(**{**vars(DEFAULT_SOFT[k]), **(v or {})})
                                                for k, v in data.items()}})


def _merged(defaults: Mapping[str, Any]) -> Callable[[Any], Mapping[str, Any]]:
    return lambda value: MappingProxyType({**defaults, **(value or {})})


def _replay(data: Mapping[str, Any]) -> ReplayConfig:
    return ReplayConfig(**{**data, **({"allow": tuple(data["allow"])} if "allow" in data else {})})


def _search_prices(data: Mapping[str, Any]) -> Mapping[str, SearchPrice]:
    """The default table, each provider the file prices replaced whole by its entry."""
    return MappingProxyType({**DEFAULT_SEARCH_PRICES, **{
        name: SearchPrice(float(entry["credit_usd"]),
                          MappingProxyType({k: float(v) for k, v in entry["credits"].items()}))
        for name, entry in data.items()}})


_SECTIONS: Mapping[str, Callable[[Mapping[str, Any]], Any]] = MappingProxyType({
    "judge": _judge, "soft": _soft, "record": lambda d: _record(d),
    "compare": lambda d: CompareConfig(**d), "replay": lambda d: _replay(d), "search_prices": _search_prices,
})
"""A section written as a whole (empty or null: every default), by the Config field it makes."""

_READ: Mapping[str, Callable[[Any], Any]] = MappingProxyType({
    "disabled": frozenset, "require_primary": tuple,
    "drift_max": float, "min_primary_share": float,
    "domain_floor": _merged(DEFAULT_DOMAIN_FLOOR), "stale_days": _merged(DEFAULT_STALE_DAYS),
})
"""How a setting written in the file becomes its Config value (the rest are taken as written)."""

_ABSENT = object()


def _at(data: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(data, Mapping) or key not in data:
            return _ABSENT
        data = data[key]
    return data


def config_from_dict(data: Mapping[str, Any], source: str | None = None) -> Config:
    """Build a Config from already-validated data (a section left empty, or null, keeps its defaults)."""
    values: dict[str, Any] = {}
    for name, path in SETTINGS.items():
        found = _at(data, path)
        if name in _SECTIONS:
            values[name] = _SECTIONS[name]({} if found is _ABSENT or found is None else found)
        elif found is not _ABSENT:
            values[name] = _READ.get(name, _same)(found)
    return Config(**values, source=source)


def _same(value: Any) -> Any:
    return value


def with_judge_provider(config: Config, provider: str | None) -> Config:
    """``config`` judging with ``provider`` (None: unchanged); a model left at the old provider's default
    becomes the new provider's default."""
    judge = config.judge
    if provider is None or provider == judge.provider:
        return config
    model = DEFAULT_MODELS[provider] if judge.model == DEFAULT_MODELS.get(judge.provider) else judge.model
    return replace(config, judge=replace(judge, provider=provider, model=model))


def _record(data: Mapping[str, Any]) -> RecordConfig:
    search = {
        name: SearchProviderConfig(**{**entry, "params": MappingProxyType(entry["params"]) if "params" in entry
                                      else None})
        for name, entry in _section(data, "search").items()
    }
    return RecordConfig(**{**data, "search": MappingProxyType(search), "allow": tuple(data.get("allow", ()))})


def load_config(file: str | None, beside: str | None = None) -> Config:
    """Load ``file``, else ``sourcegate.yaml`` beside the golden set, else the defaults.

    ``file`` is the user's own choice and is read wherever it is; the one beside the set must
    stay inside the set (a link out of it is refused, its content never shown).
    """
    root = None
    if file is None and beside is not None:
        candidate = os.path.join(beside, CONFIG_NAME)
        if os.path.isfile(candidate):
            file, root = candidate, beside
    if file is None:
        return Config()
    return parse_config(read_text(file, root=root, kind="YAML"), file)


def parse_config(text: str, source: str) -> Config:
    """A configuration from its YAML text (a file, or a file at a git revision); ``source`` names it."""
    data = parse_yaml(text, source)
    if data is None:
        data = {}
    validate_config(data, source)
    return config_from_dict(data, source=source)


def validate_config(data: Any, source: str) -> None:
    """Every unknown or invalid key at once (up to :data:`MAX_CONFIG_ERRORS`), each with its JSON path.

    A configuration is written by hand: fixing one key per run is slow, so all are listed. Then
    the checks :func:`gate.files.jsonio.validate` adds (nesting depth) run as for any file.
    """
    errors, more = schema_errors(data, "config", MAX_CONFIG_ERRORS)
    if len(errors) == 1 and not more:
        path, message = errors[0]
        raise InputError(message, file=source, path=path)
    if errors:
        listed = "".join(f"\n  {path}: {message}" for path, message in errors)
        tail = f"\n  (more not shown: the first {MAX_CONFIG_ERRORS} are listed)" if more else ""
        raise InputError(f"{len(errors)}{'+' if more else ''} errors in the configuration:{listed}{tail}",
                         file=source)
    validate(data, "config", source)
