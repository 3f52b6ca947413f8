"""The ctypes binding of nccl.h against a real NCCL/RCCL library and, where it ships one, its header.

Skipped when no library is found. No GPU is needed: ncclGetVersion, ncclGetErrorString,
ncclGetLastError and ncclGetUniqueId work without one, and ncclCommInitRank must then fail with a
clean CclError. Calls that touch the library's state run in a subprocess with a timeout, so a crash
or a hang fails the test instead of taking pytest down.
"""

from __future__ import annotations

import ctypes
import importlib.metadata
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from openhip.ccl.transports import nccl
from openhip.ccl.types import DTYPES, OPS
from openhip.errors import CclError

ROOT = Path(__file__).resolve().parent.parent.parent

_OK, _WHY = nccl.available()
pytestmark = pytest.mark.skipif(not _OK, reason=f"no NCCL/RCCL library here: {_WHY}")


def _run(code: str, timeout: float = 60) -> dict:
    """Run ``code`` in a fresh interpreter; it prints one JSON line last."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("NCCL_DEBUG", None)
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=timeout, env=env)
    assert proc.returncode == 0, f"rc {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _lib_path() -> Path:
    return Path(nccl.load()._name).resolve()


def _header() -> Path | None:
    """nccl.h (or rccl.h) shipped next to the loaded library, if any."""
    lib = _lib_path()
    for cand in (lib.parent.parent / "include" / "nccl.h",
                 lib.parent.parent / "include" / "rccl" / "rccl.h",
                 lib.parent.parent / "include" / "rccl.h"):
        if cand.exists():
            return cand
    return None


def _header_text() -> str:
    h = _header()
    if h is None:
        pytest.skip(f"no nccl.h next to {_lib_path()}")
    text = h.read_text()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def _enum(text: str, name: str) -> dict[str, int]:
    """The integer members of ``typedef enum { ... } name;`` (a fixed vendor header)."""
    m = re.search(r"typedef\s+enum\s*\{([^{}]*)\}\s*" + name + r"\s*;", text)
    assert m, f"no typedef enum {name} in the header"
    out = {}
    for item in m.group(1).split(","):
        mm = re.fullmatch(r"\s*(\w+)\s*=\s*(-?(?:0x[0-9a-fA-F]+|\d+))\s*", item)
        if mm:
            out[mm.group(1)] = int(mm.group(2), 0)
    return out


def _wheel_version() -> str | None:
    lib = str(_lib_path())
    for dist in ("nvidia-nccl-cu13", "nvidia-nccl-cu12", "nvidia-nccl-cu11"):
        try:
            d = importlib.metadata.distribution(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
        if lib.startswith(str(Path(d.locate_file("")).resolve())):
            return d.version
    return None


# --- loading ---------------------------------------------------------------------------------


def test_import_does_not_load_the_library():
    out = _run("""
        import json, sys
        import openhip.ccl
        from openhip.ccl import Communicator  # noqa: F401
        maps = open("/proc/self/maps").read()
        mod = sys.modules.get("openhip.ccl.transports.nccl")
        print(json.dumps({"mapped": "libnccl" in maps or "librccl" in maps,
                          "loaded": mod is not None and mod._lib is not None}))
    """)
    assert out == {"mapped": False, "loaded": False}


def test_version_is_plausible_and_matches_the_wheel():
    major, minor, patch = nccl.version()
    assert major == 2 and minor >= 10, (major, minor, patch)  # ncclAvg/ncclBfloat16: 2.10
    wheel = _wheel_version()
    if wheel is not None:
        assert wheel.split(".")[:3] == [str(major), str(minor), str(patch)]
    text = _header_text() if _header() else None
    if text is not None and "NCCL_VERSION_CODE" in text:
        code = int(re.search(r"#define\s+NCCL_VERSION_CODE\s+(\d+)", text).group(1))
        assert nccl.decode_version(code) == (major, minor, patch)


def test_decode_version():
    assert nccl.decode_version(2708) == (2, 7, 8)
    assert nccl.decode_version(21903) == (2, 19, 3)
    assert nccl.decode_version(23203) == (2, 32, 3)


def test_every_declared_symbol_exists():
    lib = nccl.load()
    for name in nccl.SIGNATURES:
        assert hasattr(lib, name), name
        fn = getattr(lib, name)
        assert fn.restype is nccl.SIGNATURES[name][0], name
        assert fn.argtypes == nccl.SIGNATURES[name][1], name


def test_missing_library_reason(monkeypatch):
    monkeypatch.setattr(nccl, "_lib", None)
    monkeypatch.setattr(nccl, "_why_not", None)
    monkeypatch.setattr(nccl, "_search", lambda: ["/nonexistent/libnccl.so.2"])
    ok, why = nccl.available()
    assert not ok and "NCCL" in why and "/nonexistent/libnccl.so.2" in why


# --- against nccl.h --------------------------------------------------------------------------

_C_TYPES = {
    "int": ctypes.c_int, "size_t": ctypes.c_size_t, "void*": ctypes.c_void_p,
    "ncclComm_t": ctypes.c_void_p, "cudaStream_t": ctypes.c_void_p,
    "hipStream_t": ctypes.c_void_p, "ncclDataType_t": ctypes.c_int,
    "ncclRedOp_t": ctypes.c_int, "ncclResult_t": ctypes.c_int, "char*": ctypes.c_char_p,
    "ncclUniqueId": nccl.NcclUniqueId,
}


def _ctype(decl: str):
    decl = re.sub(r"\bconst\b", " ", decl).strip()
    if decl in ("", "void"):
        return None
    m = re.fullmatch(r"(\w+)\s*(\**)\s*\w*", decl)
    assert m, decl
    base, stars = m.group(1), m.group(2)
    if base in ("void", "char") and stars:
        t, stars = _C_TYPES[base + "*"], stars[1:]
    else:
        t = _C_TYPES[base]
    for _ in stars:
        t = ctypes.POINTER(t)
    return t


def test_signatures_match_the_header():
    text = _header_text()
    for name, (restype, argtypes) in nccl.SIGNATURES.items():
        m = re.search(r"(?:^|[;\n])\s*((?:const\s+)?\w+\s*\**)\s*\b" + name + r"\s*\(([^)]*)\)\s*;",
                      text)
        assert m, f"{name} is not declared in the header"
        assert _ctype(m.group(1)) is restype, name
        args = [a for a in m.group(2).split(",") if a.strip() not in ("", "void")]
        want = [_ctype(a) for a in args]
        assert len(want) == len(argtypes), name
        for i, (w, got) in enumerate(zip(want, argtypes, strict=True)):
            if isinstance(w, type) and issubclass(w, ctypes._Pointer):
                assert got._type_ is w._type_, (name, i)
            else:
                assert got is w, (name, i, got, w)


def test_unique_id_size_matches_the_header():
    text = _header_text()
    size = int(re.search(r"#define\s+NCCL_UNIQUE_ID_BYTES\s+(\d+)", text).group(1))
    assert ctypes.sizeof(nccl.NcclUniqueId) == size == nccl.UNIQUE_ID_BYTES


def test_dtype_codes_match_the_header():
    values = _enum(_header_text(), "ncclDataType_t")
    want = {np.int8: "ncclInt8", np.uint8: "ncclUint8", np.int32: "ncclInt32",
            np.uint32: "ncclUint32", np.int64: "ncclInt64", np.uint64: "ncclUint64",
            np.float16: "ncclFloat16", np.float32: "ncclFloat32", np.float64: "ncclFloat64",
            ml_dtypes.bfloat16: "ncclBfloat16"}
    if "ncclFloat8e4m3" in values:
        want[ml_dtypes.float8_e4m3fn] = "ncclFloat8e4m3"
        want[ml_dtypes.float8_e5m2] = "ncclFloat8e5m2"
    for dt, cname in want.items():
        assert DTYPES[np.dtype(dt)] == values[cname], cname
    # every code the binding may pass is one the library knows
    assert max(DTYPES.values()) < values["ncclNumTypes"]


def test_op_codes_match_the_header():
    values = _enum(_header_text(), "ncclRedOp_t")
    for op, cname in {"sum": "ncclSum", "prod": "ncclProd", "max": "ncclMax", "min": "ncclMin",
                      "avg": "ncclAvg"}.items():
        assert OPS[op] == values[cname], cname
    # premul_sum is no fixed ncclRedOp_t: ncclRedOpCreatePreMulSum returns ops >= ncclNumOps
    assert OPS["premul_sum"] == values["ncclNumOps"]


def test_result_names_match_the_header():
    values = _enum(_header_text(), "ncclResult_t")
    values.pop("ncclNumResults", None)
    assert nccl.RESULTS == {v: k for k, v in values.items()}


# --- errors ----------------------------------------------------------------------------------


def test_error_strings():
    lib = nccl.load()
    for code in nccl.RESULTS:
        assert lib.ncclGetErrorString(code), code


@pytest.mark.parametrize("code", sorted(set(nccl.RESULTS) - {0}))
def test_check_names_the_result(code):
    lib = nccl.load()
    with pytest.raises(CclError) as info:
        nccl._check(lib, code, "ncclAllReduce")
    err = info.value
    assert isinstance(err, nccl.NcclError)
    assert err.result == code and err.result_name == nccl.RESULTS[code]
    assert f"ncclAllReduce failed: {nccl.RESULTS[code]} ({code})" in str(err)
    assert lib.ncclGetErrorString(code).decode() in str(err)


def test_check_success_and_unknown_code():
    lib = nccl.load()
    nccl._check(lib, 0, "ncclGroupStart")
    with pytest.raises(nccl.NcclError, match=r"ncclResult_t\(42\) \(42\)"):
        nccl._check(lib, 42, "ncclGroupEnd")


def test_nccl_error_pickles():
    import pickle

    err = nccl.NcclError("x failed", 1, "x", rank=2)
    back = pickle.loads(pickle.dumps(err))
    assert (back.result, back.result_name, back.routine, back.rank) == (
        1, "ncclUnhandledCudaError", "x", 2)


def test_unique_id_round_trip_keeps_bytes_after_a_nul():
    raw = bytes([7, 0, 2, 0]) + bytes(range(1, 125))
    uid = nccl.uid_from(raw)
    assert nccl.uid_bytes(uid) == raw
    assert len(bytes(uid.internal)) == 1  # why the binding never reads uid.internal
    with pytest.raises(CclError):
        nccl.uid_from(b"short")


# --- without a GPU (or with one): nothing crashes or hangs ------------------------------------


def test_unique_id_and_comm_init_in_a_subprocess():
    out = _run("""
        import ctypes, json
        from openhip.ccl.transports import nccl
        from openhip.errors import CclError
        lib = nccl.load()
        uid = nccl.NcclUniqueId()
        st = lib.ncclGetUniqueId(ctypes.byref(uid))
        raw = nccl.uid_bytes(uid)
        res = {"uid_status": st, "uid_len": len(raw), "uid_nonzero": any(raw),
               "after_nul": any(raw[raw.index(0):]) if 0 in raw else True}

        class Host:  # a one-rank host communicator: broadcast is a no-op
            rank, size = 0, 1
            sent = None
            def broadcast(self, buf, root):
                Host.sent = bytes(buf)

        try:
            comm = nccl.NcclComm.bootstrap(Host())
        except CclError as exc:
            res.update(init="error", type=type(exc).__name__, msg=str(exc),
                       name=getattr(exc, "result_name", None))
        else:
            res.update(init="ok")
            comm.destroy()
        res["sent_len"] = len(Host.sent)
        res["sent_ok"] = Host.sent[0] == 0
        res["sent_after_nul"] = any(Host.sent[1 + Host.sent[1:].index(0):])
        print(json.dumps(res))
    """)
    assert out["uid_status"] == 0 and out["uid_len"] == 128 and out["uid_nonzero"]
    # the id is a magic then a socket address: bytes past the first NUL matter
    assert out["after_nul"] and out["sent_after_nul"]
    assert out["sent_len"] == 129 and out["sent_ok"]
    if out["init"] == "error":
        # no GPU / no driver: a clean CclError naming the ncclResult_t
        assert out["type"] == "NcclError"
        assert out["name"] in nccl.RESULTS.values() and out["name"] != "ncclSuccess"
        assert out["msg"].startswith(f"ncclCommInitRank failed: {out['name']}")


def test_rank0_failure_reaches_every_rank():
    """Rank 0 cannot make an id: the other ranks get a CclError too, not a wait for an id."""
    out = _run("""
        import json
        from openhip.ccl.transports import nccl

        class Lib:  # the real library, but ncclGetUniqueId reports ncclSystemError
            def __init__(self, real):
                self.real = real
            def __getattr__(self, name):
                return getattr(self.real, name)
            def ncclGetUniqueId(self, _):
                return 2

        nccl._lib = Lib(nccl.load())
        box = {}

        class Host:
            def __init__(self, rank):
                self.rank, self.size = rank, 2
            def broadcast(self, buf, root):
                if self.rank == 0:
                    box["raw"] = bytes(buf)
                else:
                    buf[:] = list(box["raw"])

        res = {}
        for r in (0, 1):
            try:
                nccl.NcclComm.bootstrap(Host(r))
                res[r] = "ok"
            except nccl.NcclError as exc:
                res[r] = [exc.result_name, str(exc)]
        print(json.dumps(res))
    """)
    assert out["0"][0] == "ncclSystemError" and out["0"][1].startswith("ncclGetUniqueId failed")
    assert out["1"][0] == "ncclSystemError" and "on rank 0" in out["1"][1]
