"""Fixtures of the openhip.llm tests: ggml's own C quantisers (libggml-base from the
llama-cpp-python wheel, through ctypes; tests that need them skip where it is not installed) and
tiny GGUF models made by tools/make_gguf_model.py."""

from __future__ import annotations

import ctypes
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

_REF_NAMES = {"q8_0": "q8_0", "q4_0": "q4_0", "q4_1": "q4_1", "q5_0": "q5_0", "q5_1": "q5_1",
              "q4_k": "q4_K", "q6_k": "q6_K"}


class GgmlRef:
    """ggml-quants.c's reference functions, called on numpy arrays."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self.lib = lib

    def quantize(self, x: np.ndarray, name: str, row_bytes: int) -> np.ndarray:
        x = np.ascontiguousarray(x, np.float32).reshape(-1)
        out = np.zeros(row_bytes, np.uint8)
        p = ctypes.c_void_p
        if name == "f16":
            fn = self.lib.ggml_fp32_to_fp16_row
        elif name == "bf16":
            fn = self.lib.ggml_fp32_to_bf16_row_ref
        else:
            fn = getattr(self.lib, f"quantize_row_{_REF_NAMES[name]}_ref")
        fn.argtypes = [p, p, ctypes.c_int64]
        fn.restype = None
        fn(x.ctypes.data, out.ctypes.data, x.size)
        return out

    def dequantize(self, q: np.ndarray, name: str, n: int) -> np.ndarray:
        q = np.ascontiguousarray(q).view(np.uint8).reshape(-1)
        out = np.zeros(n, np.float32)
        p = ctypes.c_void_p
        fn = (self.lib.ggml_fp16_to_fp32_row if name == "f16"
              else getattr(self.lib, f"dequantize_row_{_REF_NAMES[name]}"))
        fn.argtypes = [p, p, ctypes.c_int64]
        fn.restype = None
        fn(q.ctypes.data, out.ctypes.data, n)
        return out


@pytest.fixture(scope="session")
def ggml_ref() -> GgmlRef:
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or spec.origin is None:
        pytest.skip("llama-cpp-python is not installed (ggml's C reference quantisers)")
    lib_dir = Path(spec.origin).parent / "lib"
    candidates = sorted(lib_dir.glob("libggml-base.so*"))
    if not candidates:
        pytest.skip(f"no libggml-base in {lib_dir}")
    return GgmlRef(ctypes.CDLL(str(candidates[0])))


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory):
    """make(type="f32", vocab="llama", arch="llama", **overrides) -> path of a tiny GGUF model
    (made once per session and combination)."""
    import make_gguf_model

    made: dict[tuple, Path] = {}
    root = tmp_path_factory.mktemp("gguf")

    def make(type_name: str = "f32", vocab: str = "llama", arch: str = "llama",
             seed: int = 0, **overrides) -> Path:
        key = (type_name, vocab, arch, seed, tuple(sorted(overrides.items())))
        if key not in made:
            name = "-".join(str(k) for k in key[:4]) + "".join(
                f"-{k}{v}" for k, v in key[4]) + ".gguf"
            made[key] = make_gguf_model.write_model(root / name, "tiny", type_name, vocab, arch,
                                                    seed, **overrides)
        return made[key]

    return make
