"""specdec: the analytical theory of speculative decoding, from Python.

A typed ctypes binding over libspecdec: NumPy in, NumPy out, the library's
names and its one-line errors.  Nothing here evaluates a formula; every
number comes from the C library, so a result equals the ``specdec``
program's ``--format tsv`` output for the same inputs, bit for bit.

- The closed forms (``expected_tokens``, ``improvement``, ``flop_factor``,
  ``optimal_gamma``, the engine metrics, ...) broadcast over arrays as NumPy
  ufuncs do and make one call into C for all the points.  They are made
  from the library's table of closed forms (ufunc.h), each docstring its
  row's, with the seed's equation numbers; one of several outputs
  (``optimal``, ``metrics``) returns a named tuple.
- ``acceptance(target, draft, ...)``: per-row acceptance of two logits or
  probability arrays under sampling settings (sampling.h).
- Every command of the program (``roofline``, ``fit``, ``simulate``,
  ``validate``, ``tree``, ``serving``, ...) as a function with the
  command's own keyword parameters (made from the library's rows,
  command.h) that returns a :class:`Table`; all of them are in
  :mod:`specdec.commands`.  ``run(command, *argv, **options)`` takes the
  program's words instead.

Errors are :class:`Error` subclasses by kind: :class:`InvalidInput` (also a
``ValueError``), :class:`OutOfMemory` (``MemoryError``), :class:`FileError`
(``OSError``), :class:`ComputationFailed` (``RuntimeError``),
:class:`BadType` (``TypeError``).

Thread safety: ctypes releases the GIL during every library call, and the
library keeps no state between calls, so closed forms, ``acceptance`` and
commands may run in many threads at once.  Importing changes nothing
process-wide (GSL's error handler is off only while a call runs).
"""

from . import _lib, _sampling, _ufuncs, commands
from ._commands import run as _run
from ._lib import (BadType, ComputationFailed, Error, FileError, InvalidInput, LibraryNotFound, OutOfMemory)
from ._sampling import Acceptance, acceptance
from ._table import Table

__version__ = _lib.lib.sd_version().decode()
library_path = _lib.path

__all__ = ["Error", "InvalidInput", "OutOfMemory", "FileError", "ComputationFailed", "BadType", "LibraryNotFound",
           "Table", "Acceptance", "acceptance", "run", "commands", "library_path"]

_CLOSED_FORMS = _ufuncs.closed_forms()
for _name, _f in _CLOSED_FORMS.items():
    globals()[_name] = _f
    __all__.append(_name)
    if getattr(_f, "_specdec_result", None) is not None:
        _result = _f._specdec_result
        globals()[_result.__name__] = _result
        __all__.append(_result.__name__)
for _name in commands.__all__:
    if _name not in _CLOSED_FORMS:  # a closed form keeps its name: specdec.commands.NAME is the command
        globals()[_name] = getattr(commands, _name)
        __all__.append(_name)
del _name, _f


def run(command, *argv, data=None, **options):
    """Runs a specdec command from the program's words and returns its Table (or text).

    ``run("roofline", "--target", "llama-3.1-70b", "--draft", "llama-3.2-1b",
    "--hardware", "h100-sxm", "--alpha", "0.8", "--batch", "1,64")`` is
    ``specdec roofline --target llama-3.1-70b ... --batch 1,64``: words
    ``--name value``, ``--name=value`` and flags as the program reads them,
    positional arguments (a file) as they come.  Keyword ``options`` are
    added as the typed functions take them (``batch=[1, 64]``).  ``data``
    is the program's ``--data DIR``.  The library parses every value as the
    program does (the same domains and messages).

    Parameters
    ----------
    command : str
        A command's name (``specdec.commands.COMMANDS``).
    *argv : str
        The program's words after the command's name.
    data : str or os.PathLike, optional
        The folder of data files.
    **options
        Typed keyword options, as the command's function takes them.

    Returns
    -------
    Table or str
        The command's table, or its text for an option that writes another program's syntax.

    Raises
    ------
    specdec.InvalidInput
        An unknown command or option, a value outside its domain (the library's message).
    TypeError
        A keyword option the command does not have.
    """
    return _run(commands.COMMANDS, command, argv, data, options)
