"""Read-path test helpers: build `Memory` objects without the parser."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engram.store.model import Memory

_DIRS = {"rule": "rules", "skill": "skills"}


def mem(mid: str, *, type: str = "knowledge", title: str = "", content: str = "",
        scope: str = "workspace", variants: dict[str, str] | None = None,
        **meta: Any) -> Memory:
    title = title or mid.replace("-", " ").capitalize()
    content = content or f"- {title}."
    body = f"# {title}\n\n## Content\n\n{content}\n"
    if variants:
        body += "\n## Rule Variants\n"
        for name in ("light", "balanced", "strict"):
            body += f"\n### {name.capitalize()}\n\n{variants[name]}\n"
    base: dict[str, Any] = {"id": mid, "type": type, "schema_version": 3}
    base.update(meta)
    rel = f"{_DIRS.get(type, 'knowledge')}/{mid}.md"
    return Memory(id=mid, type=type, title=title, meta=base, body=body,  # type: ignore[arg-type]
                  content=content, rel_path=rel, scope=scope,  # type: ignore[arg-type]
                  variants=dict(variants or {}))


@pytest.fixture
def make_mem() -> Callable[..., Memory]:
    return mem
