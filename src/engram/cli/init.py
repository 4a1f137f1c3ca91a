"""`engram init [--global PATH]`: create the memory layout; a second run changes nothing."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from engram.outcome import Outcome

if TYPE_CHECKING:
    from engram.cli.main import Context


def configure_init(p: argparse.ArgumentParser) -> None:
    p.add_argument("--global", dest="global_path", metavar="PATH",
                   help="create a global root at PATH and record it in the user config")


def run_init(args: argparse.Namespace, ctx: Context) -> Outcome:
    from engram.config import read_json_file, set_value
    from engram.errors import UsageError
    from engram.store.fileio import atomic_write
    from engram.store.layout import init_root
    from engram.workspace import Root

    roots = ctx.roots
    if args.global_path:
        root = Root(Path(args.global_path).expanduser().resolve(), "global")
        _check_global_place(root.path, roots.workspace.path)
        changed = init_root(root)
        user = read_json_file(roots.user_config_file)
        if user.get("global_path") != str(root.path):
            atomic_write(roots.user_config_file,
                         json.dumps(set_value(user, "global_path", str(root.path)), indent=2)
                         + "\n")
            changed.append(f"global_path in {roots.user_config_file}")
    else:
        root = roots.workspace
        if _bare_repository(roots.project):
            raise UsageError(f"{roots.project} is a bare git repository: it has no work tree, "
                             "so memory created here would never be committed",
                             code="workspace.bare_git",
                             hint="run `engram init` in a clone (git clone "
                             f"{roots.project} DIR), or pass --workspace DIR")
        changed = init_root(root)
    if changed:
        text = f"initialised {root.scope} memory at {root.path}\n" + "\n".join(
            f"  created {c}" for c in changed)
    else:
        text = f"{root.scope} memory at {root.path} is already initialised; nothing changed"
    return Outcome(text=text, data={"root": str(root.path), "scope": root.scope,
                                    "created": changed})


def _bare_repository(project: Path) -> bool:
    """Whether `project` is (inside) a bare git repository; False without git."""
    import subprocess

    from engram.gitrun import git_argv

    try:
        done = subprocess.run(git_argv(project, "rev-parse", "--is-bare-repository"),
                              capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and done.stdout.strip() == "true"


def _check_global_place(path: Path, workspace: Path) -> None:
    """A global root is a directory of its own: not a file, and not inside this project's
    memory root (every project reads it; there it would be committed with this repository)."""
    from engram.errors import UsageError

    if path.exists() and not path.is_dir():
        raise UsageError(f"{path} is a file, not a directory", code="workspace.not_directory",
                         hint="pass a directory for the global memory, e.g. ~/.engram/global")
    ws = workspace.resolve()
    if path == ws or ws in path.parents:
        raise UsageError(f"{path} is inside this project's memory root",
                         code="workspace.global_inside",
                         hint="keep the global root outside any project, e.g. "
                         "engram init --global ~/.engram/global")
