"""Arrays: openhip.numpy, the Array API over the project's kernels, checked against numpy."""

import numpy as np

import openhip.numpy as hnp

x = hnp.linspace(0.0, 1.0, 1 << 16, dtype=hnp.float32)    # made on the device
y = hnp.sin(2 * hnp.pi * x) ** 2 + hnp.cos(2 * hnp.pi * x) ** 2  # elementwise kernels
m = hnp.reshape(hnp.arange(12, dtype=hnp.int32), (3, 4))
t = m.T[1:, ::2] * 10                                    # a strided view, read in place
big = m[m > 5]                                           # a boolean mask
print(repr(t))
print(big)

hx = np.linspace(0.0, 1.0, 1 << 16, dtype=np.float32)
ok = np.allclose(y.get(), np.sin(2 * np.pi * hx) ** 2 + np.cos(2 * np.pi * hx) ** 2, atol=1e-5)
hm = np.arange(12, dtype=np.int32).reshape(3, 4)
ok = ok and np.array_equal(t.get(), hm.T[1:, ::2] * 10) and np.array_equal(big.get(),
                                                                          hm[hm > 5])
print("arrays: results match numpy" if ok else "arrays: MISMATCH")
if not ok:
    raise SystemExit(1)
