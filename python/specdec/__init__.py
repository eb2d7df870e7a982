"""specdec: the analytical theory of speculative decoding, from Python.

A thin ctypes binding over libspecdec: NumPy in, NumPy out, the library's
names and its one-line errors.  Nothing here evaluates a formula; every
number comes from the C library, so a result equals the ``specdec``
program's ``--format tsv`` output for the same inputs, bit for bit.

- The closed forms (``expected_tokens``, ``improvement``, ``flop_factor``,
  ``optimal_gamma``, the engine metrics, ...) broadcast over arrays as NumPy
  ufuncs do and make one call into C for all the points.  They are made
  from the library's table of closed forms (ufunc.h), each docstring its
  row's, with the seed's equation numbers.
- ``acceptance(target, draft, ...)``: per-row acceptance of two logits or
  probability arrays under sampling settings (sampling.h).
- Every command of the program (``roofline``, ``fit``, ``simulate``,
  ``validate``, ``tree``, ``serving``, ...) as a function of keyword
  options that returns a :class:`Table` built from the library's own table.

Thread safety: ctypes releases the GIL during every library call.  The
closed forms and ``acceptance`` keep no state and may run in many threads
at once; the commands run one at a time (a lock serialises them), since a
command may read data files and set up shared tables.
"""

import ctypes
import math
import os
import threading

import numpy as np

from . import _lib
from ._lib import Error, LibraryNotFound
from ._table import Table

__all__ = ["Error", "LibraryNotFound", "Table", "acceptance", "run", "library_path"]
__version__ = _lib.lib.sd_version().decode()
library_path = _lib.path

# ---- the closed forms: one function per row of the library's table -------------------------


def _as_double(x):
    a = np.asarray(x)
    if a.dtype.kind not in "biuf":
        raise Error("expected numbers, got an array of %s" % a.dtype)
    return np.asarray(a, dtype=np.float64)


def _make_ufunc(row):
    name = row.name.decode()
    nin, nout = row.nin, row.nout
    inputs = [row.inputs[i].decode() for i in range(nin)]
    outputs = [row.outputs[i].decode() for i in range(nout)]
    ptr = ctypes.pointer(row)

    def f(*args):
        if len(args) != nin:
            raise TypeError("%s() takes %d arguments (%s), %d given" % (name, nin, ", ".join(inputs), len(args)))
        arrays = [_as_double(a) for a in args]
        try:
            shape = np.broadcast_shapes(*[a.shape for a in arrays])
        except ValueError:
            raise Error("%s: the shapes of %s, %s, do not broadcast together" % (
                name, ", ".join(inputs), " and ".join(str(a.shape) for a in arrays))) from None
        n = math.prod(shape)
        keep, ins, strides = [], (_lib._D * nin)(), (ctypes.c_size_t * nin)()
        for i, a in enumerate(arrays):
            if a.size == 1:  # a scalar: stride 0, no copy
                a, strides[i] = np.ascontiguousarray(a.reshape(1)), 0
            else:  # C-contiguous at the broadcast shape: copied only when it is not already
                a, strides[i] = np.ascontiguousarray(np.broadcast_to(a, shape)), 1
            keep.append(a)
            ins[i] = a.ctypes.data_as(_lib._D)
        outs = [np.empty(shape, dtype=np.float64) for _ in range(nout)]
        outp = (_lib._D * nout)(*[o.ctypes.data_as(_lib._D) for o in outs])
        err = _lib.new_error()
        _lib.check(_lib.lib.sd_ufunc_eval(ptr, n, ins, strides, outp, ctypes.byref(err)), err)
        outs = [o[()] if o.ndim == 0 else o for o in outs]
        return outs[0] if nout == 1 else dict(zip(outputs, outs))

    f.__name__ = f.__qualname__ = name
    domains = []
    for i in range(nin):
        d = row.domains[i]
        if d.name:
            hi = "inf" if math.isinf(d.max) else "%g" % d.max
            domains.append("%s: %s in [%g, %s]" % (inputs[i], "whole numbers" if d.whole else "reals", d.min, hi))
    returns = outputs[0] if nout == 1 else "a dict of arrays: " + ", ".join(outputs)
    f.__doc__ = "%s(%s)\n\n%s\n\nBroadcasts its arguments like a NumPy ufunc; returns %s, of the broadcast shape\n" \
                "(a NumPy scalar for scalar arguments).  Domains: %s.  Raises specdec.Error, with the\n" \
                "library's message, for any point outside them." % (
                    name, ", ".join(inputs), row.doc.decode(), returns, "; ".join(domains) or "checked by the library")
    return name, f


