"""The device memory pool (issue #11): reuse by size class, stream order, the limit and
OPENHIP_POOL_LIMIT, the out-of-memory retry, free_all_blocks, red zones and exports of pooled
blocks, fork, no leak over 10^4 allocations, threads."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

import openhip as hip
from openhip.runtime.pool import MemoryPool, PooledBuffer, allocate_class, parse_limit, size_class

KERNELS = Path(__file__).with_name("pool_kernels.hip")


@pytest.fixture
def pool(device):
    """A pool of its own for each test (the default pool is shared by the session)."""
    p = MemoryPool(device)
    yield p
    gc.collect()
    p.free_all_blocks()


def _kernels():
    return hip.Module(KERNELS.read_text(), name=str(KERNELS))


def run_child(body: str, timeout: float = 180) -> subprocess.CompletedProcess:
    code = "import gc, os, sys\nimport numpy as np\nimport openhip as hip\n" + \
        textwrap.dedent(body)
    env = dict(os.environ, OPENHIP_PLATFORM="cpu", POOL_KERNELS=str(KERNELS))
    try:
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=timeout, env=env)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the child hung (> {timeout} s): {exc.stdout!r} {exc.stderr!r}")


def test_size_classes():
    assert [size_class(n) for n in (1, 511, 512, 513, 1 << 20)] == [512, 512, 512, 1024, 1 << 20]
    assert size_class((1 << 20) + 1) == (1 << 20) + (64 << 10)
    assert size_class(5 * (1 << 20) + 3) == 5 * (1 << 20) + (64 << 10)


def test_reuse_same_class_same_pointer(pool):
    a = pool.malloc(1000)
    ptr = a.ptr
    assert isinstance(a, PooledBuffer) and a.nbytes == 1000
    assert pool.used_bytes() == 1024 and pool.total_bytes() == 1024
    del a
    assert pool.used_bytes() == 0 and pool.total_bytes() == 1024 and pool.n_free_blocks() == 1
    b = pool.malloc(600)  # the same class (1024)
    assert b.ptr == ptr and b.nbytes == 600 and pool.hits == 1
    c = pool.malloc(2000)  # another class: a new block
    assert c.ptr != ptr and pool.total_bytes() == 1024 + 2048
    b.free()
    b.free()  # a second free is harmless
    with pytest.raises(hip.HipError) as err:
        hip.memset(b, 0)
    assert err.value.status == "hipErrorInvalidDevicePointer"
    d = pool.malloc(1024)
    assert d.ptr == ptr  # b's block, returned by the explicit free


def test_pooled_memory_holds_data(pool, device):
    host = np.random.default_rng(1).random(3000).astype(np.float32)
    a = pool.malloc(host.nbytes)
    hip.memcpy_htod(a, host)
    out = np.empty_like(host)
    hip.memcpy_dtoh(out, a)
    np.testing.assert_array_equal(out, host)


def test_arrays_use_the_default_pool_and_malloc_stays_raw(device):
    pool = hip.get_default_memory_pool(device)
    assert pool is hip.get_default_memory_pool(device.id)
    x = hip.zeros(300, np.float32)
    assert isinstance(x.data.mem, PooledBuffer)
    assert not isinstance(hip.malloc(100), PooledBuffer)
    ptr = x.data.ptr
    used = pool.used_bytes()
    del x
    assert pool.used_bytes() == used - 1536
    y = hip.asarray(np.arange(300, dtype=np.float32))  # the same class: x's block, new data
    assert y.data.ptr == ptr
    np.testing.assert_array_equal(y.get(), np.arange(300, dtype=np.float32))
    z = hip.zeros(300, np.float32)
    assert (z.get() == 0).all()


def test_zero_and_bad_sizes(pool):
    z = pool.malloc(0)
    assert z.nbytes == 0 and pool.total_bytes() == 0
    with pytest.raises(hip.HipError) as err:
        pool.malloc(-1)
    assert err.value.status == "hipErrorInvalidValue"
    with pytest.raises(TypeError):
        pool.malloc("100")
    with pytest.raises(TypeError):
        pool.malloc(1.5)
    with pytest.raises(TypeError):
        pool.malloc(100, stream="s")
    assert pool.total_bytes() == 0


def test_allocate_class_bad_sizes(device):
    for bad in (0, -512):
        with pytest.raises(hip.HipError) as err:
            allocate_class(bad, device)
        assert err.value.status == "hipErrorInvalidValue"
    with pytest.raises(TypeError):
        allocate_class(1.5, device)
    buf = allocate_class(1000, device)  # not a whole class: served as allocate(1000)
    assert buf.nbytes == 1000
    buf.free()


def test_stream_order(pool, device):
    """A block freed on stream 1 while stream 1's kernel still runs is not handed to stream 2;
    stream 1 itself reuses it at once; once stream 1 is done, stream 2 gets it."""
    if device.platform != "cpu":
        pytest.skip("the kernel is released through a numpy view of device memory (CPU only)")
    k = _kernels().get_function("wait_then_fill")
    s1, s2 = hip.Stream(), hip.Stream()
    flag = hip.zeros(1, np.int32)
    try:
        _check_stream_order(pool, k, flag, s1, s2)
    finally:
        np.asarray(flag)[0] = 1  # the kernel ends, whatever failed
        s1.synchronize()


def _check_stream_order(pool, k, flag, s1, s2):
    n = 1000
    a = pool.malloc(n * 4, stream=s1)
    k(1, 64, (flag, 10**10, a, n, 7), stream=s1)  # runs until the flag is set
    ptr = a.ptr
    del a  # freed while the kernel still writes into it
    assert not s1.query()
    b = pool.malloc(n * 4, stream=s2)
    assert b.ptr != ptr  # stream 2 must not get the block
    c = pool.malloc(n * 4, stream=s1)
    assert c.ptr == ptr  # stream 1's queue is in order: at once
    c2 = pool.malloc(n * 4, stream=s1)
    assert c2.ptr not in (ptr, b.ptr)
    del c  # freed on the busy stream 1 again
    e = pool.malloc(n * 4, stream=s2)
    assert e.ptr != ptr
    np.asarray(flag)[0] = 1  # let the kernel finish
    s1.synchronize()
    f = pool.malloc(n * 4, stream=s2)
    assert f.ptr == ptr  # stream 1's work is done: any stream may have it
    out = np.empty(n, np.int32)
    hip.memcpy_dtoh(out, f)
    assert (out == 7).all()  # what the kernel wrote (nothing else wrote to the block)
    del b, c2, e, f


def test_smaller_reuse_on_a_busy_stream_neither_waits_nor_writes_the_block(pool, device):
    """A block returned to its busy stream and handed out again there for a smaller request:
    the allocation does not wait for the queued kernel, the kernel's writes over the old extent
    are neither clobbered (canary bytes) nor reported; once idle, a later hand-out moves the
    red zone to the new request's end."""
    if device.platform != "cpu":
        pytest.skip("red zones and the flag through a numpy view: CPU platform only")
    import ctypes

    k = _kernels().get_function("wait_then_fill")
    s1 = hip.Stream()
    flag = hip.zeros(1, np.int32)
    n = 100
    a = pool.malloc(n * 4, stream=s1)
    ptr = a.ptr
    k(1, 64, (flag, 10**10, a, n, 7), stream=s1)  # writes all n ints once released
    del a
    try:
        b = pool.malloc(16, stream=s1)  # the same class and stream: a's block, at once
        assert b.ptr == ptr and not s1.query()  # the kernel still runs: nobody waited
    finally:
        np.asarray(flag)[0] = 1
    s1.synchronize()  # no hipErrorIllegalAddress: the kernel wrote inside its own extent
    old = np.ctypeslib.as_array((ctypes.c_int32 * n).from_address(ptr))
    assert (old == 7).all()  # nothing of it was overwritten by a canary
    del b
    c = pool.malloc(16, stream=s1)  # idle now: the zone moves to 16 bytes
    assert c.ptr == ptr
    k(1, 64, (flag, 0, c, 5, 1), stream=s1)  # 20 bytes into a 16-byte request
    with pytest.raises(hip.HipError) as err:
        s1.synchronize()
    assert err.value.status == "hipErrorIllegalAddress" and "(16 bytes)" in str(err.value)


