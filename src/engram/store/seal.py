"""The per-user secret key and HMAC seals over what only Engram may have written (issue 16).

The key is 32 random bytes in `<state dir>/seal.key` (the state dir is `ENGRAM_CONFIG_DIR`, by
default `~/.engram`: outside every workspace, never in git), created once with mode 0600 in a
0700 directory. A seal is HMAC-SHA256 under that key over length-prefixed parts, so an agent that
can write a workspace but not the user's state dir cannot make one: pending approvals and working
notes carry seals, and a thing whose seal does not verify was not written by Engram. An agent
with a shell as the user can read the key; docs/safety.md says what that means.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from pathlib import Path

from engram import jsontext
from engram.errors import IntegrityError
from engram.store import locks

KEY_FILE = "seal.key"
KEY_BYTES = 32
_KEYS: dict[str, bytes] = {}


def key_path(state_dir: Path) -> Path:
    return state_dir / KEY_FILE


def user_key(state_dir: Path, project: Path | None = None, *, create: bool = True) -> bytes:
    """The user's key, created on first use (FileNotFoundError when `create` is False and there
    is none yet); cached per process. A state dir inside `project` is refused: whatever can
    write the workspace could then read the key."""
    path = key_path(state_dir)
    cached = _KEYS.get(str(path))
    if cached is not None:
        return cached
    if project is not None:
        real, home = state_dir.resolve(), project.resolve()
        if real == home or home in real.parents:
            raise IntegrityError(f"the Engram state directory {state_dir} is inside the "
                                 f"project {project}", code="integrity.key",
                                 hint="set ENGRAM_CONFIG_DIR to a directory outside every "
                                 "workspace (the default is ~/.engram)")
    try:
        key = _read(path)
    except FileNotFoundError:
        if not create:
            raise
        key = _create(path)
    _KEYS[str(path)] = key
    return key


def seal(key: bytes, *parts: str | bytes) -> str:
    """HMAC-SHA256 (hex) over `parts`, each length-prefixed so no two lists of parts collide."""
    import hashlib
    import hmac

    mac = hmac.new(key, digestmod=hashlib.sha256)
    for part in parts:
        # surrogatepass: a root path that is not UTF-8 (lone surrogates) still has bytes
        raw = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        mac.update(len(raw).to_bytes(8, "big"))
        mac.update(raw)
    return mac.hexdigest()


def verify(key: bytes, expected: object, *parts: str | bytes) -> bool:
    import hmac

    return isinstance(expected, str) and hmac.compare_digest(expected, seal(key, *parts))


# Working notes (issue 16): `working/` is git-ignored, so nobody reviews what lands there. Each note
# Engram writes gets a seal over its root, path and bytes in `working/.seals.json`; the read path
# shows a note only when its seal verifies, and `engram notes prune` removes everything else.
NOTE_SEALS = "working/.seals.json"


def note_seal(key: bytes, root: Path, rel: str, data: bytes) -> str:
    return seal(key, "working-note", str(root), rel, data)


def read_note_seals(root: Path) -> dict[str, str]:
    """{rel: seal} of a root's notes; a missing or broken file seals nothing."""

    try:
        fd = locks.open_nofollow(root / NOTE_SEALS)
    except OSError:
        return {}
    try:
        with os.fdopen(fd, "rb") as f:
            data = jsontext.loads(f.read(4 << 20))
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): str(v) for k, v in data.items() if isinstance(v, str)}


def render_note_seals(seals: dict[str, str]) -> str:
    import json

    return json.dumps(dict(sorted(seals.items())), indent=2) + "\n"


def _bad(path: Path, why: str) -> IntegrityError:
    return IntegrityError(f"the Engram key {path} {why}", code="integrity.key",
                          hint=f"delete {path} (open proposals and working notes then need to "
                          "be made again) or fix it: a regular file, mode 0600, owned by you")


def _read(path: Path) -> bytes:
    try:
        fd = locks.open_nofollow(path)
    except OSError as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise _bad(path, f"cannot be read ({exc.strerror})") from exc
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _bad(path, "is not a regular file")
        # POSIX owner and mode bits; on Windows the user's profile directory's ACL guards it.
        if sys.platform != "win32" and (st.st_uid != os.getuid() or st.st_mode & 0o077):
            raise _bad(path, "is readable or writable by other users")
        key = os.read(fd, KEY_BYTES + 1)
    finally:
        os.close(fd)
    if len(key) != KEY_BYTES:
        raise _bad(path, "is damaged (wrong length)")
    return key


def _create(path: Path) -> bytes:
    """Write a new key next to its final name, then link it in: two processes creating at once
    both end up with the one key that won the link."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        tmp = path.with_name(f".{KEY_FILE}.{os.getpid()}.tmp")
        fd = os.open(tmp, locks.WRITE_FLAGS | os.O_CREAT | os.O_EXCL | locks.O_NOFOLLOW, 0o600)
        try:
            os.write(fd, os.urandom(KEY_BYTES))
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        finally:
            with contextlib.suppress(OSError):
                tmp.unlink()
    except OSError as exc:
        raise IntegrityError(f"cannot create the Engram key {path}: {exc.strerror or exc}",
                             code="integrity.key",
                             hint="make the Engram state directory (ENGRAM_CONFIG_DIR, default "
                             "~/.engram) writable by you") from exc
    return _read(path)
