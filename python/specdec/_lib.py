"""Finding and loading libspecdec, the C declarations the package calls, and its errors.

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
every place tried and why it failed.  Importing changes nothing
process-wide: GSL's error handler, which aborts the process, is turned off
only while a call into the library is running (:func:`call`), and put back
when the last concurrent call returns.
"""

import ctypes
import os
import threading

SONAME = "libspecdec.so.3"  # the major version the package is written against


class LibraryNotFound(ImportError):
    """libspecdec could not be loaded from any of the places looked at."""


class Error(Exception):
    """A library call failed; the message is the library's one line, naming the parameter at fault.

    The subclass says which kind of failure (status.h): :class:`InvalidInput`
    (also a ``ValueError``), :class:`OutOfMemory` (a ``MemoryError``),
    :class:`FileError` (an ``OSError``), :class:`BadType` (a ``TypeError``),
    :class:`ComputationFailed` (a ``RuntimeError``).
    """


class InvalidInput(Error, ValueError):
    """SD_EINVAL: a value outside its domain, a malformed file, options that do not go together."""


class FileError(Error, OSError):
    """SD_EIO: a file could not be written or read back."""


class OutOfMemory(Error, MemoryError):
    """SD_ENOMEM: an allocation failed."""


class ComputationFailed(Error, RuntimeError):
    """SD_EFAIL: a numerical routine did not converge, or an internal check failed."""


class BadType(Error, TypeError):
    """An argument of the wrong type or dtype (raised by the package before any call)."""


_BY_STATUS = {1: InvalidInput, 2: FileError, 3: OutOfMemory, 4: ComputationFailed}


class _Error(ctypes.Structure):  # sd_error (status.h)
    _fields_ = [("msg", ctypes.c_char * 512)]


class _Cell(ctypes.Structure):  # sd_cell (table.h)
    class _V(ctypes.Union):
        _fields_ = [("i", ctypes.c_longlong), ("r", ctypes.c_double), ("s", ctypes.c_char_p)]

    _fields_ = [("type", ctypes.c_int), ("v", _V)]


class _Domain(ctypes.Structure):  # sd_domain (parse.h)
    _fields_ = [("name", ctypes.c_char_p), ("min", ctypes.c_double), ("max", ctypes.c_double),
                ("whole", ctypes.c_int)]


class _List(ctypes.Structure):  # sd_list (parse.h)
    _fields_ = [("v", ctypes.POINTER(ctypes.c_double)), ("n", ctypes.c_size_t)]


class _CommandList(ctypes.Structure):  # sd_command_list (command.h)
    _fields_ = [("v", ctypes.POINTER(ctypes.c_double)), ("n", ctypes.c_size_t)]


_NAMES_FN = ctypes.CFUNCTYPE(ctypes.POINTER(ctypes.c_char_p))


class _Field(ctypes.Structure):  # sd_command_field (command.h)
    _fields_ = [("name", ctypes.c_char_p), ("type", ctypes.c_int), ("offset", ctypes.c_size_t),
                ("position", ctypes.c_int), ("metavar", ctypes.c_char_p), ("help", ctypes.c_char_p),
                ("domain", ctypes.POINTER(_Domain)), ("dflt", ctypes.c_char_p), ("lib", ctypes.c_int),
                ("lib_offset", ctypes.c_size_t), ("names", _NAMES_FN)]


COMMAND_MAX_GROUPS = 4  # SD_COMMAND_MAX_GROUPS (command.h)
FLAG, REAL, LIST, TEXT, CHOICE = range(5)  # sd_command_type


class _Command(ctypes.Structure):  # sd_command (command.h)
    _fields_ = [("name", ctypes.c_char_p), ("summary", ctypes.c_char_p), ("usage", ctypes.c_char_p),
                ("size", ctypes.c_size_t),
                ("groups", ctypes.POINTER(_Field) * COMMAND_MAX_GROUPS),
                ("base", ctypes.c_size_t * COMMAND_MAX_GROUPS), ("defaults", ctypes.CFUNCTYPE(None, ctypes.c_void_p)),
                ("table", ctypes.c_void_p), ("text_option", ctypes.c_char_p), ("text", ctypes.c_void_p),
                ("library", ctypes.c_void_p), ("library_size", ctypes.c_size_t), ("data_dir", ctypes.c_size_t)]


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
    # parse.h
    "sd_parse_number": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(_Domain), _D, _ERR]),
    "sd_parse_list": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(_Domain), ctypes.POINTER(_List), _ERR]),
    "sd_parse_list_free": (None, [ctypes.POINTER(_List)]),
    # table.h
    "sd_table_free": (None, [_P]),
    "sd_table_ncols": (ctypes.c_size_t, [_P]),
    "sd_table_nrows": (ctypes.c_size_t, [_P]),
    "sd_table_nnotes": (ctypes.c_size_t, [_P]),
    "sd_table_name": (ctypes.c_char_p, [_P, ctypes.c_size_t]),
    "sd_table_cell": (ctypes.POINTER(_Cell), [_P, ctypes.c_size_t, ctypes.c_size_t]),
    "sd_table_note_at": (ctypes.c_char_p, [_P, ctypes.c_size_t]),
    "sd_table_column_type": (ctypes.c_int, [_P, ctypes.c_size_t]),
    "sd_table_column_reals": (ctypes.c_int, [_P, ctypes.c_size_t, _D]),
    "sd_table_column_ints": (ctypes.c_int, [_P, ctypes.c_size_t, ctypes.POINTER(ctypes.c_longlong)]),
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
    # command.h, commands.h
    "sd_commands_at": (ctypes.POINTER(_Command), [ctypes.c_size_t]),
    "sd_command_default_text": (ctypes.c_char_p, [ctypes.POINTER(_Command), ctypes.POINTER(_Field),
                                                   ctypes.c_char_p, ctypes.c_size_t]),
    "sd_command_help_text": (ctypes.c_char_p, [ctypes.POINTER(_Command), ctypes.POINTER(_Field), ctypes.c_char_p,
                                               ctypes.c_size_t]),
    "sd_command_run": (ctypes.c_int, [ctypes.POINTER(_Command), _P, ctypes.POINTER(_P), ctypes.POINTER(_P), _ERR]),
    "sd_command_free_text": (None, [_P]),
    # GSL (the library links it): the handler while a call runs
    "gsl_set_error_handler_off": (_P, []),
    "gsl_set_error_handler": (_P, [_P]),
}
for _name, (_res, _args) in _DECLARATIONS.items():
    _f = getattr(lib, _name)
    _f.restype, _f.argtypes = _res, _args

# GSL's default handler prints and aborts on a failure inside GSL; the library reports every
# failure through sd_error when the handler is off.  It is off while any call runs.
_gsl_lock = threading.Lock()
_gsl_depth = 0
_gsl_saved = None


def call(fn, *args):
    """fn(*args), a library call, with GSL's error handler off while it runs (any thread)."""
    global _gsl_depth, _gsl_saved
    with _gsl_lock:
        if _gsl_depth == 0:
            _gsl_saved = lib.gsl_set_error_handler_off()
        _gsl_depth += 1
    try:
        return fn(*args)
    finally:
        with _gsl_lock:
            _gsl_depth -= 1
            if _gsl_depth == 0:
                lib.gsl_set_error_handler(_gsl_saved)


def new_error():
    return _Error()


def check(status, err):
    """Raises the Error subclass of status, with the library's message, when status is not SD_OK (0)."""
    if status != 0:
        raise _BY_STATUS.get(status, Error)(err.msg.decode("utf-8", "replace"))
