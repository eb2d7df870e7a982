"""Every command of the library as a typed Python function, made from its rows (command.h).

A command's request is a C struct described by a row of named fields: each
field's option name, type, place in the struct, domain, default and help
line.  From those rows this module makes, per command, a function with a
real signature (``inspect.signature``), a numpydoc docstring and a return
annotation, which fills the struct field by field and runs the command in
the library.  A keyword the command does not have fails in Python
(``TypeError``) before anything runs; a value is checked by the library
against its field's domain, with the program's message.
"""

import ctypes
import inspect
import keyword
import math
import os
import tempfile

import numpy as np

from . import _lib
from ._lib import CHOICE, FLAG, LIST, REAL, TEXT
from ._table import Table

_ECHECK = 5  # SD_ECHECK (status.h): a validate whose checks did not all pass, its table complete
_NO_DATA = ctypes.c_size_t(-1).value  # SIZE_MAX: a request without a data folder


class Field:
    """One field of a command's request, as its row describes it."""

    def __init__(self, cmd, row, base):
        self.option = row.name.decode()
        self.kind = row.type
        self.offset = base + row.offset
        self.position = row.position
        self.metavar = row.metavar.decode() if row.metavar else None
        self.domain = row.domain if row.domain else None
        buf = ctypes.create_string_buffer(64)
        dflt = _lib.lib.sd_command_default_text(ctypes.byref(cmd), ctypes.byref(row), buf, 64)
        self.default_text = dflt.decode() if dflt is not None else None
        help_buf = ctypes.create_string_buffer(1024)
        self.help = _lib.lib.sd_command_help_text(ctypes.byref(cmd), ctypes.byref(row), help_buf, 1024).decode()
        self.names = []
        if self.kind == CHOICE and row.names:
            names = row.names()
            i = 0
            while names[i] is not None:
                self.names.append(names[i].decode())
                i += 1
        name = self.option[2:] if self.option.startswith("--") else self.option.lower()
        name = name.replace("-", "_")
        self.name = name + "_" if keyword.iskeyword(name) else name

    def is_path(self):
        """A file's or folder's path (its metavar says FILE or DIR)."""
        return self.metavar is not None and ("FILE" in self.metavar or "DIR" in self.metavar)

    def takes_content(self):
        """A positional file, which also takes the file's content (bytes, or a str holding a newline)."""
        return bool(self.position) and self.metavar is not None and "FILE" in self.metavar

    @property
    def whole(self):
        return self.domain is not None and self.domain.contents.whole

    def annotation(self):
        """The type a caller passes, as a string (the stub's and the signature's)."""
        num = "int" if self.whole else "float"
        if self.kind == FLAG:
            return "bool"
        if self.kind == REAL:
            return "%s | str | None" % num
        if self.kind == LIST:
            return "%s | Sequence[%s] | NDArray[Any] | str | None" % (num, num)
        if self.kind == CHOICE:
            return "Literal[%s] | None" % ", ".join(repr(n) for n in self.names)
        if self.metavar == "LIST":  # numbers and names (--gamma 0,2,goodput)
            return "int | Sequence[int | str] | str | None"
        if self.domain is not None:  # a number or a file's path (N|FILE)
            return "%s | str | os.PathLike[str] | None" % num
        if self.takes_content():
            return "str | bytes | os.PathLike[str] | None"
        return "str | os.PathLike[str] | None" if self.is_path() else "str | None"

    def doc_type(self):
        if self.kind == FLAG:
            return "bool, optional"
        kinds = {REAL: "int or float" if self.whole else "float", LIST: "number, sequence of numbers or str",
                 CHOICE: "{%s}" % ", ".join(repr(n) for n in self.names),
                 TEXT: "number or list of numbers and names" if self.metavar == "LIST" else
                 "number, str or os.PathLike" if self.domain is not None else
                 "str, bytes or os.PathLike (a path, or the content)" if self.takes_content() else
                 "str or os.PathLike" if self.is_path() else "str"}
        return "%s, optional" % kinds[self.kind]  # the default, and what leaving it out means, are the help line's


