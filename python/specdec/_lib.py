"""Finding and loading libspecdec, and the C declarations the package calls.

The library is looked for, in order, at:

1. ``$SPECDEC_LIBRARY`` (a path to the shared library itself), which when
   set is the only place looked at;
2. the folder ``make install`` put it in (``_install.LIBDIR``, written at
   install time);
3. the build tree this package sits in (``../../build`` from here, for a
   checkout);
4. the system's library path (``ld.so``'s search, by the soname).

A library in a checkout's build folder, however it was found, reads that
checkout's ``data/``.

The first that loads wins; when none does, :class:`LibraryNotFound` names
every place tried and why it failed.  GSL's error handler, which aborts the
process, is turned off once, at import: the library reports every failure
as a status and a message instead.
"""

import ctypes
import os

SONAME = "libspecdec.so.2"  # the major version the package is written against


class LibraryNotFound(ImportError):
    """libspecdec could not be loaded from any of the places looked at."""


class Error(ValueError):
    """A library call failed; the message is the library's one line, naming the parameter at fault."""


class _Error(ctypes.Structure):  # sd_error (status.h)
    _fields_ = [("msg", ctypes.c_char * 512)]


class _Cell(ctypes.Structure):  # sd_cell (table.h)
    class _V(ctypes.Union):
        _fields_ = [("i", ctypes.c_longlong), ("r", ctypes.c_double), ("s", ctypes.c_char_p)]

    _fields_ = [("type", ctypes.c_int), ("v", _V)]


class _Domain(ctypes.Structure):  # sd_domain (parse.h)
    _fields_ = [("name", ctypes.c_char_p), ("min", ctypes.c_double), ("max", ctypes.c_double),
                ("whole", ctypes.c_int)]


UFUNC_MAX_IN, UFUNC_MAX_OUT = 3, 5  # SD_UFUNC_MAX_IN, SD_UFUNC_MAX_OUT (ufunc.h)


class _Ufunc(ctypes.Structure):  # sd_ufunc (ufunc.h)
    _fields_ = [("name", ctypes.c_char_p), ("doc", ctypes.c_char_p), ("nin", ctypes.c_size_t),
                ("nout", ctypes.c_size_t), ("inputs", ctypes.c_char_p * UFUNC_MAX_IN),
                ("outputs", ctypes.c_char_p * UFUNC_MAX_OUT), ("domains", _Domain * UFUNC_MAX_IN),
                ("eval", ctypes.c_void_p)]


class _Sampling(ctypes.Structure):  # sd_sampling (sampling.h)
    _fields_ = [("temperature", ctypes.c_double), ("top_k", ctypes.c_size_t), ("top_p", ctypes.c_double),
                ("min_p", ctypes.c_double)]


class _View(ctypes.Structure):  # sd_sampling_view (sampling.h)
    _fields_ = [("p64", ctypes.POINTER(ctypes.c_double)), ("q64", ctypes.POINTER(ctypes.c_double)),
                ("p32", ctypes.POINTER(ctypes.c_float)), ("q32", ctypes.POINTER(ctypes.c_float)),
                ("rows", ctypes.c_size_t), ("cols", ctypes.c_size_t), ("kind", ctypes.c_int),
                ("target", _Sampling), ("draft", _Sampling), ("p_name", ctypes.c_char_p),
                ("q_name", ctypes.c_char_p)]


class _Summary(ctypes.Structure):  # sd_summary (sampling.h)
    _fields_ = [("mean", ctypes.c_double), ("se", ctypes.c_double), ("ci_low", ctypes.c_double),
                ("ci_high", ctypes.c_double), ("q", ctypes.c_double * 7)]


_ACCEPTANCE_FN = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.POINTER(ctypes.c_double),
                                  ctypes.POINTER(ctypes.c_double), ctypes.c_size_t)


def _candidates():
    here = os.path.dirname(os.path.abspath(__file__))
    env = os.environ.get("SPECDEC_LIBRARY")
    if env:  # a library the user names is authoritative: never another copy instead
        yield "$SPECDEC_LIBRARY", env
        return
    yield "$SPECDEC_LIBRARY", None
    try:
        from . import _install  # written by make install
        yield "the installed LIBDIR", os.path.join(_install.LIBDIR, SONAME)
    except ImportError:
        yield "the installed LIBDIR", None
    yield "the build tree", os.path.join(here, os.pardir, os.pardir, "build", SONAME)
    yield "the system's library path", SONAME  # ld.so's search: a library installed under /usr/local/lib, say


