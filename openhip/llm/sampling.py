"""Token sampling: greedy, or top-k / top-p / min-p / temperature in llama.cpp's default order,
drawn with a counter-based RNG (Philox keyed by the seed, the step as the counter), so a seeded
generation is reproducible and each step's draw does not depend on the earlier ones."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

__all__ = ["SamplingParams", "sample", "uniform"]


@dataclass(frozen=True)
class SamplingParams:
    """Checked sampling parameters (see :meth:`checked`)."""

    temperature: float
    top_k: int
    top_p: float
    min_p: float
    seed: int

    @classmethod
    def checked(cls, temperature: float, top_k: int, top_p: float, min_p: float,
                seed: int | None) -> SamplingParams:
        """ValueError for a temperature < 0, top_k < 0, top_p outside (0, 1], min_p outside
        [0, 1] or a negative seed; TypeError for values of the wrong kind."""
        def num(name, v):
            if isinstance(v, bool) or not isinstance(v, (int, float, np.floating, np.integer)):
                raise TypeError(f"{name} must be a number, not {type(v).__name__}")
            v = float(v)
            if not np.isfinite(v):
                raise ValueError(f"{name} must be finite, not {v}")
            return v

        temperature = num("temperature", temperature)
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0, not {temperature}")
        if isinstance(top_k, bool) or not isinstance(top_k, (int, np.integer)) or top_k < 0:
            raise ValueError(f"top_k must be an int >= 0 (0: off), not {top_k!r}")
        top_p = num("top_p", top_p)
        if not 0.0 < top_p <= 1.0:
            raise ValueError(f"top_p must be in (0, 1], not {top_p}")
        min_p = num("min_p", min_p)
        if not 0.0 <= min_p <= 1.0:
            raise ValueError(f"min_p must be in [0, 1], not {min_p}")
        if seed is None:
            seed = int.from_bytes(os.urandom(8), "little")
        elif isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be an int >= 0 or None, not {seed!r}")
        return cls(temperature, int(top_k), top_p, min_p, int(seed))


def uniform(seed: int, step: int) -> float:
    """A uniform double in [0, 1) for (seed, step): Philox-4x64 with key ``seed`` and counter
    ``step`` (numpy's counter-based generator)."""
    bitgen = np.random.Philox(key=int(seed) & ((1 << 128) - 1), counter=int(step))
    return float(np.random.Generator(bitgen).random())


def sample(logits: np.ndarray, p: SamplingParams, step: int) -> int:
    """The token chosen from one row of logits."""
    logits = np.asarray(logits, np.float32).ravel()
    if p.temperature == 0.0:
        return int(np.argmax(logits))
    order = np.argsort(-logits, kind="stable")  # descending, ties by id
    if p.top_k > 0:
        order = order[: p.top_k]
    z = logits[order].astype(np.float64)
    probs = np.exp(z - z[0])
    probs /= probs.sum()
    if p.top_p < 1.0:
        keep = int(np.searchsorted(np.cumsum(probs), p.top_p) + 1)
        order, z, probs = order[:keep], z[:keep], probs[:keep]
    if p.min_p > 0.0:
        keep = probs >= p.min_p * probs[0]
        order, z = order[keep], z[keep]
    w = np.exp((z - z[0]) / p.temperature)
    c = np.cumsum(w)
    u = uniform(p.seed, step) * c[-1]
    return int(order[min(int(np.searchsorted(c, u, side="right")), len(order) - 1)])