def test_limit_raises_with_the_figures(pool):
    pool.set_limit(size=4096)
    assert pool.get_limit() == 4096
    a = pool.malloc(3000)  # a 3072-byte block
    with pytest.raises(hip.HipError) as err:
        pool.malloc(2048)
    assert err.value.status == "hipErrorOutOfMemory"
    msg = str(err.value)
    assert "2048 bytes" in msg and "uses 3072" in msg and "limit 4096" in msg, msg
    assert pool.used_bytes() == 3072 and pool.total_bytes() == 3072  # nothing changed
    del a
    pool.set_limit()  # no limit
    assert pool.get_limit() == 0
    pool.set_limit(fraction=0.5)
    assert pool.get_limit() == pool.device.properties.total_memory // 2
    for bad in ({"size": -1}, {"fraction": 1.5}, {"fraction": "half"}, {"size": 1.5},
                {"size": 10, "fraction": 0.1}):
        with pytest.raises(ValueError):
            pool.set_limit(**bad)
    assert pool.get_limit() == pool.device.properties.total_memory // 2


def test_over_the_limit_frees_the_cache_and_retries(pool):
    pool.set_limit(size=4096)
    a = pool.malloc(3000)
    del a  # 3072 cached
    b = pool.malloc(2048)  # 3072 + 2048 > 4096: the cached block goes, then it fits
    assert pool.n_free_blocks() == 0 and pool.total_bytes() == 2048 and b.nbytes == 2048