_UFUNCS = {}
for _i in range(1000):
    _row = _lib.lib.sd_ufunc_at(_i)
    if not _row:
        break
    _n, _f = _make_ufunc(_row.contents)
    _UFUNCS[_n] = _f
    globals()[_n] = _f
    __all__.append(_n)

# ---- acceptance from logits ----------------------------------------------------------------

_INPUTS = {"logits": 0, "probs": 1}  # sd_input


def _matrix(x, what):
    """x as a C-order float32 or float64 array (copied to float64 only when it is neither) and its shape."""
    a = np.asarray(x)
    if a.dtype.kind not in "fiu":
        raise Error("%s: expected a float32 or float64 array, got %s" % (what, a.dtype))
    if a.ndim not in (1, 2):
        raise Error("%s: expected a 1-D or 2-D array, got %d dimensions" % (what, a.ndim))
    if not (a.dtype in (np.float32, np.float64) and a.flags["C_CONTIGUOUS"]):
        a = np.ascontiguousarray(a, dtype=np.float64)
    rows, cols = (1, a.shape[0]) if a.ndim == 1 else a.shape
    if rows == 0 or cols == 0:
        raise Error("%s: no rows or no columns (shape %s)" % (what, a.shape))
    return a, rows, cols


def _whole(name, x, hi):
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)) or not 0 <= x <= hi:
        raise Error("%s: %r is not a whole number in [0, %d]" % (name, x, hi))
    return int(x)


def _sampling(temperature, top_k, top_p, min_p, side=""):
    return _lib._Sampling(float(temperature), _whole(side + "top_k", top_k, 2**62), float(top_p), float(min_p))


