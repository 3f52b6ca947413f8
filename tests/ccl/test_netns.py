"""Two "hosts" in separate network namespaces (own address and hostname each), ranks on both,
over the MPI transport: mpiexec (Hydra) reaches the second host through a stand-in for ssh
that enters its namespace. Needs root and iproute2; skipped with the reason otherwise."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from conftest import RANKS, _env, all_ok, collect, have_mpi, mpiexec_path

pytestmark = pytest.mark.timeout(120)

FAKESSH = """#!/bin/sh
# ssh stand-in for mpiexec: ssh [-x] HOST COMMAND... runs COMMAND in HOST's namespace
while [ "${1#-}" != "$1" ]; do shift; done
host=$1; shift
case $host in
  %(a)s) ns=%(nsa)s; hn=ohccl-host-a;;
  %(b)s) ns=%(nsb)s; hn=ohccl-host-b;;
  *) echo "unknown host $host" >&2; exit 255;;
esac
exec ip netns exec $ns unshare --uts sh -c "hostname $hn; $*"
"""


def _sh(*cmd: str) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=30)


@pytest.fixture(scope="module")
def hosts(tmp_path_factory):
    if have_mpi():
        pytest.skip(have_mpi())
    if os.geteuid() != 0:
        pytest.skip("network namespaces need root")
    if not shutil.which("ip") or not shutil.which("unshare"):
        pytest.skip("iproute2 (ip) or util-linux (unshare) is missing")
    tag = f"{os.getpid() % 100000}"
    nsa, nsb = f"ohccl{tag}a", f"ohccl{tag}b"
    va, vb = f"ohv{tag}a", f"ohv{tag}b"
    subnet = f"10.{77 + os.getpid() % 100}.{os.getpid() % 250}"
    a, b = f"{subnet}.1", f"{subnet}.2"
    steps = [("netns", "add", nsa), ("netns", "add", nsb),
             ("link", "add", va, "type", "veth", "peer", "name", vb),
             ("link", "set", va, "netns", nsa), ("link", "set", vb, "netns", nsb),
             ("-n", nsa, "addr", "add", f"{a}/24", "dev", va),
             ("-n", nsb, "addr", "add", f"{b}/24", "dev", vb),
             ("-n", nsa, "link", "set", va, "up"), ("-n", nsb, "link", "set", vb, "up"),
             ("-n", nsa, "link", "set", "lo", "up"), ("-n", nsb, "link", "set", "lo", "up")]
    try:
        for step in steps:
            p = _sh("ip", *step)
            if p.returncode != 0:
                pytest.skip(f"cannot build the namespaces (ip {' '.join(step)}): "
                            f"{p.stderr.strip()}")
        d = tmp_path_factory.mktemp("netns")
        fakessh = d / "fakessh"
        fakessh.write_text(FAKESSH % {"a": a, "b": b, "nsa": nsa, "nsb": nsb})
        fakessh.chmod(0o755)
        yield {"a": a, "b": b, "nsa": nsa, "fakessh": str(fakessh)}
    finally:
        _sh("ip", "netns", "del", nsa)
        _sh("ip", "netns", "del", nsb)


def _run_on_hosts(hosts, tmp_path, scenario, *args, via_launch=False):
    inner = [sys.executable]
    if via_launch:
        inner += ["-m", "openhip", "launch", "-n", "2", "--hosts", f"{hosts['a']},{hosts['b']}",
                  "--mpiexec-arg=-launcher", "--mpiexec-arg=ssh",
                  "--mpiexec-arg=-launcher-exec", f"--mpiexec-arg={hosts['fakessh']}",
                  str(RANKS), scenario, str(tmp_path), *args]
    else:
        inner = [mpiexec_path(), "-launcher", "ssh", "-launcher-exec", hosts["fakessh"],
                 "-hosts", f"{hosts['a']},{hosts['b']}", "-n", "2", sys.executable,
                 str(RANKS), scenario, str(tmp_path), *args]
    script = "hostname ohccl-host-a; exec " + " ".join(f"'{x}'" for x in inner)
    cmd = ["ip", "netns", "exec", hosts["nsa"], "unshare", "--uts", "sh", "-c", script]
    p = subprocess.run(cmd, env=_env(None), capture_output=True, text=True, timeout=100)
    return p.returncode, collect(tmp_path, 2), p.stderr


def test_two_hosts_pick_mpi(hosts, tmp_path):
    rc, results, err = _run_on_hosts(hosts, tmp_path, "info")
    assert rc == 0, err[-3000:]
    assert [d["transport"] for d in results] == ["mpi", "mpi"]
    assert [d["sum"] for d in results] == [1, 1]


def test_two_hosts_matrix(hosts, tmp_path):
    rc, results, err = _run_on_hosts(hosts, tmp_path, "matrix", "37", "subset")
    assert rc == 0, err[-3000:]
    all_ok(results)


def test_two_hosts_via_openhip_launch(hosts, tmp_path):
    rc, results, err = _run_on_hosts(hosts, tmp_path, "ring", via_launch=True)
    assert rc == 0, err[-3000:]
    all_ok(results)
