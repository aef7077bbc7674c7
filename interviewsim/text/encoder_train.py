"""Fine-tuning the sentence encoder for a task, and storing the result small (development time).

Needs PyTorch, which nothing at run time does (``pip install torch==2.13.0``; on Linux take the
CPU build, ``--index-url https://download.pytorch.org/whl/cpu``); what it writes is read by
:class:`interviewsim.text.encoder.AdaptedEncoder` in numpy. The agent's language layer uses it
(:mod:`interviewsim.agent.language_train`).

:func:`fine_tune`: every weight but the word embeddings, AdamW (``LEARNING_RATE``, the head
``HEAD_LEARNING_RATE``, weight decay 0.01), batches of :data:`BATCH`, a linear warm-up over 6% of
the steps then linear decay, dropout 0.1, one sigmoid output per label with binary cross-entropy
over the outputs an item's mask allows. Seeded and single-process (deterministic algorithms),
so the same inputs on the same machine give the same weights; another CPU or PyTorch build may
differ in the last bits. :func:`compress` stores the result as low-rank differences from the base
encoder, :func:`save` writes them byte-reproducibly.
"""

from __future__ import annotations

import io
import math
import sys
import time
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from interviewsim.text.encoder import (
    ADAPTED,
    HEADS,
    HIDDEN,
    LAYERS,
    MAX_TOKENS,
    WEIGHTS_SHA256,
    base_files,
)

BATCH = 32
LEARNING_RATE = 5e-5
HEAD_LEARNING_RATE = 1e-3
SEED = 0
RANK = 64
"""Rank of each stored weight difference (:func:`compress`)."""


def torch_module():
    """PyTorch, or an exit that says how to install it."""
    try:
        import torch
    except ImportError:  # pragma: no cover - depends on the machine
        sys.exit("fine-tuning the encoder needs PyTorch: pip install torch==2.13.0 (CPU build: "
                 "--index-url https://download.pytorch.org/whl/cpu)")
    return torch


def fine_tune(coded: Sequence[tuple[list[int], list[int]]], gold: np.ndarray, mask: np.ndarray,
              epochs: int, seed: int = SEED, log: Callable[[str], object] = print,
              ) -> dict[str, np.ndarray]:
    """The encoder fine-tuned on tokenised pairs ``coded`` (:meth:`WordPiece.pair`) with targets
    ``gold`` (items x outputs, 0/1) where ``mask`` is 1: every tensor of the base plus
    ``head.weight`` and ``head.bias``, as float32 arrays."""
    torch = torch_module()
    functional = torch.nn.functional
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    tensors, _ = base_files()
    outputs = gold.shape[1]
    params = {k: torch.nn.Parameter(torch.tensor(np.asarray(v, dtype=np.float32)))
              for k, v in tensors.items() if not k.endswith("position_ids")}
    params["embeddings.word_embeddings.weight"].requires_grad_(False)
    rng = np.random.default_rng(seed)
    head_w = torch.nn.Parameter(torch.tensor(rng.normal(0, 0.02, (outputs, HIDDEN)),
                                             dtype=torch.float32))
    head_b = torch.nn.Parameter(torch.zeros(outputs))
    gold_t = torch.tensor(np.asarray(gold, dtype=np.float32))
    mask_t = torch.tensor(np.asarray(mask, dtype=np.float32))
    dropout = torch.nn.Dropout(0.1)

    trained = [t for t in params.values() if t.requires_grad]
    optimiser = torch.optim.AdamW([{"params": trained, "lr": LEARNING_RATE},
                                   {"params": [head_w, head_b], "lr": HEAD_LEARNING_RATE}],
                                  weight_decay=0.01)
    steps = math.ceil(len(coded) / BATCH) * epochs
    warm = max(1, int(steps * 0.06))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min(1.0, s / warm) * max(0.0, (steps - s) / steps))
    step, start = 0, time.time()
    for _ in range(epochs):
        order = rng.permutation(len(coded))
        for first in range(0, len(order), BATCH):
            rows = order[first:first + BATCH]
            logits = _forward(functional, params, (head_w, head_b), dropout,
                              *_batch(torch, coded, rows))
            loss = (functional.binary_cross_entropy_with_logits(
                logits, gold_t[rows], reduction="none") * mask_t[rows]).sum()
            loss = loss / mask_t[rows].sum()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            step += 1
            if step % 100 == 0:
                log(f"  step {step}/{steps}  loss {loss.item():.4f}  {time.time() - start:.0f} s")
    out = {k: v.detach().numpy().copy() for k, v in params.items()}
    out["head.weight"], out["head.bias"] = head_w.detach().numpy(), head_b.detach().numpy()
    return out


