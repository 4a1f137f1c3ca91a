"""The author recorded on new memories: `git config user.name/email`, else `author: unknown`.

Asked once per proposal with a short timeout so a slow or missing git never stalls a save. The
e-mail found here is the one address the PII scan allows in author fields.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from engram.gitrun import git_argv
from engram.safety import printable

GIT_TIMEOUT_S = 2.0


@dataclass(frozen=True)
class Author:
    name: str = ""
    email: str = ""

    def meta(self) -> dict[str, str]:
        if not self.name and not self.email:
            return {"author": "unknown"}
        out = {}
        if self.name:
            out["author_name"] = self.name
        if self.email:
            out["author_email"] = self.email
        return out


def _git_config(cwd: Path, key: str) -> str:
    try:
        done = subprocess.run(git_argv(cwd, "config", "--get", key), capture_output=True,
                              text=True, timeout=GIT_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    # git config is not reviewed by anyone approving a memory: invisible or control characters
    # in it are written escaped (visible), never as they are (docs/safety.md).
    return printable(done.stdout.strip(), 200) if done.returncode == 0 else ""


# The repository's `.git/config` can set user.name and user.email, and the approval dialog
# does not show them: they are kept only when they look like a person's name (a few words of
# letters) and an e-mail address, never as a sentence written into every approved memory.
_NAME = re.compile(r"[^\W\d_][\w.'’-]{0,23}(?: [^\W\d_][\w.'’-]{0,23}){0,5}")
_EMAIL = re.compile(r"[\w.+'-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}")


def name_shaped(name: str) -> str:
    """`name` when it reads as a person's name (at most six words of letters), else ""."""
    return name if len(name) <= 64 and _NAME.fullmatch(name) else ""


def email_shaped(email: str) -> str:
    return email if len(email) <= 254 and _EMAIL.fullmatch(email) else ""


def git_author(project: Path) -> Author:
    cwd = project if project.is_dir() else Path.cwd()
    return Author(name_shaped(_git_config(cwd, "user.name")),
                  email_shaped(_git_config(cwd, "user.email")))