def _load():
    tried = []
    for where, path in _candidates():
        if not path:
            tried.append("%s (not set)" % where)
            continue
        path = os.path.normpath(path) if os.sep in path else path
        if os.sep in path and not os.path.exists(path):
            tried.append("%s: %s (no such file)" % (where, path))
            continue
        try:
            return ctypes.CDLL(path), path, where
        except OSError as e:
            tried.append("%s: %s (%s)" % (where, path, e))
    raise LibraryNotFound("specdec: cannot load %s; looked at %s" % (SONAME, "; ".join(tried)))


lib, path, _where = _load()

# The data files (presets, published tables): the library finds its installed copy itself; a
# library in a checkout's build folder, however it was found, reads that checkout's data/
# (what the program finds from its own path).
_tree = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), os.pardir))
default_data = os.path.join(_tree, "data") if os.sep in path and os.path.isdir(os.path.join(_tree, "data")) and \
    os.path.isfile(os.path.join(_tree, "include", "specdec.h")) else None

_P = ctypes.c_void_p
_D = ctypes.POINTER(ctypes.c_double)
_ERR = ctypes.POINTER(_Error)
_DECLARATIONS = {
    # status.h, version.h
    "sd_version": (ctypes.c_char_p, []),
    # table.h
    "sd_table_free": (None, [_P]),
    "sd_table_ncols": (ctypes.c_size_t, [_P]),
    "sd_table_nrows": (ctypes.c_size_t, [_P]),
    "sd_table_nnotes": (ctypes.c_size_t, [_P]),
    "sd_table_name": (ctypes.c_char_p, [_P, ctypes.c_size_t]),
    "sd_table_cell": (ctypes.POINTER(_Cell), [_P, ctypes.c_size_t, ctypes.c_size_t]),
    "sd_table_note_at": (ctypes.c_char_p, [_P, ctypes.c_size_t]),
    # ufunc.h
    "sd_ufunc_at": (ctypes.POINTER(_Ufunc), [ctypes.c_size_t]),
    "sd_ufunc_eval": (ctypes.c_int, [ctypes.POINTER(_Ufunc), ctypes.c_size_t, ctypes.POINTER(_D),
                                     ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(_D), _ERR]),
    # sampling.h, verify.h
    "sd_sampling_view_acceptances": (ctypes.c_int, [ctypes.POINTER(_View), ctypes.c_size_t,
                                                    ctypes.POINTER(_ACCEPTANCE_FN), _D, _ERR]),
    "sd_sampling_view_rank_acceptances": (ctypes.c_int, [ctypes.POINTER(_View), ctypes.c_size_t, ctypes.c_int, _D,
                                                         _ERR]),
    "sd_sampling_summarise": (ctypes.c_int, [_D, ctypes.c_size_t, ctypes.POINTER(_Summary), _ERR]),
    "sd_verify_find": (_P, [ctypes.c_char_p]),
    "sd_verify_dist_acceptance": (_ACCEPTANCE_FN, [_P]),
    "sd_verify_names": (ctypes.c_char_p, []),
    # command.h
    "sd_command_at": (ctypes.c_char_p, [ctypes.c_size_t]),
    "sd_command_run": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
                                      ctypes.POINTER(_P), ctypes.POINTER(ctypes.c_char_p), _ERR]),
    "sd_command_free_text": (None, [ctypes.c_char_p]),
}
for _name, (_res, _args) in _DECLARATIONS.items():
    _f = getattr(lib, _name)
    _f.restype, _f.argtypes = _res, _args

# GSL's default handler aborts the process on a domain error; the library
# checks its inputs and reports through sd_error instead.
lib.gsl_set_error_handler_off.restype = ctypes.c_void_p
lib.gsl_set_error_handler_off()


def new_error():
    return _Error()


def check(status, err):
    """Raises Error with the library's message when status is not SD_OK (0)."""
    if status != 0:
        raise Error(err.msg.decode("utf-8", "replace"))