def _forward(functional, p, head, dropout, ids, seg, attend):
    """The encoder's forward pass in PyTorch (the numpy one is
    :meth:`interviewsim.text.encoder.Encoder.pooled`) and the head's logits."""
    batch, length = ids.shape
    x = (p["embeddings.word_embeddings.weight"][ids]
         + p["embeddings.position_embeddings.weight"][:length][None]
         + p["embeddings.token_type_embeddings.weight"][seg])
    x = dropout(functional.layer_norm(x, (HIDDEN,), p["embeddings.LayerNorm.weight"],
                                      p["embeddings.LayerNorm.bias"], 1e-12))
    bias = (1.0 - attend[:, None, None, :]) * -1e9
    size = HIDDEN // HEADS
    for i in range(LAYERS):
        pre = f"encoder.layer.{i}."

        def dense(h, name, pre=pre):
            return functional.linear(h, p[pre + name + ".weight"], p[pre + name + ".bias"])

        def heads(h):
            return h.view(batch, length, HEADS, size).transpose(1, 2)

        q, k, v = (heads(dense(x, f"attention.self.{n}")) for n in ("query", "key", "value"))
        attn = dropout(((q @ k.transpose(-1, -2)) / math.sqrt(size) + bias).softmax(-1))
        context = (attn @ v).transpose(1, 2).reshape(batch, length, HIDDEN)
        x = functional.layer_norm(
            x + dropout(dense(context, "attention.output.dense")), (HIDDEN,),
            p[pre + "attention.output.LayerNorm.weight"],
            p[pre + "attention.output.LayerNorm.bias"], 1e-12)
        h = dense(functional.gelu(dense(x, "intermediate.dense")), "output.dense")
        x = functional.layer_norm(x + dropout(h), (HIDDEN,), p[pre + "output.LayerNorm.weight"],
                                  p[pre + "output.LayerNorm.bias"], 1e-12)
    pooled = (x * attend[..., None]).sum(1) / attend.sum(1, keepdim=True)
    return functional.linear(dropout(pooled), *head)


def _batch(torch, coded: Sequence[tuple[list[int], list[int]]], rows):
    """Token ids, segment ids and the attention mask of ``rows`` of ``coded``, right-padded."""
    length = max(len(coded[r][0]) for r in rows)
    ids = torch.zeros(len(rows), length, dtype=torch.long)
    seg = torch.zeros_like(ids)
    attend = torch.zeros(len(rows), length)
    for j, r in enumerate(rows):
        a, b = coded[r]
        ids[j, :len(a)], seg[j, :len(b)], attend[j, :len(a)] = (
            torch.tensor(a), torch.tensor(b), 1.0)
    return ids, seg, attend


def _adapted(name: str) -> bool:
    """``encoder.layer.N.<one of ADAPTED>.weight``."""
    parts = name.split(".")
    return (name.startswith("encoder.layer.") and parts[-1] == "weight"
            and ".".join(parts[3:-1]) in ADAPTED)


def compress(tuned: dict[str, np.ndarray], rank: int = RANK,
             positions: int = MAX_TOKENS) -> dict[str, np.ndarray]:
    """The fine-tuned encoder as differences from the base: each adapted dense weight's as two
    factors of rank ``rank`` (truncated SVD, ``up @ down``, float16), every other changed
    tensor whole (of the position embeddings, the first ``positions`` rows, all a task reads)."""
    base, _ = base_files()
    stored: dict[str, np.ndarray] = {}
    for name, value in sorted(tuned.items()):
        if name.startswith("head."):
            stored[name] = value.astype(np.float32)
            continue
        delta = value.astype(np.float64) - np.asarray(base[name], dtype=np.float64)
        if not delta.any():
            continue
        if _adapted(name):
            u, s, vt = np.linalg.svd(delta, full_matrices=False)
            stored[f"up:{name}"] = (u[:, :rank] * s[:rank]).astype(np.float16)
            stored[f"down:{name}"] = vt[:rank].astype(np.float16)
        elif name == "embeddings.position_embeddings.weight":
            stored[f"delta:{name}"] = delta[:positions].astype(np.float32)
        else:
            stored[f"delta:{name}"] = delta.astype(np.float32)
    return stored


def save(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """``arrays`` (with the base encoder's SHA-256 added) as an ``.npz`` whose bytes depend only
    on its contents (fixed member dates and order), written to a temporary file then renamed."""
    arrays = {**arrays, "base_sha256": np.array(WEIGHTS_SHA256)}
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(arrays):
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.ascontiguousarray(arrays[name]),
                                      allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, buffer.getvalue())
    partial.replace(path)
