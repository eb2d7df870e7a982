"""Acceptance from two arrays of logits or probabilities (sampling.h, verify.h)."""

import collections
import ctypes

import numpy as np

from . import _lib

Acceptance = collections.namedtuple("Acceptance", ["beta", "alpha", "se", "ci_low", "ci_high", "rank_acceptance"])
Acceptance.__module__ = "specdec"
Acceptance.__doc__ = """What acceptance() returns: per-row beta, its mean with se and 95% interval, rank_acceptance."""

_INPUTS = {"logits": 0, "probs": 1}  # sd_input


def _matrix(x, what):
    """x as a C-order float32 or float64 array (copied to float64 only when it is neither) and its shape."""
    a = np.asarray(x)
    if a.dtype.kind not in "fiu":
        raise _lib.BadType("%s: expected a float32 or float64 array, got %s" % (what, a.dtype))
    if a.ndim not in (1, 2):
        raise _lib.InvalidInput("%s: expected a 1-D or 2-D array, got %d dimensions" % (what, a.ndim))
    if not (a.dtype in (np.float32, np.float64) and a.flags["C_CONTIGUOUS"]):
        a = np.ascontiguousarray(a, dtype=np.float64)
    rows, cols = (1, a.shape[0]) if a.ndim == 1 else a.shape
    if rows == 0 or cols == 0:
        raise _lib.InvalidInput("%s: no rows or no columns (shape %s)" % (what, a.shape))
    return a, rows, cols


def _whole(name, x, hi):
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)) or not 0 <= x <= hi:
        raise _lib.InvalidInput("%s: %r is not a whole number in [0, %d]" % (name, x, hi))
    return int(x)


def _sampling(temperature, top_k, top_p, min_p, side=""):
    return _lib._Sampling(float(temperature), _whole(side + "top_k", top_k, 2**62), float(top_p), float(min_p))


def acceptance(target: "ArrayLike", draft: "ArrayLike", logits: bool = True, temperature: float = 1.0,
               top_k: int = 0, top_p: float = 1.0, min_p: float = 0.0,
               rule: "Literal['adjusted', 'target', 'block', 'deterministic-draft', 'exact-match']" = "adjusted",
               draft_temperature: "float | None" = None, draft_top_k: "int | None" = None,
               draft_top_p: "float | None" = None, draft_min_p: "float | None" = None, ranks: int = 0,
               children: "Literal['sampled', 'top-k']" = "sampled") -> "Acceptance":
    """Per-row acceptance of a target and a draft distribution array (sampling.h, verify.h).

    target, draft: 1-D (one position) or 2-D (rows, V) arrays of the same
    shape, float32 or float64, logits (``logits=True``) or probabilities.
    Each row is transformed as vLLM samples (temperature, then min-p, top-k,
    top-p; the draft_* settings default to the target's), then scored by
    ``rule``: "adjusted" gives beta = sum min(p, q) (eq. 1), the chance
    the seed's rejection sampler accepts a draft; "deterministic-draft"
    p(argmax q); "exact-match" sum p q.  A PyTorch user passes
    ``tensor.cpu().numpy()``.  C-contiguous float32 and float64 arrays are
    read where they lie (a float32 row is widened exactly to double as it is
    read); any other array is copied once to C-contiguous float64.

    Parameters
    ----------
    target, draft : array_like
        The target's and the draft's rows, 1-D (one position) or 2-D (rows, V), the same shape.
    logits : bool, default True
        The arrays hold logits (else probabilities).
    temperature, top_k, top_p, min_p : float, int, float, float
        The target's sampling settings (0 temperature: greedy; top_k 0: all tokens).
    rule : {'adjusted', 'target', 'block', 'deterministic-draft', 'exact-match'}, default 'adjusted'
        The verification rule whose acceptance is scored (verify.h).
    draft_temperature, draft_top_k, draft_top_p, draft_min_p : optional
        The draft's settings, each the target's when None.
    ranks : int, default 0
        With K > 0, the per-rank acceptance of a token tree's children, K ranks.
    children : {'sampled', 'top-k'}, default 'sampled'
        How a tree's children are drawn from q.

    Returns
    -------
    Acceptance
        A named tuple: ``beta``, the per-row acceptance (an array of rows);
        ``alpha``, ``se``, ``ci_low``, ``ci_high``, the mean over rows with
        its standard error and 95% Student-t interval
        (sd_sampling_summarise); ``rank_acceptance``, with ``ranks=K`` a
        (K, rows) array: the chance that the child of rank k of a token
        tree is the one accepted (children "sampled" from q or deterministic
        "top-k"), else None.

    Raises
    ------
    specdec.InvalidInput
        NaN logits, mismatched shapes, a setting outside its domain (the
        library's message).
    specdec.BadType
        An array that is not of numbers.
    """
    p, rows, cols = _matrix(target, "target")
    q, qrows, qcols = _matrix(draft, "draft")
    if (qrows, qcols) != (rows, cols):
        raise _lib.InvalidInput("draft: shape (%d, %d) differs from target's (%d, %d)" % (qrows, qcols, rows, cols))
    v = _lib.lib.sd_verify_find(rule.encode())
    fn = _lib.lib.sd_verify_dist_acceptance(v) if v else None
    if not v or not fn:
        raise _lib.InvalidInput("rule: '%s' has no per-position acceptance; known: adjusted, target, block, "
                    "deterministic-draft, exact-match" % rule)
    if children not in ("sampled", "top-k"):
        raise _lib.InvalidInput("children: '%s' is not sampled or top-k" % children)

    def side(a, t):
        return a.ctypes.data_as(ctypes.POINTER(t)) if a.dtype == (np.float64 if t is ctypes.c_double else np.float32) \
            else None

    view = _lib._View(side(p, ctypes.c_double), side(q, ctypes.c_double), side(p, ctypes.c_float),
                      side(q, ctypes.c_float), rows, cols, 0 if logits else 1,
                      _sampling(temperature, top_k, top_p, min_p),
                      _sampling(temperature if draft_temperature is None else draft_temperature,
                                top_k if draft_top_k is None else draft_top_k,
                                top_p if draft_top_p is None else draft_top_p,
                                min_p if draft_min_p is None else draft_min_p, "draft_"), b"target", b"draft")
    ranks = _whole("ranks", ranks, 64)
    beta = np.empty(rows, dtype=np.float64)
    err = _lib.new_error()
    fns = (_lib._ACCEPTANCE_FN * 1)(fn)
    _lib.check(_lib.call(_lib.lib.sd_sampling_view_acceptances, ctypes.byref(view), 1, fns,
                         beta.ctypes.data_as(_lib._D), ctypes.byref(err)), err)
    summary = _lib._Summary()
    _lib.check(_lib.call(_lib.lib.sd_sampling_summarise, beta.ctypes.data_as(_lib._D), rows, ctypes.byref(summary),
                         ctypes.byref(err)), err)
    rk = None
    if ranks:
        rk = np.empty((ranks, rows), dtype=np.float64)
        _lib.check(_lib.call(_lib.lib.sd_sampling_view_rank_acceptances, ctypes.byref(view), ranks,
                             children == "sampled", rk.ctypes.data_as(_lib._D), ctypes.byref(err)), err)
    return Acceptance(beta, summary.mean, summary.se, summary.ci_low, summary.ci_high, rk)
