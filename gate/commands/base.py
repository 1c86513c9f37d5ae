"""What every sub-command module provides, and the parser class they all build with.

A command is a module with ``add_parser(subparsers)``, which adds its sub-parser, and
``run(args) -> int``, which does the work and returns an exit code (:class:`gate.exitcodes.ExitCode`).
Exceptions are left to :func:`gate.exitcodes.guarded`, the one place they become exit codes.
"""

from __future__ import annotations

import argparse
import re
from typing import Any, Protocol

from gate.errors import InputError
from gate.publish import LOGIN_FORM, is_login
from gate.suggest import did_you_mean

__all__ = ["Command", "Parser", "add_comment_author"]

Subparsers = Any
"""``argparse``'s sub-parser action (its class is private)."""


class Parser(argparse.ArgumentParser):
    """An argument parser that raises :class:`InputError` instead of exiting by itself."""

    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse exits by itself; raise instead so the exit-code mapping stays in one place.
        raise InputError(f"usage: {_with_suggestion(message)} (see `{self.prog} --help`)")


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
