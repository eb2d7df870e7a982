"""A small typed program over specdec, checked by pyright in strict mode (tests/python.sh):
the package's stubs give every name a type a checker resolves."""

import numpy as np
from numpy.typing import NDArray

import specdec
from specdec import commands


def best_gamma(alpha: float, cost: float) -> float:
    return float(specdec.optimal(alpha, cost).gamma_opt)


def roofline_speedups(alpha: float) -> NDArray[np.float64]:
    t: specdec.Table = specdec.roofline(target="llama-3.1-8b", draft="llama-3.2-1b", hardware="h100-sxm",
                                        alpha=alpha, batch=[1, 64])
    return np.asarray(t["improvement_opt"], dtype=np.float64)


def schedule_json() -> str:
    return specdec.roofline(target="llama-3.1-8b", draft="llama-3.2-1b", hardware="h100-sxm", alpha=0.8,
                            schedule=True, export="vllm")


def beta(target: NDArray[np.float32], draft: NDArray[np.float32]) -> NDArray[np.float64]:
    a: specdec.Acceptance = specdec.acceptance(target, draft, temperature=0.7, top_p=0.9)
    return a.beta


def optimal_table() -> specdec.Table:
    return commands.optimal(alpha=[0.6, 0.8], cost=0.02)


def safe(alpha: float) -> str:
    try:
        return str(len(specdec.speedup(alpha=alpha, cost=0.1)))
    except specdec.InvalidInput as e:
        return str(e)
