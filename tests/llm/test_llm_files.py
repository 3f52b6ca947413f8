"""Bad GGUF files: truncated or corrupt files, an unsupported architecture or tensor type, a
missing tensor -> a clear exception naming the problem; never a crash (the corruption sweep runs
in a subprocess with a timeout)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import openhip.llm as llm
from openhip.llm import GGUFError, UnsupportedModelError

gguf = pytest.importorskip("gguf")


def test_not_a_file_and_not_gguf(tmp_path):
    with pytest.raises(FileNotFoundError):
        llm.load(tmp_path / "missing.gguf")
    p = tmp_path / "x.gguf"
    p.write_bytes(b"PK\x03\x04" + b"\0" * 100)
    with pytest.raises(GGUFError, match="not a GGUF file"):
        llm.load(p)


@pytest.mark.parametrize("frac", [0.0001, 0.01, 0.3, 0.9, 0.999])
def test_truncated(tiny_model, tmp_path, frac):
    data = tiny_model("q8_0").read_bytes()
    p = tmp_path / "t.gguf"
    p.write_bytes(data[: max(5, int(len(data) * frac))])
    with pytest.raises(GGUFError, match="truncated|corrupt|missing"):
        llm.load(p)


def test_unsupported_architecture(tmp_path):
    p = tmp_path / "mamba.gguf"
    w = gguf.GGUFWriter(str(p), "mamba")
    w.add_tensor("token_embd.weight", np.zeros((4, 32), np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    with pytest.raises(UnsupportedModelError, match="unsupported architecture 'mamba'"):
        llm.load(p)


def _rewrite(src, dst, change):
    """Copy a GGUF file through gguf's reader/writer, letting change(name, array, type) return
    (array, raw_type) or None to drop the tensor."""
    r = gguf.GGUFReader(str(src))
    arch = r.fields["general.architecture"].contents()
    w = gguf.GGUFWriter(str(dst), arch)
    for k, f in r.fields.items():
        if k.startswith("GGUF.") or k == "general.architecture":
            continue
        val = f.contents()
        vt = f.types[0]
        if vt == gguf.GGUFValueType.ARRAY:
            w.add_array(k, val)
        elif vt == gguf.GGUFValueType.STRING:
            w.add_string(k, val)
        else:
            w.add_key_value(k, val, vt)
    for t in r.tensors:
        out = change(t.name, np.asarray(t.data), t.tensor_type)
        if out is None:
            continue
        data, raw = out
        if raw in (gguf.GGMLQuantizationType.F32, gguf.GGMLQuantizationType.F16):
            w.add_tensor(t.name, data)
        else:
            w.add_tensor(t.name, data, raw_shape=data.shape, raw_dtype=raw)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def test_unsupported_tensor_type(tiny_model, tmp_path):
    src = tiny_model("f32", dim=256, ffn=512)
    dst = tmp_path / "q2k.gguf"

    def change(name, data, typ):
        if name == "blk.0.ffn_up.weight":
            rows = data.shape[0]
            return np.zeros((rows, 256 // 256 * 84), np.uint8), gguf.GGMLQuantizationType.Q2_K
        return data, typ

    _rewrite(src, dst, change)
    with pytest.raises(UnsupportedModelError, match="blk.0.ffn_up.weight.*Q2_K"):
        llm.load(dst)


def test_missing_tensor(tiny_model, tmp_path):
    dst = tmp_path / "missing.gguf"
    _rewrite(tiny_model("f32"), dst,
             lambda n, d, t: None if n == "blk.1.attn_v.weight" else (d, t))
    with pytest.raises(GGUFError, match="blk.1.attn_v.weight.*missing"):
        llm.load(dst)


SWEEP = textwrap.dedent(r"""
    import sys, numpy as np
    import openhip.llm as llm
    from openhip.llm import GGUFError
    data = bytearray(open(sys.argv[1], "rb").read())
    rng = np.random.default_rng(0)
    kinds = {}
    for trial in range(40):
        d = bytearray(data)
        for _ in range(4):  # flip bytes in the header / metadata / tensor-info region
            i = int(rng.integers(4, min(len(d), 20000)))
            d[i] = int(rng.integers(0, 256))
        p = sys.argv[2]
        open(p, "wb").write(d)
        try:
            m = llm.load(p)
            m.logits([1, 2, 3])
            kinds["loaded"] = kinds.get("loaded", 0) + 1
        except (GGUFError, ValueError, TypeError, UnicodeDecodeError) as e:
            kinds[type(e).__name__] = kinds.get(type(e).__name__, 0) + 1
    print(kinds)
""")


def test_corrupt_files_never_crash(tiny_model, tmp_path):
    script = tmp_path / "sweep.py"
    script.write_text(SWEEP)
    r = subprocess.run([sys.executable, str(script), str(tiny_model("q4_0")),
                        str(tmp_path / "c.gguf")], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "{" in r.stdout