class _RefusingPlatform:
    """The device's platform, whose malloc refuses the first `refusals` calls."""

    def __init__(self, inner, refusals):
        self._inner, self.refusals, self.frees = inner, refusals, []

    def malloc(self, device, nbytes):
        if self.refusals:
            self.refusals -= 1
            raise hip.HipError("hipErrorOutOfMemory", "simulated", routine="hipMalloc")
        return self._inner.malloc(device, nbytes)

    def free(self, device, ptr):
        self.frees.append(ptr)
        self._inner.free(device, ptr)

    def __getattr__(self, name):
        return getattr(self._inner, name)


def test_device_out_of_memory_frees_the_cache_and_retries_once(pool):
    keep = [pool.malloc(n) for n in (512, 1024, 4096)]
    ptrs = [b.ptr for b in keep]
    del keep
    assert pool.n_free_blocks() == 3
    fake = _RefusingPlatform(pool._platform, refusals=1)
    pool._platform = fake
    x = pool.malloc(100_000)  # refused once; the cache goes back; the retry succeeds
    assert sorted(fake.frees) == sorted(ptrs)
    assert pool.n_free_blocks() == 0 and pool.total_bytes() == size_class(100_000)
    fake.refusals = 2
    with pytest.raises(hip.HipError) as err:
        pool.malloc(200_000)
    assert err.value.status == "hipErrorOutOfMemory"
    assert "refused" in str(err.value) and "uses" in str(err.value)
    assert pool.total_bytes() == size_class(100_000)  # the failed request left nothing
    del x


def test_request_beyond_the_device(pool, device):
    with pytest.raises(hip.HipError) as err:
        pool.malloc(device.properties.total_memory * 4)
    assert err.value.status == "hipErrorOutOfMemory"
    assert pool.total_bytes() == 0


@pytest.mark.parametrize("text, expected", [
    ("", 0), ("0", 0), ("4096", 4096), ("8k", 8192), ("512M", 512 << 20), ("4G", 4 << 30),
    ("1.5GiB", 3 << 29), ("2gb", 2 << 30), (" 1T ", 1 << 40), ("50%", 500), ("100%", 1000),
])
def test_limit_syntax(text, expected):
    assert parse_limit(text, 1000) == expected


