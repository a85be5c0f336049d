"""Whether the local model runs its matrix products in bfloat16 (`PARLEY_EMBEDDING_BF16`: auto, on, off).

On a CPU with native bfloat16 arithmetic (AVX512-BF16 or AMX), torch's CPU autocast runs all-MiniLM-L6-v2's
linear layers in bfloat16 with float32 accumulation and keeps layer norms, softmax, pooling and the
normalisation in float32. On this project's 2-core machine (AVX512-BF16) batches and questions embed
faster, more so once the linear weights are cast at load (textmodels.embeddings.local), with vectors
closer to float32's than the half-precision copies the HNSW graphs already walk (the figures:
`docs/decisions/embedding-precision.md`). Where the CPU has no native bfloat16 it would be emulated, slower
than float32, so "auto" keeps float32 there.
"""

from __future__ import annotations

import functools

from django.conf import settings

# A loaded model checks itself once (textmodels.embeddings.local): these texts' bfloat16 vectors must be at
# this cosine or more to their float32 ones (measured: 0.99996 or more), else it stays in float32.
BF16_PROBE_TEXTS = (
    "How long does the battery last in winter?",
    "Returns › Policy\n\nYou can return any accessory within 30 days. " * 12,
)
BF16_MIN_COSINE = 0.999


def embedding_bf16() -> bool:
    """True when this process's local model should run in bfloat16."""
    choice = settings.PARLEY_EMBEDDING_BF16
    if choice in ("on", "off"):
        return choice == "on"
    return bf16_native()


@functools.cache
def bf16_native() -> bool:
    """The CPU does bfloat16 arithmetic in hardware (torch's own probe of the instruction sets)."""
    import torch

    probes = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    return any(bool(getattr(torch.cpu, name, lambda: False)()) for name in probes)