def acceptance(target, draft, logits=True, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, rule="adjusted",
               draft_temperature=None, draft_top_k=None, draft_top_p=None, draft_min_p=None, ranks=0,
               children="sampled"):
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

    Returns a dict: "beta", the per-row acceptance (an array of rows);
    "alpha", "se", "ci_low", "ci_high", the mean over rows with its standard
    error and 95% Student-t interval (sd_sampling_summarise); and with
    ``ranks=K``, "rank_acceptance", a (K, rows) array: the chance that the
    child of rank k of a token tree is the one accepted (children "sampled"
    from q or deterministic "top-k").  Raises specdec.Error with the
    library's message (NaN logits, mismatched shapes, a setting outside its
    domain).
    """
    p, rows, cols = _matrix(target, "target")
    q, qrows, qcols = _matrix(draft, "draft")
    if (qrows, qcols) != (rows, cols):
        raise Error("draft: shape (%d, %d) differs from target's (%d, %d)" % (qrows, qcols, rows, cols))
    v = _lib.lib.sd_verify_find(rule.encode())
    fn = _lib.lib.sd_verify_dist_acceptance(v) if v else None
    if not v or not fn:
        raise Error("rule: '%s' has no per-position acceptance; known: adjusted, target, block, "
                    "deterministic-draft, exact-match" % rule)
    if children not in ("sampled", "top-k"):
        raise Error("children: '%s' is not sampled or top-k" % children)

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
    _lib.check(_lib.lib.sd_sampling_view_acceptances(ctypes.byref(view), 1, fns, beta.ctypes.data_as(_lib._D),
                                                     ctypes.byref(err)), err)
    summary = _lib._Summary()
    _lib.check(_lib.lib.sd_sampling_summarise(beta.ctypes.data_as(_lib._D), rows, ctypes.byref(summary),
                                              ctypes.byref(err)), err)
    out = {"beta": beta, "alpha": summary.mean, "se": summary.se, "ci_low": summary.ci_low,
           "ci_high": summary.ci_high}
    if ranks:
        rk = np.empty((ranks, rows), dtype=np.float64)
        _lib.check(_lib.lib.sd_sampling_view_rank_acceptances(ctypes.byref(view), ranks, children == "sampled",
                                                              rk.ctypes.data_as(_lib._D), ctypes.byref(err)), err)
        out["rank_acceptance"] = rk
    return out


# ---- the commands --------------------------------------------------------------------------

_COMMAND_LOCK = threading.Lock()


def _option_text(value):
    if isinstance(value, (bool, np.bool_)):
        raise TypeError("a flag takes True or is left out")
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    if isinstance(value, (list, tuple, np.ndarray)):
        return ",".join(_option_text(v) for v in np.asarray(value, dtype=object).ravel())
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return repr(float(value))  # the shortest text that reads back as the same double


def _argv(command, positional, options):
    argv = [command]
    for name, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + name.replace("_", "-")
        if value is True:
            argv.append(flag)
        else:
            argv += [flag, _option_text(value)]
    argv += [os.fspath(p) for p in positional]
    return argv


def run(command, *positional, data=None, **options):
    """Runs a specdec command as the program does and returns its Table.

    ``run("roofline", target="llama-3.1-70b", draft="llama-3.2-1b",
    hardware="h100-sxm", alpha=0.8, batch=[1, 64])`` is ``specdec roofline
    --target llama-3.1-70b ... --batch 1,64``: keyword names are the
    options with - written _, True is a flag given, None or False one left
    out, lists become comma lists, numbers the shortest text that reads back
    as the same double.  ``data`` is the program's --data DIR.  The options
    and their domains are the program's (man specdec).  A command that
    writes another program's syntax (roofline --export) returns that text
    as a str.  Raises specdec.Error with the program's one-line message.
    """
    argv = _argv(command, positional, options)
    if data is None and not os.environ.get("SPECDEC_DATA"):
        data = _lib.default_data
    arr = (ctypes.c_char_p * len(argv))(*[a.encode() for a in argv])
    table, text = ctypes.c_void_p(), ctypes.c_char_p()
    err = _lib.new_error()
    with _COMMAND_LOCK:
        st = _lib.lib.sd_command_run(os.fspath(data).encode() if data is not None else None, len(argv), arr,
                                     ctypes.byref(table), ctypes.byref(text), ctypes.byref(err))
    try:
        if st not in (0, _ECHECK):
            _lib.check(st, err)
        if text.value is not None:
            return text.value.decode()
        return Table._from_c(table, passed=st == 0)
    finally:
        if table:
            _lib.lib.sd_table_free(table)
        if text:
            _lib.lib.sd_command_free_text(text)


_ECHECK = 5  # SD_ECHECK (status.h)


def _make_command(name):
    def f(*positional, data=None, **options):
        return run(name, *positional, data=data, **options)

    f.__name__ = f.__qualname__ = name.replace("-", "_")
    f.__doc__ = "specdec %s as a function: run(%r, ...) (see run and man specdec); returns a Table." % (name, name)
    return f


for _i in range(1000):
    _c = _lib.lib.sd_command_at(_i)
    if not _c:
        break
    _name = _c.decode().replace("-", "_")
    if _name in _UFUNCS:
        continue  # a closed form of the same name (optimal, metrics) keeps it; run(NAME) reaches the command
    globals()[_name] = _make_command(_c.decode())
    __all__.append(_name)


def fit(path_or_text, **options):
    """specdec fit: alpha from an engine's counters (man specdec, doc/fit.md), as a Table.

    path_or_text: a file's path (str or os.PathLike), or the text itself (a
    str holding a newline, or bytes), which is written to a temporary file
    for the library to read as it reads any file.
    """
    if isinstance(path_or_text, bytes) or (isinstance(path_or_text, str) and "\n" in path_or_text):
        import tempfile

        data = path_or_text.encode() if isinstance(path_or_text, str) else path_or_text
        with tempfile.NamedTemporaryFile(prefix="specdec-fit-", suffix=".txt") as f:
            f.write(data)
            f.flush()
            return run("fit", f.name, **options)
    return run("fit", path_or_text, **options)


def validate(quick=True, **options):
    """specdec validate: the theory held against the engine (man specdec).  quick=True is --quick."""
    return run("validate", quick=quick, **options)