@pytest.mark.parametrize("text", ["abc", "-5", "4X", "150%", "x%", "1e400", "4 G B"])
def test_bad_limit_values_are_clear_errors(text):
    with pytest.raises(ValueError, match="OPENHIP_POOL_LIMIT"):
        parse_limit(text, 1000)


def test_environment_limit(device, monkeypatch):
    monkeypatch.setenv("OPENHIP_POOL_LIMIT", "8k")
    p = MemoryPool(device)
    assert p.get_limit() == 8192
    with pytest.raises(hip.HipError, match="limit 8192"):
        p.malloc(10_000)
    monkeypatch.setenv("OPENHIP_POOL_LIMIT", "lots")
    with pytest.raises(ValueError, match="OPENHIP_POOL_LIMIT='lots'"):
        MemoryPool(device)


def test_a_large_cache_is_given_back_on_a_miss(pool, device):
    """The CPU platform bounds the cache (its memory is the host's): past cache_cap, a miss
    gives the cached blocks back before allocating."""
    assert pool.cache_cap == (device.properties.total_memory // 4
                              if device.platform == "cpu" else 0)
    pool.cache_cap = 4096
    blocks = [pool.malloc(n) for n in (1000, 2000, 3000)]  # 1024 + 2048 + 3072 bytes
    del blocks
    assert pool.n_free_blocks() == 3 and pool.free_bytes() == 6144
    again = pool.malloc(1000)  # a hit: the cache stays
    assert pool.n_free_blocks() == 2
    other = pool.malloc(10_000)  # a miss with 5120 > 4096 cached: they go first
    assert pool.n_free_blocks() == 0 and pool.total_bytes() == 1024 + 10_240
    del again, other


def test_free_all_blocks(pool):
    blocks = [pool.malloc(n) for n in (100, 5000, 70_000, 2 << 20)]
    held = pool.total_bytes()
    del blocks[1:]
    assert pool.n_free_blocks() == 3 and pool.total_bytes() == held
    pool.free_all_blocks()
    assert pool.n_free_blocks() == 0 and pool.total_bytes() == 512
    assert pool.used_bytes() == 512
    del blocks
    assert pool.n_free_blocks() == 1


def test_reset_device_drops_the_cached_blocks(device):
    pool = hip.get_default_memory_pool(device)
    x = hip.empty(12345, np.uint8)
    del x
    assert pool.n_free_blocks() >= 1
    hip.reset_device()
    assert pool.n_free_blocks() == 0


def test_no_leak_over_ten_thousand_allocations(pool):
    rng = np.random.default_rng(0)
    sizes = rng.integers(1, 200_000, 64)
    held_before = None
    for i in range(10_000):
        b = pool.malloc(int(sizes[i % 64]))
        del b
        if i == 999:
            held_before = pool.total_bytes()
    classes = {size_class(int(n)) for n in sizes}
    assert pool.used_bytes() == 0
    assert pool.total_bytes() == held_before == sum(classes)  # one block per class
    assert pool.n_free_blocks() == len(classes)
    assert pool.hits == 10_000 - len(classes)


def test_threads(pool, device):
    errors: list[BaseException] = []
    live: dict[int, int] = {}
    guard = threading.Lock()

    def work(tid):
        try:
            for i in range(300):
                n = 512 * (1 + (tid + i) % 4)
                b = pool.malloc(n)
                with guard:
                    assert b.ptr not in live, "a block handed out twice"
                    live[b.ptr] = tid
                hip.memset(b, tid)
                out = np.empty(n, np.uint8)
                hip.memcpy_dtoh(out, b)
                assert (out == tid).all()
                with guard:
                    del live[b.ptr]
                b.free()
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t + 1,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    assert not errors, errors
    assert pool.used_bytes() == 0 and pool.n_free_blocks() <= 16


