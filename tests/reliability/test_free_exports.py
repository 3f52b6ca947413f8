"""Issue #14 item 9: ``free()`` while the memory is exported (a numpy view, a DLPack tensor) is
deferred until the last export is released, as DLPack's deleter contract implies: the views
keep reading the right data (no segfault, no garbage), openhip itself refuses the freed buffer,
and the memory is released when the last export goes.

The crash cases (reading a view of unmapped memory segfaults) run in a subprocess with a
timeout; buffers of 4 MiB and more are unmapped on release, so a premature free would crash
the child there and return garbage for the small ones.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import openhip as hip

PRELUDE = """
import gc, sys
import numpy as np
import openhip as hip
hip.set_device(next(d.id for d in hip.devices() if d.platform == "cpu"))
lib = hip.get_device()._platform._lib()

def live(ptr):   # is `ptr` still a live allocation of the CPU runtime?
    hip.get_default_memory_pool().free_all_blocks()  # arrays' blocks returned to the pool go
    return lib.ohcpu_redzone_check(ptr, None, 0) == 0
"""


def run_child(body: str, timeout: float = 240) -> subprocess.CompletedProcess:
    env = dict(os.environ, OPENHIP_PLATFORM="cpu")
    try:
        return subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(body)],
                              capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the child hung (> {timeout} s): {exc.stdout!r} {exc.stderr!r}")


def _live(device, ptr: int) -> bool:
    hip.get_default_memory_pool(device).free_all_blocks()  # blocks returned to the pool go
    return device._platform._lib().ohcpu_redzone_check(ptr, None, 0) == 0


@pytest.fixture
def cpu(device):
    if device.platform != "cpu":
        pytest.skip("numpy views of device memory exist on the CPU platform only")
    return device


@pytest.mark.parametrize("n", [1000, 3 << 20])  # 4 KB (heap) and 12 MiB (mmap, guard pages)
def test_numpy_views_survive_free_until_released(cpu, n):
    proc = run_child(f"""
        n = {n}
        x = hip.asarray(np.arange(n, dtype=np.float32))
        ptr = x.data.ptr
        v = np.asarray(x)                 # __array_interface__: the view holds x
        d = np.from_dlpack(x)             # DLPack: the deleter runs when d dies
        x.data.mem.free()
        print("PENDING", x.data.mem.freed, x.data.mem.release_pending, live(ptr))
        want = np.arange(n, dtype=np.float32)
        print("VIEW", bool(np.array_equal(v, want)), bool(np.array_equal(d, want)))
        v[:4] = -1                        # still writable memory, still shared
        print("SHARED", d[:4].tolist())
        try:
            x.get()
        except hip.HipError as exc:
            print("REFUSED", exc.status)
        buf = x.data.mem
        del v, x
        gc.collect()                      # the array (and with it the view) is gone
        print("AFTER_VIEW", buf.release_pending, live(ptr), float(d[-1]))
        del d
        print("AFTER_DLPACK", buf.release_pending, buf.exports, live(ptr))
    """)
    assert proc.returncode == 0, (proc.returncode, proc.stdout, proc.stderr[-3000:])
    out = proc.stdout
    assert "PENDING True True True" in out, out
    assert "VIEW True True" in out, out
    assert "SHARED [-1.0, -1.0, -1.0, -1.0]" in out, out
    assert "REFUSED hipErrorInvalidDevicePointer" in out, out
    assert f"AFTER_VIEW True True {float(n - 1)}" in out, out  # d still holds it
    assert "AFTER_DLPACK False 0 False" in out, out  # released with the last export


def test_garbage_collected_array_with_a_bfloat16_view(cpu):
    """Dtypes without a typestr go through __array__ (the view does not hold the array): the
    buffer may be collected first, and its free waits for the view."""
    proc = run_child("""
        import ml_dtypes
        x = hip.asarray(np.arange(4 << 20, dtype=np.float32).astype(ml_dtypes.bfloat16))
        ptr = x.data.ptr
        v = np.asarray(x)
        print("BASE_IS_ARRAY", v.base is x)
        del x
        gc.collect()
        print("LIVE", live(ptr), float(v[1000]), float(v[-1]))
        del v
        gc.collect()
        print("GONE", live(ptr))
    """)
    assert proc.returncode == 0, (proc.returncode, proc.stdout, proc.stderr[-3000:])
    import ml_dtypes

    last = float(np.float32((4 << 20) - 1).astype(ml_dtypes.bfloat16))
    assert "BASE_IS_ARRAY False" in proc.stdout
    assert f"LIVE True 1000.0 {last}" in proc.stdout, proc.stdout
    assert "GONE False" in proc.stdout


def test_torch_tensor_keeps_freed_memory_until_it_dies(cpu):
    torch = pytest.importorskip("torch")
    x = hip.asarray(np.arange(5 << 20, dtype=np.int32))  # 20 MiB: mapped, unmapped on release
    ptr = x.data.ptr
    t = torch.from_dlpack(x)
    x.data.mem.free()
    assert _live(cpu, ptr) and x.data.mem.release_pending
    assert int(t[-1]) == (5 << 20) - 1 and int(t.sum(dtype=torch.int64)) == \
        ((5 << 20) - 1) * (5 << 20) // 2
    buf = x.data.mem
    del x, t
    gc.collect()
    assert not _live(cpu, ptr) and buf.exports == 0 and not buf.release_pending


def test_unconsumed_capsule_and_repeated_free(device):
    """Every platform: a capsule nobody consumed is an export until it is collected; free() is
    idempotent; a freed buffer is refused by copies and kernel launches (HipError, no crash)."""
    x = hip.asarray(np.arange(64, dtype=np.float64))
    cap = x.__dlpack__()
    buf = x.data.mem
    assert buf.exports == 1
    buf.free()
    buf.free()
    assert buf.freed and buf.release_pending
    with pytest.raises(hip.HipError, match="freed"):
        x.get()
    with pytest.raises(hip.HipError, match="freed"):
        x.__dlpack__()
    k = hip.Module(r"""
    #include <hip/hip_runtime.h>
    extern "C" __global__ void touch(double* x) { x[threadIdx.x] = 1.0; }
    """).get_function("touch")
    with pytest.raises(hip.HipError, match="freed"):
        k(1, 64, (x,))
    del cap
    gc.collect()
    assert buf.exports == 0 and not buf.release_pending


def test_free_without_exports_is_immediate(cpu):
    """The usual case is unchanged: no export, the memory goes at once (also after views that
    are already gone, and for an array never exported)."""
    x = hip.zeros(1 << 20, np.float32)
    ptr = x.data.ptr
    d = np.from_dlpack(x)
    del d
    x.data.mem.free()
    assert not _live(cpu, ptr) and not x.data.mem.release_pending
    y = hip.zeros(10, np.float32)
    p2 = y.data.ptr
    y.data.mem.free()
    assert not _live(cpu, p2)
    gc.collect()
