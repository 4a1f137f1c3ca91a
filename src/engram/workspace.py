"""Resolve the roots Engram works on, once per command: workspace, optional global, user config.

The workspace root is `<project>/.agents/.engram`, where the project is the nearest ancestor that
holds `.agents/.engram`, else the git top level, else the working directory; `--workspace DIR` and
`ENGRAM_WORKSPACE` override. The global root is `ENGRAM_GLOBAL_DIR`, else the user config's
`global_path`. This module only computes paths; it creates nothing (init.py does), and refuses
roots behind symlinks a repository could plant (containment.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, NamedTuple

from engram.config import CONFIG_FILE, Env, Settings, load_settings, read_env, read_json_file
from engram.errors import UsageError

Scope = Literal["workspace", "global"]
TYPE_DIRS = ("rules", "skills", "knowledge")
IGNORED_LINES = ("working/", "pending-approvals.json", "usage.json", ".cache/", ".lock")
ROOT_REL = Path(".agents") / ".engram"


class Root(NamedTuple):
    """One memory root and the fixed names inside it (README.md#how-it-works)."""

    path: Path
    scope: Scope

    @property
    def hashes_file(self) -> Path:
        return self.path / "memory.hashes.json"

    @property
    def changelog_file(self) -> Path:
        return self.path / "changelog.md"

    @property
    def config_file(self) -> Path:
        return self.path / CONFIG_FILE

    @property
    def working_dir(self) -> Path:
        return self.path / "working"

    @property
    def archive_dir(self) -> Path:
        return self.path / "archive"

    @property
    def usage_file(self) -> Path:
        return self.path / "usage.json"

    @property
    def cache_dir(self) -> Path:
        return self.path / ".cache"

    @property
    def lock_file(self) -> Path:
        return self.path / ".lock"

    @property
    def gitignore_file(self) -> Path:
        return self.path / ".gitignore"

    def exists(self) -> bool:
        return self.path.is_dir()


class Roots(NamedTuple):
    project: Path
    workspace: Root
    global_root: Root | None
    config_dir: Path
    env: Env

    @property
    def user_config_file(self) -> Path:
        return self.config_dir / CONFIG_FILE

    @property
    def state_dir(self) -> Path:
        """The user's Engram state (seal key, pending approvals): outside every workspace."""
        return self.config_dir

    @property
    def vectors_file(self) -> Path:
        """The semantic extra's word-vector table (search/semantic_table.py), built once by
        scripts/build-vectors.py; shared by every workspace of the user."""
        return self.config_dir / "semantic" / "glove-50k.bin"

    @property
    def pending_file(self) -> Path:
        """Pending approvals of this workspace, kept in the user's state dir (docs/safety.md)."""
        import hashlib

        raw = str(self.workspace.path).encode("utf-8", "surrogatepass")  # a non-UTF-8 folder
        name = hashlib.sha256(raw).hexdigest()[:32]
        return self.state_dir / "pending" / f"{name}.json"

    def all(self) -> list[Root]:
        """Workspace first: it wins over global on the same id."""
        roots = [self.workspace]
        if self.global_root is not None and self.global_root.path != self.workspace.path:
            roots.append(self.global_root)
        return roots

    def existing(self) -> list[Root]:
        return [r for r in self.all() if r.exists()]

    def root(self, scope: Scope) -> Root | None:
        return self.workspace if scope == "workspace" else self.global_root

    def settings(self) -> Settings:
        files = [self.user_config_file]
        if self.global_root is not None:
            files.append(self.global_root.config_file)
        files.append(self.workspace.config_file)
        settings = load_settings(files, repo=(self.workspace.config_file,))
        if settings.values.get("scope") is None:
            settings.values["scope"] = "both" if self.has_global() else "workspace"
        return settings

    def has_global(self) -> bool:
        return self.global_root is not None and self.global_root.exists()


def find_project(start: Path) -> Path:
    """Nearest ancestor with `.agents/.engram`, else the git top level, else `start`."""
    start = start.resolve()
    candidates = [start, *start.parents]
    for d in candidates:
        if (d / ROOT_REL).is_dir():
            return d
    for d in candidates:
        if (d / ".git").exists():
            return d
    return start


def resolve(env: Env | None = None, workspace: str | Path | None = None, *,
            contain: bool = True) -> Roots:
    """The roots of a command. With `contain` (the default) a symlinked workspace root, type
    folder or state file is refused (`engram.containment`); `engram doctor` looks without."""
    env = env or read_env()
    chosen = workspace or env.workspace
    if chosen:
        base = Path(chosen).expanduser()
        base = base if base.is_absolute() else env.cwd / base
        if base.exists() and not base.is_dir():
            raise UsageError(f"workspace {chosen} is a file, not a directory",
                             code="workspace.not_directory",
                             hint="pass the project directory (the one holding .agents/.engram)")
        # Accept either the project directory or the root itself. The root is not resolved
        # through a symlink: that would move the workspace to wherever the link points
        # (containment refuses the link instead); the project directory may be one.
        if base.name == ".engram" and base.parent.name == ".agents":
            project = base.parent.parent.resolve()
        else:
            project = base.resolve()
            if project.name == ".engram" and project.parent.name == ".agents":
                project = project.parent.parent
    else:
        project = find_project(env.cwd)
    global_root = None
    if env.global_dir:
        global_root = Root(Path(env.global_dir).expanduser().resolve(), "global")
    else:
        user = read_json_file(env.config_dir / CONFIG_FILE)
        gp = user.get("global_path")
        if isinstance(gp, str) and gp:
            global_root = Root(Path(gp).expanduser().resolve(), "global")
    roots = Roots(
        project=project,
        workspace=Root(project / ROOT_REL, "workspace"),
        global_root=global_root,
        config_dir=env.config_dir,
        env=env,
    )
    if contain:
        from engram.containment import ensure

        ensure(roots)
    return roots