def _word(f, x):
    """A number or a name as the program reads it."""
    if isinstance(x, (bool, np.bool_)):
        raise _lib.BadType("%s: expected a number or a name, not %s" % (f.option, type(x).__name__))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        return str(int(x)) if float(x).is_integer() else repr(float(x))
    return x


def _words(f, value):
    """A text field's value: as it is, a number (the N of N|FILE), or a list of numbers and names
    (--gamma 0,2,goodput) joined as the program reads it."""
    if isinstance(value, (list, tuple, np.ndarray)):
        return ",".join(str(_word(f, x)) for x in value)
    return _word(f, value)


def _text(value):
    return os.fsencode(value) if isinstance(value, (str, bytes, os.PathLike)) else None


class _Request:
    """A command's request being filled: the C struct's bytes and what they point at."""

    def __init__(self, cmd):
        self.cmd = cmd
        self.buf = ctypes.create_string_buffer(cmd.size)
        self.keep = []
        self.temps = []
        cmd.defaults(ctypes.cast(self.buf, ctypes.c_void_p))

    def _pointer(self, offset, obj):
        self.keep.append(obj)
        ctypes.c_void_p.from_buffer(self.buf, offset).value = ctypes.cast(obj, ctypes.c_void_p).value

    def set_text(self, offset, value):
        b = _text(value)
        if b is None:
            raise _lib.BadType("expected a str or os.PathLike, got %s" % type(value).__name__)
        self._pointer(offset, ctypes.c_char_p(b))

    def parse_list(self, f, text):
        lst, err = _lib._List(), _lib.new_error()
        _lib.check(_lib.lib.sd_parse_list(text.encode(), f.domain, ctypes.byref(lst), ctypes.byref(err)), err)
        a = np.ctypeslib.as_array(lst.v, (lst.n,)).copy()
        _lib.lib.sd_parse_list_free(ctypes.byref(lst))
        return a

    def numbers(self, f, value):
        if isinstance(value, str):
            return self.parse_list(f, value)
        a = np.asarray(value)
        if a.dtype == np.bool_ or a.dtype.kind not in "iuf":
            raise _lib.BadType("%s: expected numbers, got %s" % (f.option, a.dtype if a.ndim else type(value).__name__))
        a = np.ascontiguousarray(a, dtype=np.float64).ravel()
        if a.size == 0:
            raise _lib.InvalidInput("%s: an empty list; leave it out for its default" % f.option)
        return a

    def set(self, f, value):
        if value is None:
            return
        if f.kind == FLAG:
            if not isinstance(value, (bool, np.bool_)):
                raise _lib.BadType("%s: a flag takes True or False, not %s" % (f.option, type(value).__name__))
            ctypes.c_int.from_buffer(self.buf, f.offset).value = int(bool(value))
        elif f.kind == TEXT:
            if f.takes_content() and self._is_content(value):
                value = self._temporary(value)
            self.set_text(f.offset, _words(f, value))
        elif f.kind == CHOICE:
            if not isinstance(value, str):
                raise _lib.BadType("%s: expected one of %s, not %s" % (f.option, ", ".join(f.names), type(value).__name__))
            if value not in f.names:
                raise _lib.InvalidInput("%s: unknown value '%s'; expected one of %s" % (f.option, value,
                                                                                       ", ".join(f.names)))
            ctypes.c_int.from_buffer(self.buf, f.offset).value = f.names.index(value)
        else:
            self.set_numbers(f, value)

    def set_numbers(self, f, value):
        a = self.numbers(f, value)
        if f.kind == REAL:
            if a.size != 1:
                raise _lib.InvalidInput("%s: one number, not a list of %d" % (f.option, a.size))
            if math.isnan(a[0]):
                raise _lib.InvalidInput("%s: 'nan' is not a number" % f.option)
            ctypes.c_double.from_buffer(self.buf, f.offset).value = float(a[0])
            return
        self.keep.append(a)
        lst = _lib._CommandList.from_buffer(self.buf, f.offset)
        lst.v, lst.n = a.ctypes.data_as(_lib._D), a.size

    @staticmethod
    def _is_content(value):
        return isinstance(value, bytes) or (isinstance(value, str) and "\n" in value)

    def _temporary(self, value):
        """A file's content given instead of its path: written to a temporary file the call reads."""
        f = tempfile.NamedTemporaryFile(prefix="specdec-", suffix=".txt")
        f.write(value.encode() if isinstance(value, str) else value)
        f.flush()
        self.temps.append(f)
        return f.name

    def close(self):
        for f in self.temps:
            f.close()


