"""Issue #14 item 7 (fork): a forked child starts with a fresh CPU runtime. The parent's streams
and pending events report that they belong to the parent instead of hanging (the threads that
would run them do not exist in the child); new streams and the default stream work."""

from __future__ import annotations

from reliability_child import result, run_child

FORK_BODY = """
k = module()
spin = k.get_function("spin_blocks")
hold = k.get_function("spin_forever")
saxpy = k.get_function("saxpy")
s = hip.Stream()
busy = hip.zeros(200, np.int32)
flag, started = hip.zeros(1, np.int32), hip.zeros(1, np.int32)
hold(1, 1, (flag, started), stream=s)        # runs until the parent sets flag after the fork
e = s.record()                               # (not a timed spin: it might end before the fork)
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r)
    out = {}
    def attempt(name, call):
        try:
            call()
            out[name] = None
        except hip.HipError as exc:
            out[name] = [exc.status, str(exc)]
    attempt("stream_sync", s.synchronize)
    attempt("stream_query", s.query)
    attempt("event_sync", e.synchronize)
    attempt("launch_on_parent_stream", lambda: spin(1, 1, (busy, 0), stream=s))
    n = 5000
    x = np.random.rand(n).astype(np.float32)
    y = np.random.rand(n).astype(np.float32)
    dx, dy, do = hip.asarray(x), hip.asarray(y), hip.zeros(n, np.float32)
    s2 = hip.Stream()
    saxpy((n + 255) // 256, 256, (3.0, dx, dy, do, n), stream=s2)
    s2.synchronize()
    out["child_stream_ok"] = bool(np.allclose(do.get(), 3 * x + y))
    saxpy((n + 255) // 256, 256, (2.0, dx, dy, do, n))
    hip.synchronize()
    out["child_default_ok"] = bool(np.allclose(do.get(), 2 * x + y))
    os.write(w, json.dumps(out).encode())
    os.close(w)
    os._exit(0)
os.close(w)
data = b""
while chunk := os.read(r, 65536):
    data += chunk
_, status = os.waitpid(pid, 0)
np.asarray(flag)[0] = 1                       # a host view of device memory (CPU platform)
s.synchronize()                               # the parent's stream is unaffected
e.synchronize()
child = json.loads(data) if data else None
report(child=child, child_status=status, parent_ran=int(started.get()[0]))
"""


def test_forked_child_refuses_the_parents_streams_and_works_with_its_own():
    r = result(run_child(FORK_BODY, timeout=120))
    assert r["child_status"] == 0 and r["child"] is not None
    c = r["child"]
    for name in ("stream_sync", "stream_query", "launch_on_parent_stream"):
        assert c[name] is not None, name
        assert c[name][0] == "hipErrorInvalidHandle" and "parent" in c[name][1], c[name]
    assert c["event_sync"] is not None and "parent" in c["event_sync"][1]
    assert c["child_stream_ok"] and c["child_default_ok"]
    assert r["parent_ran"] == 1


def test_fork_with_multiprocessing_fork_context():
    # the same through multiprocessing (what a DataLoader-style worker pool does)
    r = result(run_child("""
        import multiprocessing as mp
        m = module()
        saxpy = m.get_function("saxpy")
        spin = m.get_function("spin_blocks")
        busy = hip.zeros(100, np.int32)
        s = hip.Stream()
        spin(100, 1, (busy, 10_000), stream=s)
        def work(i):
            n = 1000
            x = np.full(n, i, np.float32)
            d = hip.asarray(x)
            out = hip.zeros(n, np.float32)
            saxpy(4, 256, (2.0, d, d, out, n))
            hip.synchronize()
            try:
                s.synchronize()
                parent = "no error"
            except hip.HipError as exc:
                parent = exc.status
            return float(out.get().sum()), parent
        with mp.get_context("fork").Pool(2) as pool:
            got = pool.map(work, range(4))
        s.synchronize()
        report(got=got)
    """, timeout=120))
    assert r["got"] == [[3000.0 * i, "hipErrorInvalidHandle"] for i in range(4)]
