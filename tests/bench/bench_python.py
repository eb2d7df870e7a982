"""bench_python.py -- the Python package's two benchmarks (issue 24), a Markdown table.

1. expected_tokens over 10^6 alpha values against NumPy evaluating eq. (4) itself,
   (1 - alpha^(gamma + 1)) / (1 - alpha) (with alpha = 1 set to gamma + 1): best of 7.
2. acceptance of a (1024, 128256) float32 logits pair at temperature 0.7 (Llama 3's
   vocabulary), the copy to float64 included: best of 3.

One thread (the library's calls are single-threaded); best wall time, and for acceptance
also the best CPU time of the process (on a shared VM, wall time includes time stolen by
other guests).  Run by `make bench`.
"""

import time

import numpy as np

import specdec


def best(f, n, clock=time.perf_counter):
    t = float("inf")
    for _ in range(n):
        t0 = clock()
        f()
        t = min(t, clock() - t0)
    return t


def numpy_eq4(a, g):
    with np.errstate(divide="ignore", invalid="ignore"):
        e = (1.0 - a ** (g + 1)) / (1.0 - a)
    return np.where(a == 1.0, g + 1.0, e)


rng = np.random.default_rng(1)
alpha = rng.uniform(0, 1, 10**6)
ours = best(lambda: specdec.expected_tokens(alpha, 5), 7)
theirs = best(lambda: numpy_eq4(alpha, 5), 7)
err = np.max(np.abs(specdec.expected_tokens(alpha, 5) / numpy_eq4(alpha, 5) - 1))

rows, vocab = 1024, 128256
p = rng.standard_normal((rows, vocab), dtype=np.float32) * 3
q = p + rng.standard_normal((rows, vocab), dtype=np.float32)
acc = best(lambda: specdec.acceptance(p, q, temperature=0.7), 3)
acc_cpu = best(lambda: specdec.acceptance(p, q, temperature=0.7), 3, time.process_time)
alpha_hat = specdec.acceptance(p, q, temperature=0.7).alpha

print("| benchmark | specdec | reference | ratio |")
print("|---|---:|---:|---:|")
print("| expected_tokens, 10^6 alpha, gamma 5 | %.1f ms | NumPy eq. (4): %.1f ms | %.2fx (max relative difference %.1e) |"
      % (ours * 1e3, theirs * 1e3, ours / theirs, err))
print("| acceptance, (1024, 128256) float32 pair, T 0.7 | %.2f s (CPU %.2f s) | target: 2 s | alpha_hat %.4f |"
      % (acc, acc_cpu, alpha_hat))
