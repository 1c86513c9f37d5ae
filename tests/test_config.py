"""``sourcegate.yaml``: the defaults the README documents are the defaults the code has, and a
section written with nothing under it keeps its defaults."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from gate.config import Config, parse_config
from gate.errors import InputError

ROOT = Path(__file__).resolve().parent.parent
CONFIGURATION = ROOT / "docs" / "configuration.md"


def readme_configuration() -> str:
    """The YAML block of docs/configuration.md's first section (the defaults)."""
    text = CONFIGURATION.read_text(encoding="utf-8")
    section = text[text.index("# Configuration: `sourcegate.yaml`"):]
    if "\n## " in section:
        section = section[:section.index("\n## ")]
    [block] = re.findall(r"```yaml\n(.*?)```", section, re.S)
    return str(block)


def test_the_readme_s_configuration_block_is_the_default_configuration() -> None:
    assert replace(parse_config(readme_configuration(), "docs/configuration.md"), source=None) == Config()


@pytest.mark.parametrize("text", [
    "golden:\n  resnapshot_days: null\n",
    "golden:\n",
    "checks:\nretrieval:\njudge:\nsoft:\ncompare:\nrecord:\nreplay:\n",
    "checks: {domain_floor: null, paraphrase_drift: null, stale_days: null}\njudge: {prices: null}\n",
    "soft: {grounding_rate: null, primary_share: null}\nrecord: {search: null}\n",
])
def test_a_section_left_empty_keeps_its_defaults(text: str) -> None:
    assert replace(parse_config(text, "sourcegate.yaml"), source=None) == Config()


def test_a_resnapshot_interval_is_still_a_positive_number() -> None:
    assert parse_config("golden: {resnapshot_days: 30}\n", "sourcegate.yaml").resnapshot_days == 30
    with pytest.raises(InputError, match=r"at \$\.golden\.resnapshot_days: 0 is less than or equal to the minimum"):
        parse_config("golden: {resnapshot_days: 0}\n", "sourcegate.yaml")
    with pytest.raises(InputError, match=r"at \$\.golden\.resnapshot_days: 'soon' is not of type 'number', 'null'"):
        parse_config("golden: {resnapshot_days: soon}\n", "sourcegate.yaml")


def test_settings_given_beside_a_null_section_still_apply() -> None:
    text = "checks:\n  domain_cap: 3\n  stale_days:\njudge:\n  prices:\n    my-model: {input: 1, output: 2}\n"
    config = parse_config(text, "sourcegate.yaml")
    assert config.domain_cap == 3 and config.stale_days == Config().stale_days
    assert dict(config.judge.prices["my-model"]) == {"input": 1, "output": 2}
    assert "claude-sonnet-4-6" in config.judge.prices


def test_the_fuzzy_passage_threshold_of_older_files_loads_and_changes_nothing() -> None:
    # Quotes must be on their page verbatim (docs/quotes.md): the old fuzzy threshold has no meaning left.
    assert replace(parse_config("checks: {passage_threshold: 10}\n", "sourcegate.yaml"), source=None) == Config()
