"""The semantic extra (off by default): word vectors for the task and for each memory.

Imported only when `semantic.enabled` is true (it needs numpy: `pip install
'engram-protocol[semantic]'`). A text's vector is the SIF-weighted mean of its words' vectors
(weight a / (a + p(w)), p(w) estimated from the word's frequency rank as 0.1 / (rank + 10)), so
common words count little; stop words, generic memory words, numbers and one-letter tokens are
skipped. A memory's vector weighs its title 3, tags and triggers 2 and its content 1. Vectors
are unit length, so a dot product is the cosine. Routing uses them only to fill free pack slots
with candidates that already share a task word (search/similar.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from engram.search.semantic_table import Table, read_table
from engram.search.terms import GENERIC_WORDS, STOP_WORDS

if TYPE_CHECKING:
    from engram.store.model import Memory

Vector = npt.NDArray[np.float32]
SIF_A = 1e-3
_WORD = re.compile(r"[a-z0-9]+")  # hyphenated words split into their parts
FIELD_WEIGHTS = (("title", 3.0), ("tags", 2.0), ("triggers", 2.0), ("content", 1.0))


class Embedder:
    """One loaded table: word → row, the int8 rows, and each row's SIF weight."""

    def __init__(self, table: Table) -> None:
        self.ident = table.ident
        self.dims = table.dims
        self.rows = {w: i for i, w in enumerate(table.words)}
        count = len(table.words)
        self.matrix = np.frombuffer(table.matrix, dtype=np.int8).reshape(count, table.dims)
        rank = np.arange(count, dtype=np.float32)
        self.weights = (SIF_A / (SIF_A + 0.1 / (rank + 10.0))).astype(np.float32)

    def _words(self, text: str) -> list[int]:
        return [r for w in _WORD.findall(text.lower())
                if len(w) > 1 and not w.isdigit() and w not in STOP_WORDS
                and w not in GENERIC_WORDS and (r := self.rows.get(w)) is not None]

    def vector(self, parts: Iterable[tuple[str, float]]) -> Vector | None:
        """The unit SIF-weighted mean of the words of each (text, weight); None when no word
        of any text is in the table."""
        rows: list[int] = []
        scale: list[float] = []
        for text, weight in parts:
            got = self._words(text)
            rows += got
            scale += [weight] * len(got)
        if not rows:
            return None
        idx = np.asarray(rows, dtype=np.intp)
        w = self.weights[idx] * np.asarray(scale, dtype=np.float32)
        v: Vector = (w @ self.matrix[idx].astype(np.float32)).astype(np.float32)
        norm = float(np.linalg.norm(v))
        return v / norm if norm > 0 else None

    def text_vector(self, text: str) -> Vector | None:
        return self.vector([(text, 1.0)])

    def memory_vector(self, m: Memory) -> Vector | None:
        fields = {"title": m.title, "tags": " ".join(m.tags), "triggers": " ".join(m.triggers),
                  "content": m.content or m.body}
        return self.vector((fields[name], weight) for name, weight in FIELD_WEIGHTS)

    def memory_bytes(self, m: Memory) -> bytes:
        """How the index stores a memory's vector: float16, 2 bytes a dimension; empty when
        no word of the memory is in the table (it is then never similar)."""
        v = self.memory_vector(m)
        return b"" if v is None else v.astype(np.float16).tobytes()


def cosine(a: Vector, stored: bytes) -> float:
    b = np.frombuffer(stored, dtype=np.float16).astype(np.float32)
    if b.shape != a.shape:
        return 0.0  # a row from another table's dimensions never matches
    return float(a @ b)


def load(path: Path) -> Embedder:
    """The table at `path`, checked (semantic_table.read_table raises a coded error)."""
    return Embedder(read_table(path))