class Command:
    """A library command: its row, its fields, and the typed function made from them."""

    def __init__(self, row):
        self.row = row
        self.name = row.name.decode()
        self.summary = row.summary.decode()
        self.has_data = row.data_dir != _NO_DATA
        self.text_option = row.text_option.decode() if row.text_option else None
        self.fields = []
        for g in range(_lib.COMMAND_MAX_GROUPS):
            group = row.groups[g]
            if not group:
                break
            i = 0
            while group[i].name is not None:
                self.fields.append(Field(row, group[i], row.base[g]))
                i += 1
        self.by_name = {f.name: f for f in self.fields}
        self.by_option = {f.option: f for f in self.fields if not f.position}
        self.signature = self._signature()

    def positionals(self):
        return sorted((f for f in self.fields if f.position), key=lambda f: f.position)

    def returns(self):
        return "Table | str" if self.text_option else "Table"

    def _signature(self):
        P = inspect.Parameter
        params = [P(f.name, P.POSITIONAL_OR_KEYWORD, default=None, annotation=f.annotation())
                  for f in self.positionals()]
        # A parameter left out (None, or False for a flag) takes the program's default, which the docstring
        # states: giving that value is not always the same as leaving it out (an efficiency given by hand
        # sets the cost terms aside; a sampling setting given needs a matrix pair), so the signature says None.
        params += [P(f.name, P.KEYWORD_ONLY, default=False if f.kind == FLAG else None, annotation=f.annotation())
                   for f in self.fields if not f.position]
        if self.has_data:
            params.append(P("data", P.KEYWORD_ONLY, default=None, annotation="str | os.PathLike[str] | None"))
        return inspect.Signature(params, return_annotation=self.returns())

    def run(self, args, kwargs):
        bound = self.signature.bind(*args, **kwargs)  # a name the command does not have: TypeError here
        req = _Request(self.row)
        try:
            for name, value in bound.arguments.items():
                if name == "data":
                    continue
                req.set(self.by_name[name], value)
            if self.has_data:
                data = bound.arguments.get("data")
                if data is None and not os.environ.get("SPECDEC_DATA"):
                    data = _lib.default_data
                if data is not None:
                    req.set_text(self.row.data_dir, data)
            return self._call(req)
        finally:
            req.close()

    def _call(self, req):
        table, text, err = ctypes.c_void_p(), ctypes.c_void_p(), _lib.new_error()
        st = _lib.call(_lib.lib.sd_command_run, ctypes.byref(self.row), ctypes.cast(req.buf, ctypes.c_void_p),
                       ctypes.byref(table), ctypes.byref(text), ctypes.byref(err))
        try:
            if st not in (0, _ECHECK):
                _lib.check(st, err)
            if text:
                return ctypes.string_at(text).decode()
            return Table._from_c(table, passed=st == 0)
        finally:
            if table:
                _lib.lib.sd_table_free(table)
            if text:
                _lib.lib.sd_command_free_text(text)

    def doc(self):
        lines = ["%s%s" % (self.name, str(self.signature).split(" ->")[0]), "",
                 self.summary[0].upper() + self.summary[1:] + ".", "",
                 "The library's sd_cmd_%s_table (cmd_%s.h); the program's ``specdec %s`` (man specdec)." % (
                     self.name, self.name, self.row.usage.decode()), "",
                 "Parameters", "----------"]
        for f in self.positionals() + [f for f in self.fields if not f.position]:
            where = f.option if not f.position else f.metavar or f.option
            lines += ["%s : %s" % (f.name, f.doc_type()), "    %s (%s)" % (f.help, where)]
        if self.has_data:
            lines += ["data : str or os.PathLike, optional",
                      "    The folder of data files (presets); default $SPECDEC_DATA, the installed data, or the "
                      "checkout's data/ (--data)"]
        lines += ["", "Returns", "-------", self.returns(),
                  "    The command's table%s." % (
                      "; a str in another program's syntax when %s is given" % self.by_option[self.text_option].name
                      if self.text_option else " (``passed`` False when a check failed)"),
                  "", "Raises", "------", "specdec.InvalidInput",
                  "    A value outside its domain, a bad or missing file, options that do not go together (the",
                  "    library's one line, naming the option as the program does).",
                  "specdec.OutOfMemory, specdec.FileError, specdec.ComputationFailed",
                  "    The library ran out of memory, could not write a file, or a numerical routine failed.",
                  "TypeError",
                  "    A keyword the command does not have, or a value of the wrong type (specdec.BadType)."]
        return "\n".join(lines) + "\n"

    def function(self):
        cmd = self

        def f(*args, **kwargs):
            return cmd.run(args, kwargs)

        f.__name__ = f.__qualname__ = self.name
        f.__module__ = "specdec.commands"
        f.__signature__ = self.signature
        f.__doc__ = self.doc()
        f._specdec_command = self
        return f