def test_exported_block_returns_only_with_its_last_export(pool, device):
    if device.platform != "cpu":
        pytest.skip("numpy views of device memory exist on the CPU platform only")
    x = hip.DeviceArray._wrap(pool.malloc(4000), (1000,), np.float32)
    x.set(np.arange(1000, dtype=np.float32))
    d = np.from_dlpack(x)
    x.data.mem.free()
    assert x.data.mem.release_pending and pool.n_free_blocks() == 0
    other = pool.malloc(4000)
    assert other.ptr != d.ctypes.data  # the exported block is not handed out
    hip.memset(other, 0xFF)
    np.testing.assert_array_equal(d, np.arange(1000, dtype=np.float32))
    del d
    gc.collect()
    assert pool.n_free_blocks() == 1


def test_red_zone_at_the_end_of_the_request(device):
    """The class of a 100-float request is 512 bytes; one float past the request is reported
    (the tail red zone moves to the request's end), and the block goes on being used."""
    if device.platform != "cpu":
        pytest.skip("red zones exist on the CPU platform only")
    proc = run_child("""
        from openhip.runtime.pool import MemoryPool
        pool = MemoryPool()
        k = hip.Module(open(os.environ["POOL_KERNELS"]).read()).get_function("iota")
        x = hip.DeviceArray._wrap(pool.malloc(400), (100,), np.float32)
        k(1, 128, (x, 101))
        try:
            hip.synchronize()
            print("NOERROR")
        except hip.HipError as exc:
            print("HIPERROR", exc.status, "|", exc)
        k(1, 128, (x, 100))
        hip.synchronize()
        print("INTACT", x.get()[-1])
        ptr = x.data.ptr
        del x
        y = hip.DeviceArray._wrap(pool.malloc(200), (50,), np.float32)   # the same block
        print("SAME", y.data.ptr == ptr)
        k(1, 64, (y, 51))
        try:
            hip.synchronize()
            print("NOERROR")
        except hip.HipError as exc:
            print("HIPERROR", exc.status, "|", exc)
        import ctypes
        ctypes.memset(y.data.ptr + 200, 0, 4)   # from the host: found by the explicit free
        try:
            y.data.mem.free()
            print("NOERROR")
        except hip.HipError as exc:
            print("HIPERROR", exc.status, "|", exc)
        print("CACHED", pool.n_free_blocks())
    """)
    assert proc.returncode == 0, (proc.stdout, proc.stderr[-3000:])
    errs = [ln for ln in proc.stdout.splitlines() if ln.startswith(("HIPERROR", "NOERROR"))]
    assert len(errs) == 3, proc.stdout
    assert errs[0].startswith("HIPERROR hipErrorIllegalAddress") and "iota" in errs[0] and \
        "(400 bytes)" in errs[0] and "4 bytes past its end" in errs[0], errs[0]
    assert "INTACT 99.0" in proc.stdout
    assert "SAME True" in proc.stdout
    assert "(200 bytes)" in errs[1] and "4 bytes past its end" in errs[1], errs[1]
    assert errs[2].startswith("HIPERROR hipErrorIllegalAddress") and "(200 bytes)" in errs[2]
    assert "CACHED 1" in proc.stdout  # returned all the same


def test_fork_child_reuses_the_blocks(device):
    if device.platform != "cpu":
        pytest.skip("fork is exercised on the CPU platform")
    proc = run_child("""
        from openhip.runtime.pool import MemoryPool
        pool = MemoryPool()
        s = hip.Stream()
        a = pool.malloc(4096, stream=s)
        ptr = a.ptr
        del a
        pid = os.fork()
        if pid == 0:
            b = pool.malloc(4096)          # another stream, the parent's: reusable in the child
            host = np.arange(1024, dtype=np.int32)
            hip.memcpy_htod(b, host)
            out = np.empty_like(host)
            hip.memcpy_dtoh(out, b)
            ok = b.ptr == ptr and bool((out == host).all())
            del b
            os._exit(0 if ok and pool.n_free_blocks() == 1 else 3)
        _, status = os.waitpid(pid, 0)
        print("CHILD", status)
        c = pool.malloc(4096, stream=s)
        print("PARENT", c.ptr == ptr)
    """)
    assert proc.returncode == 0, (proc.stdout, proc.stderr[-3000:])
    assert "CHILD 0" in proc.stdout and "PARENT True" in proc.stdout, proc.stdout
