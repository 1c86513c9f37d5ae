"""The files ``sourcegate init`` writes, as text. Pure: values in, text out.

- :func:`golden_yaml`: a ``golden.yaml`` with one case per run (id and question from the trace),
  its ``class`` and ``freshness`` left as commented placeholders to fill in.
- :func:`config_yaml`: a ``sourcegate.yaml`` holding every setting at its default, each under the
  description the configuration schema gives it. It is generated from :class:`gate.config.Config`
  itself, each field written where :data:`gate.config.SETTINGS` says (where
  :func:`gate.config.config_from_dict` reads it), so it cannot drift from the defaults; a test
  loads it back and compares it with ``Config()``, and finds every key of the schema in it.
- :func:`workflow_yaml`: the example workflow (``examples/sourcegate.yml``: actions pinned by
  commit, ``permissions: {}`` at the top, each job granted only what it needs) for this golden set.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, is_dataclass
from importlib import resources
from typing import Any

import yaml

from gate.config import SETTINGS, Config, SearchProviderConfig
from gate.errors import InputError
from gate.files.jsonio import schema

__all__ = ["EXAMPLE_GOLDEN_SET", "NewCase", "append_cases", "config_data", "config_yaml", "golden_yaml",
           "scaffold_name", "workflow_yaml"]

EXAMPLE_GOLDEN_SET = "cached-snapshots/example"
"""The golden-set path the example workflow names (replaced by the new set's)."""
PLACEHOLDER_QUESTION = "TODO: the question the agent was asked"
"""The question of a case whose trace recorded none (golden.yaml needs one)."""
CLASS_HINT = "lookup, synthesis, regulatory or your own: sets the domain floor (checks.domain_floor)"
FRESHNESS_HINT = "insensitive, slow, fast or realtime: how old its sources may be (checks.stale_days)"


@dataclass(frozen=True)
class NewCase:
    """A case of a new golden set: its id, and its question as the trace recorded it (None: none)."""

    id: str
    question: str | None


def scaffold_name(folder_name: str) -> str:
    """A golden-set name (``[A-Za-z0-9._-]+``, not starting with a dot) from a folder's name."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", folder_name).strip("-.")
    return name or "golden-set"


def _scalar(value: Any) -> str:
    """One YAML scalar (a string is quoted when YAML would read it as something else)."""
    return str(yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=10_000)
               .removesuffix("\n...\n").strip())


def _case_lines(c: NewCase, indent: str = "") -> list[str]:
    lines = [f"- id: {_scalar(c.id)}", f"  question: {_scalar(c.question or PLACEHOLDER_QUESTION)}"]
    if not c.question:
        lines.append("  # the trace recorded no question: write the one the agent was asked")
    lines += [f"  # class: lookup  # {CLASS_HINT}", f"  # freshness: slow  # {FRESHNESS_HINT}"]
    return [indent + line for line in lines]


def append_cases(text: str, cases: Sequence[NewCase], file: str) -> str:
    """``golden.yaml``'s text with ``cases`` added at the end of its ``cases:`` list, comments kept.

    The list must be the file's last key, in block style (as ``init`` writes it); otherwise the
    cases are for the user to add, and this says so (an :class:`InputError`).
    """
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    last = root.value[-1] if isinstance(root, yaml.MappingNode) and root.value else None
    if (last is None or last[0].value != "cases" or not isinstance(last[1], yaml.SequenceNode)
            or last[1].flow_style or not last[1].value):
        raise InputError("cannot add cases here: `cases:` must be the last key, a block list "
                         "(add them by hand, or start the set with `sourcegate init`)", file=file)
    indent = " " * max(0, last[1].value[0].start_mark.column - 2)
    lines = [line for c in cases for line in _case_lines(c, indent)]
    return text + ("" if text.endswith("\n") else "\n") + "\n".join(lines) + "\n"


def golden_yaml(name: str, cases: Sequence[NewCase]) -> str:
    """``golden.yaml`` for ``cases`` (at least one: the schema needs one), version 1."""
    lines = [
        "# The golden set: the questions the agent must keep answering well, one case each, with its",
        "# recorded run in runs/<id>.json. Bump `version` whenever a case changes meaning: a baseline is",
        "# tied to the version it was recorded for. Fill in each case's class and freshness.",
        "format: sourcegate-golden/1",
        "version: 1",
        f"name: {_scalar(name)}",
        "cases:",
    ]
    for c in cases:
        lines += _case_lines(c)
    return "\n".join(lines) + "\n"


def config_data(c: Config) -> dict[str, Any]:
    """The configuration ``c`` as the data of a ``sourcegate.yaml``: every setting, each where
    :data:`gate.config.SETTINGS` puts it (where :func:`gate.config.config_from_dict` reads it)."""
    data: dict[str, Any] = {"format": "sourcegate-config/1"}
    for name, path in SETTINGS.items():
        *parents, last = path
        here = data
        for key in parents:
            here = here.setdefault(key, {})
        here[last] = _plain(getattr(c, name))
    return data


def _plain(value: Any) -> Any:
    """A setting's value as YAML writes it: sets sorted, tuples as lists, mappings and dataclasses as
    dicts (a search provider's unset fields left out: they keep the provider's own)."""
    if isinstance(value, SearchProviderConfig):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value) if getattr(value, f.name) is not None}
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, frozenset | set):
        return sorted(value)
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def _describe(node: Mapping[str, Any], key: str) -> str | None:
    props = node.get("properties")
    if not isinstance(props, Mapping) or not isinstance(props.get(key), Mapping):
        return None
    text = props[key].get("description")
    return str(text) if text else None


def _child(node: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    props = node.get("properties")
    if isinstance(props, Mapping) and isinstance(props.get(key), Mapping):
        return dict(props[key])
    extra = node.get("additionalProperties")
    return dict(extra) if isinstance(extra, Mapping) else {}


def _emit(data: Mapping[str, Any], node: Mapping[str, Any], indent: int) -> list[str]:
    pad = " " * indent
    lines: list[str] = []
    for key, value in data.items():
        about = _describe(node, key)
        if about:
            lines += [f"{pad}# {line}" for line in textwrap.wrap(about, width=max(40, 100 - indent))]
        if isinstance(value, Mapping) and value:
            lines += [f"{pad}{_scalar(key)}:", *_emit(value, _child(node, key), indent + 2)]
        else:
            shown = "{}" if isinstance(value, Mapping) else "[]" if isinstance(value, list) and not value \
                else _scalar(value)
            lines.append(f"{pad}{_scalar(key)}: {shown}")
    return lines


def config_yaml(c: Config | None = None) -> str:
    """A commented ``sourcegate.yaml`` holding every setting of ``c`` (default: every default)."""
    head = ["# sourcegate's configuration: every setting, at its default. Delete what you do not change;",
            "# a setting left out keeps its default. Unknown keys are errors (a typo never goes unnoticed).",
            "# `sourcegate check` reads the sourcegate.yaml beside the golden set (or --config FILE)."]
    return "\n".join([*head, *_emit(config_data(c or Config()), schema("config"), 0)]) + "\n"


def workflow_yaml(golden_path: str) -> str:
    """The example workflow, gating the golden set at ``golden_path`` (relative to the repository root)."""
    text = resources.files("gate").joinpath("data", "workflow.yml").read_text(encoding="utf-8")
    line = f"golden-set: {EXAMPLE_GOLDEN_SET}\n"
    if line not in text:  # a test keeps the template and examples/sourcegate.yml the same
        raise RuntimeError(f"the workflow template has no '{line.strip()}' line")
    return text.replace(line, f"golden-set: {_scalar(golden_path)}\n")
