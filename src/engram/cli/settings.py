"""`engram set-role`, `set-rule-variant`, `set-save-target`, `set-load-limit`, `set-read`
(docs/saving.md).

Each parses one value and calls `engram.settings`, which writes the workspace config
and adds the agent action line when what `load` returns may have changed.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from engram.outcome import Outcome

if TYPE_CHECKING:
    from engram.cli.main import Context


def configure_set_role(p: argparse.ArgumentParser) -> None:
    p.add_argument("roles", nargs="*", help="roles to make visible (none clears them)")


def run_set_role(args: argparse.Namespace, ctx: Context) -> Outcome:
    from engram.settings import set_role

    return set_role(ctx.roots, args.roles)


def configure_set_rule_variant(p: argparse.ArgumentParser) -> None:
    p.add_argument("mode", choices=["off", "light", "balanced", "strict", "status"])


def run_set_rule_variant(args: argparse.Namespace, ctx: Context) -> Outcome:
    from engram.settings import set_rule_variant

    return set_rule_variant(ctx.roots, args.mode)


def configure_set_save_target(p: argparse.ArgumentParser) -> None:
    p.add_argument("target", choices=["workspace", "global", "both"])


def run_set_save_target(args: argparse.Namespace, ctx: Context) -> Outcome:
    from engram.settings import set_save_target

    return set_save_target(ctx.roots, args.target)


def configure_set_load_limit(p: argparse.ArgumentParser) -> None:
    p.add_argument("limit", help="1..32, or reset")


def run_set_load_limit(args: argparse.Namespace, ctx: Context) -> Outcome:
    from engram.settings import set_load_limit

    return set_load_limit(ctx.roots, args.limit)


def configure_set_read(p: argparse.ArgumentParser) -> None:
    p.add_argument("mode", choices=["startup", "auto", "always", "manual", "off"])


def run_set_read(args: argparse.Namespace, ctx: Context) -> Outcome:
    from engram.settings import set_read

    return set_read(ctx.roots, args.mode)
