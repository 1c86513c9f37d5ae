"""What every sub-command module provides, and the parser class they all build with.

A command is a module with ``add_parser(subparsers)``, which adds its sub-parser, and
``run(args) -> int``, which does the work and returns an exit code (:class:`gate.exitcodes.ExitCode`).
Exceptions are left to :func:`gate.errors.guarded`, the one place they become exit codes.
"""

from __future__ import annotations

import argparse
import re
from difflib import get_close_matches
from typing import Any, Protocol

from gate.config import JUDGE_MODES
from gate.deliver.publish import LOGIN_FORM, is_login
from gate.errors import InputError
from gate.judge.providers import PROVIDERS
from gate.text.suggest import did_you_mean

__all__ = ["Command", "Parser", "add_comment_author", "add_judge_options", "unrecognized"]

Subparsers = Any
"""``argparse``'s sub-parser action (its class is private)."""


class Parser(argparse.ArgumentParser):
    """An argument parser that raises :class:`InputError` instead of exiting by itself."""

    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse exits by itself; raise instead so the exit-code mapping stays in one place.
        raise InputError(f"usage: {_with_suggestion(message)} (see `{self.prog} --help`)")


def add_judge_options(c: argparse.ArgumentParser) -> None:
    """``--judge`` and ``--judge-provider``: the same two options on every command that judges."""
    c.add_argument("--judge", choices=JUDGE_MODES, default=None, metavar="MODE",
                   help="live, batch, replay or off (default: judge.mode)")
    c.add_argument("--judge-provider", choices=tuple(PROVIDERS), default=None, metavar="P",
                   help=f"{', '.join(PROVIDERS)} (default: judge.provider)")


def unrecognized(parser: argparse.ArgumentParser, args: argparse.Namespace, extra: list[str]) -> InputError:
    """The usage error for arguments the chosen (sub-)command does not know: "did you mean" its
    closest option, and its own ``--help``."""
    sub = _chosen(parser, args)
    # compared without the dashes, which every option shares
    options = [o.removeprefix("--") for o in sub._option_string_actions if o.startswith("--")]
    first = next((a.split("=", 1)[0] for a in extra if a.startswith("-")), None)
    close = get_close_matches(first.lstrip("-"), options, n=1, cutoff=0.6) if first is not None else []
    hint = f" (did you mean '--{close[0]}'?)" if close else ""
    return InputError(f"usage: unrecognized arguments: {' '.join(extra)}{hint} (see `{sub.prog} --help`)")


def _chosen(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The innermost sub-command parser ``args`` chose (``sourcegate baseline update``'s own)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            name = getattr(args, action.dest, None)
            if name in action.choices:
                return _chosen(action.choices[name], args)
    return parser


def _with_suggestion(message: str) -> str:
    """argparse's ``invalid choice: 'chek' (choose from 'check', ...)`` with "did you mean" added."""
    m = re.match(r"(argument [^:]+: invalid choice: '([^']*)') \(choose from (.*)\)$", message)
    if m is None:
        return message
    choices = re.findall(r"'([^']*)'", m.group(3))
    return f"{m.group(1)}{did_you_mean(m.group(2), choices)}; choose from {', '.join(choices)}"


class Command(Protocol):
    """One sub-command: how it is parsed, and what it does."""

    def add_parser(self, sub: Subparsers) -> None:
        """Add this command's parser to the main parser's sub-parsers."""

    def run(self, args: argparse.Namespace) -> int:
        """Do the command's work; return its exit code."""


def _login(value: str) -> str:
    if not is_login(value):
        raise argparse.ArgumentTypeError(f"{value!r} is not a GitHub login ({LOGIN_FORM})")
    return value


def add_comment_author(c: argparse.ArgumentParser) -> None:
    """The ``--comment-author`` option of the commands that post the PR comment."""
    c.add_argument("--comment-author", action="append", type=_login, metavar="LOGIN",
                   help="also take LOGIN's comments as ours, e.g. my-app[bot] (repeatable; default: "
                        "$SOURCEGATE_COMMENT_AUTHORS)")
