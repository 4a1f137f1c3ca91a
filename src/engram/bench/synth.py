"""Synthetic Engram roots for the speed benchmarks (100 / 1,000 / 10,000 memories).

`generate(root, n, seed=7)` writes `n` schema-v3 memory files (about 40% rules, 25% skills, 35%
knowledge) into `rules/ skills/ knowledge/` of `root`, plus `memory.hashes.json` (sha256 of every
file, posix relative paths, sorted keys) and a `changelog.md` with only its heading. The same
seed always produces byte-identical files.

Vocabulary comes from `synth_vocab` and is drawn with Zipf-like weights, so a full-text index
sees realistic term statistics: common words everywhere, topic words in their topic, and a long
tail of component names and ticket numbers. Some memories carry `depends_on` (always pointing to
an earlier memory of the same topic, so the graph is acyclic and 2-3 levels deep in places),
`triggers`, a `role` or `confidence: low`.

Deliberately not here: the write helper. Files are written with plain `Path.write_bytes`, not
`engram.store.fileio.atomic_write`, because a benchmark generator fills a fresh scratch directory
that nothing reads concurrently, and an fsync per file would make 10,000 files take minutes
instead of seconds. For the same reason it refuses a root that already holds memory files: it
must never be pointed at a real memory root. It does not parse what it writes; the store's
parser does that when the benchmark loads the root.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from engram.bench import synth_vocab as V
from engram.errors import UsageError
from engram.store.locks import WRITE_FLAGS

TYPE_DIRS = {"rule": "rules", "skill": "skills", "knowledge": "knowledge"}
AUTHORITY = {"rule": "instruction", "skill": "instruction", "knowledge": "reference"}
# Cumulative shares of the type mix: 40% rules, 25% skills, 35% knowledge.
TYPE_MIX = (("rule", 0.40), ("skill", 0.65), ("knowledge", 1.0))
FIRST_DAY = date(2026, 1, 1)
LAST_DAY = date(2026, 11, 30)
_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._/-]*")
_RESERVED = frozenset({"true", "false", "yes", "no", "null", "on", "off", "~"})


@dataclass
class SynthMemory:
    """One generated memory before rendering."""

    id: str
    type: str
    title: str
    meta: dict[str, Any]
    content: list[str]
    variants: tuple[str, str, str] | None = None


def generate(root: Path, n: int, *, seed: int = 7) -> None:
    """Write `n` synthetic memories, their hashes and a changelog into `root`."""
    if n < 0:
        raise UsageError(f"cannot generate {n} memories", hint="pass a count of 0 or more",
                         code="bench.count")
    _refuse_existing_memories(root)
    for sub in TYPE_DIRS.values():
        (root / sub).mkdir(parents=True, exist_ok=True)
    gen = _Generator(random.Random(seed))
    hashes: dict[str, str] = {}
    for _ in range(n):
        memory = gen.next_memory()
        rel = f"{TYPE_DIRS[memory.type]}/{memory.id}.md"
        data = render(memory).encode("utf-8")
        _write(root / rel, data)
        hashes[rel] = hashlib.sha256(data).hexdigest()
    (root / "memory.hashes.json").write_text(
        json.dumps(dict(sorted(hashes.items())), indent=2) + "\n", encoding="utf-8")
    (root / "changelog.md").write_text("# Changelog\n", encoding="utf-8")


def _write(path: Path, data: bytes) -> None:
    # os.open/os.write is about three times faster than Path.write_bytes for many small files.
    fd = os.open(path, WRITE_FLAGS | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def _refuse_existing_memories(root: Path) -> None:
    for sub in TYPE_DIRS.values():
        if (root / sub).is_dir() and any((root / sub).glob("*.md")):
            raise UsageError(f"{root} already holds memory files",
                             hint="generate into a new or empty directory; the generator "
                                  "never overwrites memories", code="bench.root_not_empty")


# The TypeScript tool refuses memories without author fields; a real save records git's author.
SYNTH_AUTHOR = {"author_email": "bench@example.org", "author_name": "Engram Bench"}


def render(memory: SynthMemory) -> str:
    """Canonical v3 text: sorted frontmatter keys, flow lists, `# Title`, `## Content`."""
    lines = ["---"]
    lines += [f"{key}: {_yaml_value(memory.meta[key])}" for key in sorted(memory.meta)]
    lines += ["---", "", f"# {memory.title}", "", "## Content", "", *memory.content]
    if memory.variants:
        light, balanced, strict = memory.variants
        lines += ["", "## Rule Variants", "", "### Light", "", f"- {light}", "",
                  "### Balanced", "", f"- {balanced}", "", "### Strict", "", f"- {strict}"]
    return "\n".join(lines) + "\n"


def _yaml_value(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_yaml_value(v) for v in value) + "]"
    text = str(value)
    if _PLAIN.fullmatch(text) and text.lower() not in _RESERVED and not text.endswith(" "):
        return text
    return json.dumps(text)


def _slugify(text: str) -> str:
    """The id rule (README.md#how-it-works): lower-case, runs of non-[a-z0-9] become `-`, at most
    80 chars."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:80].rstrip("-")


def _zipf(items: tuple[str, ...]) -> list[float]:
    total, cumulative = 0.0, []
    for rank in range(len(items)):
        total += 1.0 / (rank + 1)
        cumulative.append(total)
    return cumulative


class _Generator:
    """Draws memories one after another; state = taken ids and earlier ids per topic."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.components = tuple(f"{a}-{b}" for a in V.COMPONENT_PARTS[0]
                                for b in V.COMPONENT_PARTS[1])
        self.component_weights = _zipf(self.components)
        self._weights: dict[tuple[str, ...], list[float]] = {}
        self.taken: set[str] = set()
        self.title_counts: dict[str, int] = {}
        self.by_topic: dict[str, list[str]] = {t.name: [] for t in V.TOPICS}

    def pick(self, items: tuple[str, ...]) -> str:
        weights = self._weights.get(items)
        if weights is None:
            weights = self._weights[items] = _zipf(items)
        return self.rng.choices(items, cum_weights=weights)[0]

    def words(self, topic: V.Topic) -> _Words:
        return _Words(self, topic)

    def next_memory(self) -> SynthMemory:
        rng = self.rng
        topic = V.TOPICS[rng.randrange(len(V.TOPICS))]
        roll = rng.random()
        mtype = next(name for name, share in TYPE_MIX if roll < share)
        title = self._unique_title(mtype, topic)
        memory = SynthMemory(id=_slugify(title), type=mtype, title=title, meta={},
                             content=self._content(mtype, topic))
        memory.meta = self._meta(memory, topic)
        if mtype == "rule":
            memory.variants = _variants(memory.content[0])
        self.taken.add(memory.id)
        self.by_topic[topic.name].append(memory.id)
        return memory

    def _unique_title(self, mtype: str, topic: V.Topic) -> str:
        templates = {"rule": V.RULE_TITLES, "skill": V.SKILL_TITLES,
                     "knowledge": V.KNOWLEDGE_TITLES}[mtype]
        base = self.rng.choice(templates).format_map(self.words(topic))
        base = base[0].upper() + base[1:]
        title = _cut(base, 62)
        # Popular titles repeat; numbering them per base keeps uniqueness O(1) per memory.
        seen = self.title_counts.get(title, 0)
        self.title_counts[title] = seen + 1
        candidate = title if seen == 0 else f"{title} part {seen + 1}"
        while _slugify(candidate) in self.taken:
            seen += 1
            candidate = f"{title} part {seen + 1}"
        return candidate

    def _content(self, mtype: str, topic: V.Topic) -> list[str]:
        rng = self.rng
        if mtype == "skill":
            steps = rng.sample(V.SKILL_STEPS, rng.randint(3, 6))
            lines = [f"{i}. {s.format_map(self.words(topic))}" for i, s in enumerate(steps, 1)]
        else:
            pool = V.RULE_SENTENCES if mtype == "rule" else V.KNOWLEDGE_SENTENCES
            count = rng.randint(1, 3) if mtype == "rule" else rng.randint(1, 4)
            lines = [f"- {s.format_map(self.words(topic))}" for s in rng.sample(pool, count)]
        # A fifth of skills and knowledge get a longer paragraph, so pack sizes vary as in a
        # real store (a few memories of 300+ words among many short ones).
        if mtype != "rule" and rng.random() < 0.2:
            sentences = [rng.choice(V.KNOWLEDGE_SENTENCES + V.SKILL_STEPS)
                         for _ in range(rng.randint(4, 12))]
            lines += ["", " ".join(s.format_map(self.words(topic)) for s in sentences)]
        return lines

    def _meta(self, memory: SynthMemory, topic: V.Topic) -> dict[str, Any]:
        rng = self.rng
        created = FIRST_DAY + timedelta(days=rng.randrange(304))
        updated = min(created + timedelta(days=rng.choice((0, 0, 0, 3, 12, 40, 90))), LAST_DAY)
        tags = sorted(set(rng.sample(topic.tags, rng.randint(1, 3)))
                      | {_slugify(self.pick(topic.nouns))})
        meta: dict[str, Any] = {
            **SYNTH_AUTHOR, "authority": AUTHORITY[memory.type], "confidence": "high",
            "created": created.isoformat(), "id": memory.id,
            "last_confirmed": updated.isoformat(),
            "revision": 1 if updated == created else rng.randint(2, 4), "schema_version": 3,
            "scope": "workspace", "source": "manual", "tags": tags, "type": memory.type,
            "updated": updated.isoformat(), "valid_from": created.isoformat(),
        }
        earlier = self.by_topic[topic.name]
        if memory.type != "knowledge" and earlier and rng.random() < 0.15:
            # Only earlier ids of the same topic: the graph stays acyclic and chains form.
            recent = earlier[-40:]
            meta["depends_on"] = sorted(rng.sample(recent, rng.randint(1, min(2, len(recent)))))
        if rng.random() < 0.3:
            meta["triggers"] = sorted({self.pick(topic.verbs) for _ in range(rng.randint(1, 3))})
        if rng.random() < 0.05:
            meta["role"] = [rng.choice(V.ROLES)]
        if rng.random() < 0.03:
            meta["confidence"] = "low"
        return meta


class _Words(dict[str, str]):
    """Template fields drawn on first use, so a sentence only pays for the words it uses."""

    def __init__(self, gen: _Generator, topic: V.Topic) -> None:
        super().__init__()
        self.gen, self.topic = gen, topic

    def __missing__(self, key: str) -> str:
        value = self._draw(key)
        self[key] = value
        return value

    def _draw(self, key: str) -> str:
        gen, topic, rng = self.gen, self.topic, self.gen.rng
        if key == "Verb":
            verb = self["verb"]
            return verb[0].upper() + verb[1:]
        if key == "component":
            return rng.choices(gen.components, cum_weights=gen.component_weights)[0]
        if key == "noun2":
            # A second noun that repeats the first reads wrong ("the queue over the queue").
            first = self["noun"]
            return next((n for n in (gen.pick(topic.nouns) for _ in range(4)) if n != first),
                        topic.nouns[-1] if first != topic.nouns[-1] else topic.nouns[0])
        if key in _TOPIC_FIELDS:
            return gen.pick(getattr(topic, _TOPIC_FIELDS[key]))
        if key == "ticket":
            return f"ENG-{rng.randrange(100, 9999)}"
        return topic.name if key == "topic" else str(rng.choice(_PLAIN_FIELDS[key]))


_TOPIC_FIELDS = {"verb": "verbs", "noun": "nouns", "path": "paths", "command": "commands"}
_PLAIN_FIELDS: dict[str, tuple[object, ...]] = {
    "env": ("staging", "production", "preview", "local"),
    "num": (2, 5, 10, 15, 30, 50, 100, 400, 1000), "num2": (7, 14, 30, 90, 365),
    "unit": V.UNITS,
}


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0]


def _variants(first_line: str) -> tuple[str, str, str]:
    balanced = first_line.removeprefix("- ")
    return ("Where practical: " + balanced[0].lower() + balanced[1:],
            balanced, balanced + " No exceptions.")