def all_commands():
    """Every command of the library, in its order (commands.h)."""
    out = []
    for i in range(1000):
        row = _lib.lib.sd_commands_at(i)
        if not row:
            break
        out.append(Command(row.contents))
    return out


def run(commands, command, argv, data, options):
    """A command from argv-level words: "--name value", "--name=value", flags, positionals."""
    cmd = commands.get(command)
    if cmd is None:
        raise _lib.InvalidInput("unknown command '%s'; known: %s" % (command, ", ".join(commands)))
    pos, kw, i = [], {}, 0
    while i < len(argv):
        a = argv[i]
        if isinstance(a, str) and a.startswith("--") and len(a) > 2:
            opt, eq, value = a.partition("=")
            f = cmd.by_option.get(opt)
            if f is None:
                raise _lib.InvalidInput("%s: unknown option '%s'; see 'specdec %s --help'" % (command, opt, command))
            if f.kind == FLAG and eq:
                raise _lib.InvalidInput("%s takes no value" % opt)
            if f.kind != FLAG and not eq:
                following = argv[i + 1] if i + 1 < len(argv) else None
                if following is None or (isinstance(following, str) and following.startswith("--")):
                    raise _lib.InvalidInput("%s needs a value" % opt)
                i += 1
                value = following
            if f.name in kw:
                raise _lib.InvalidInput("%s given twice; give several values as one list, e.g. %s 1,2,3" % (opt, opt))
            kw[f.name] = True if f.kind == FLAG else value
        else:
            if len(pos) >= len(cmd.positionals()):
                raise _lib.InvalidInput("%s: unexpected argument '%s'; see 'specdec %s --help'" % (command, a, command))
            pos.append(a)
        i += 1
    for name in options:  # a keyword for what the words already gave is given twice, as on the command line
        if name in kw or any(f.name == name for f in cmd.positionals()[:len(pos)]):
            raise _lib.InvalidInput("%s given twice (in argv and as a keyword)" % name)
    kw.update(options)
    if data is not None and cmd.has_data:
        kw["data"] = data
    return cmd.run(pos, kw)
