"""The closed forms over arrays: one function per row of the library's table (ufunc.h).

Each function broadcasts its arguments like a NumPy ufunc and makes one call
into C for all the points; a closed form of several outputs returns a named
tuple of arrays.  Nothing here evaluates a formula.
"""

import collections
import ctypes
import inspect
import math

import numpy as np

from . import _lib


def _as_double(name, x):
    a = np.asarray(x)
    if a.dtype.kind not in "biuf":
        raise _lib.BadType("%s: expected numbers, got an array of %s" % (name, a.dtype))
    return np.asarray(a, dtype=np.float64)


def _domains(row, inputs):
    out = []
    for i, name in enumerate(inputs):
        d = row.domains[i]
        if d.name:
            hi = "inf" if math.isinf(d.max) else "%g" % d.max
            out.append("%s: %s in [%g, %s]" % (name, "whole numbers" if d.whole else "reals", d.min, hi))
    return out


def _doc(name, row, inputs, outputs):
    params = "\n".join("%s : array_like\n    %s" % (x, d) for x, d in zip(inputs, _domains(row, inputs) or inputs))
    ret = outputs[0] if len(outputs) == 1 else "a named tuple (%s) of arrays" % ", ".join(outputs)
    return ("%s(%s)\n\n%s\n\nBroadcasts its arguments like a NumPy ufunc.  Domains: %s.\n\n"
            "Parameters\n----------\n%s\n\nReturns\n-------\n%s : ndarray or NumPy scalar\n"
            "    Of the broadcast shape (a NumPy scalar for scalar arguments).\n\n"
            "Raises\n------\nspecdec.InvalidInput\n    A point outside its domain, or shapes that do not broadcast.\n"
            "specdec.BadType\n    An argument that is not numbers.\n") % (
        name, ", ".join(inputs), row.doc.decode(), "; ".join(_domains(row, inputs)) or "checked by the library",
        params, ret)


def _make(row):
    name = row.name.decode()
    nin, nout = row.nin, row.nout
    inputs = [row.inputs[i].decode() for i in range(nin)]
    outputs = [row.outputs[i].decode() for i in range(nout)]
    ptr = ctypes.pointer(row)
    result = None if nout == 1 else collections.namedtuple("".join(w.title() for w in name.split("_")), outputs)

    P = inspect.Parameter
    sig = inspect.Signature([P(x, P.POSITIONAL_OR_KEYWORD, annotation="ArrayLike") for x in inputs],
                            return_annotation="NDArray[np.float64] | np.float64" if nout == 1 else result.__name__)

    def f(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)  # the arguments by name; a missing or unknown one: TypeError
        args = [bound.arguments[x] for x in inputs]
        arrays = [_as_double(x, a) for x, a in zip(inputs, args)]
        try:
            shape = np.broadcast_shapes(*[a.shape for a in arrays])
        except ValueError:
            raise _lib.InvalidInput("%s: the shapes of %s, %s, do not broadcast together" % (
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
        _lib.check(_lib.call(_lib.lib.sd_ufunc_eval, ptr, n, ins, strides, outp, ctypes.byref(err)), err)
        outs = [o[()] if o.ndim == 0 else o for o in outs]
        return outs[0] if nout == 1 else result(*outs)

    f.__name__ = f.__qualname__ = name
    f.__signature__ = sig
    f.__doc__ = _doc(name, row, inputs, outputs)
    f._specdec_io = (inputs, outputs)  # for the stub (_stub.py)
    if result is not None:
        result.__module__ = "specdec"
        f._specdec_result = result
    return name, f


def closed_forms():
    """The closed forms, by name, in the library's order."""
    out = {}
    for i in range(1000):
        row = _lib.lib.sd_ufunc_at(i)
        if not row:
            break
        name, f = _make(row.contents)
        out[name] = f
    return out
