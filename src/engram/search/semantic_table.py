"""The semantic extra's word-vector table file: its format, writer and reader (no numpy).

One binary file, `<config dir>/semantic/glove-50k.bin`, built once by
`scripts/build-vectors.py` (never at run time):

    header  magic b"ENGVECS\\0", version u16, count u32, dims u16, vocabulary length u32
    vocab   the words, UTF-8, newline-joined, in the source's frequency order
    matrix  count × dims signed bytes, row i the unit vector of word i times 127

A word's row number is its frequency rank (search/semantic.py weighs words by it). The reader
checks the magic, version, sizes and vocabulary before anything uses the table, so a truncated
or foreign file is a coded error, never a crash later.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from engram.errors import VectorTableError

MAGIC = b"ENGVECS\0"
VERSION = 1
_HEADER = struct.Struct("<8sHIHI")
BUILD_HINT = ("build it with `python scripts/build-vectors.py` (from a source checkout), or "
              "turn the channel off: engram config set semantic.enabled false")


class Table(NamedTuple):
    """A checked table: the words in rank order and the raw int8 matrix bytes."""

    words: list[str]
    dims: int
    matrix: bytes
    ident: str  # changes whenever the file's bytes do (stored vectors are keyed on it)


def encode(words: Sequence[str], dims: int, matrix: bytes) -> bytes:
    """The file's bytes for `words` and their int8 rows (`len(words) * dims` bytes)."""
    if any(not w or "\n" in w for w in words):
        raise ValueError("table words must be non-empty and hold no newline")
    if len(matrix) != len(words) * dims:
        raise ValueError(f"matrix has {len(matrix)} bytes, expected {len(words) * dims}")
    vocab = "\n".join(words).encode("utf-8")
    return _HEADER.pack(MAGIC, VERSION, len(words), dims, len(vocab)) + vocab + matrix


def write_table(path: Path, words: Sequence[str], dims: int, matrix: bytes) -> int:
    """Write a table file atomically; returns its size in bytes."""
    from engram.store.fileio import atomic_write

    data = encode(words, dims, matrix)
    atomic_write(path, data)
    return len(data)


def decode(data: bytes, where: str = "vector table") -> Table:
    """A checked table from a file's bytes; a coded error names what is wrong and the fix."""
    def bad(why: str) -> VectorTableError:
        return VectorTableError(f"{where}: {why}", hint=BUILD_HINT)

    if len(data) < _HEADER.size:
        raise bad("truncated (no header)")
    magic, version, count, dims, vocab_len = _HEADER.unpack_from(data)
    if magic != MAGIC:
        raise bad("not an Engram vector table (bad magic bytes)")
    if version != VERSION:
        raise bad(f"table version {version}, this Engram reads version {VERSION}")
    if count == 0 or dims == 0:
        raise bad("empty table")
    end = _HEADER.size + vocab_len
    if len(data) != end + count * dims:
        raise bad(f"truncated or padded ({len(data)} bytes, expected {end + count * dims})")
    try:
        words = data[_HEADER.size:end].decode("utf-8").split("\n")
    except UnicodeDecodeError as exc:
        raise bad("vocabulary is not UTF-8") from exc
    if len(words) != count:
        raise bad(f"vocabulary holds {len(words)} words, header says {count}")
    ident = f"{count}:{dims}:{zlib.crc32(data):08x}"
    return Table(words, dims, data[end:], ident)


def read_table(path: Path) -> Table:
    try:
        data = path.read_bytes()
    except FileNotFoundError as exc:
        raise VectorTableError(f"no vector table at {path}", hint=BUILD_HINT,
                               code="semantic.table_missing") from exc
    except OSError as exc:
        raise VectorTableError(f"{path}: cannot read: {exc.strerror}", hint=BUILD_HINT) from exc
    return decode(data, str(path))
