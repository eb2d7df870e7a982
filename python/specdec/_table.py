"""Table: a command's result (table.h's sd_table) as named NumPy columns and notes."""

import ctypes
import html

import numpy as np

from . import _lib

_INT, _REAL, _TEXT = 0, 1, 2  # sd_cell_type


class Table:
    """The columns of a library table, each a NumPy array, and its notes.

    A column whose cells are all whole numbers is an int64 array, all reals
    (or reals and whole numbers) a float64 array, and a column holding text
    an object array of its cells as they are: str, float and int (the
    library writes "-" where a value does not apply).  ``table["gamma_opt"]`` is a column, ``table.columns`` the
    names in order, ``table.notes`` the lines the text format prints under
    the table, ``len(table)`` the rows.  ``passed`` is False only for a
    ``validate`` whose checks did not all pass (its table is complete).
    """

    def __init__(self, columns, data, notes, passed=True):
        self.columns = list(columns)
        self._data = dict(zip(self.columns, data))
        self.notes = list(notes)
        self.passed = passed

    @classmethod
    def _from_c(cls, t, passed=True):
        """A Table from the library's table t: each column in one call (a text column cell by cell)."""
        lib = _lib.lib
        ncols, nrows = lib.sd_table_ncols(t), lib.sd_table_nrows(t)
        names = [lib.sd_table_name(t, c).decode() for c in range(ncols)]
        data = []
        for c in range(ncols):
            kind = lib.sd_table_column_type(t, c)
            if kind == _INT:
                col = np.empty(nrows, dtype=np.int64)
                lib.sd_table_column_ints(t, c, col.ctypes.data_as(ctypes.POINTER(ctypes.c_longlong)))
            elif kind == _REAL:
                col = np.empty(nrows, dtype=np.float64)
                lib.sd_table_column_reals(t, c, col.ctypes.data_as(_lib._D))
            else:  # text, or text beside numbers ("-" where a value does not apply): each cell as it is
                col = np.empty(nrows, dtype=object)
                col[:] = [_value(lib.sd_table_cell(t, r, c).contents) for r in range(nrows)]
            data.append(col)
        notes = [lib.sd_table_note_at(t, i).decode() for i in range(lib.sd_table_nnotes(t))]
        return cls(names, data, notes, passed)

    def __getitem__(self, name):
        return self._data[name]

    def __contains__(self, name):
        return name in self._data

    def __len__(self):
        return len(self._data[self.columns[0]]) if self.columns else 0

    def __iter__(self):
        return iter(self.columns)

    def to_dict(self):
        """The columns as a dict of NumPy arrays, in order."""
        return {name: self._data[name] for name in self.columns}

    def to_pandas(self):
        """The table as a pandas DataFrame (pandas is optional: ImportError without it)."""
        import pandas

        df = pandas.DataFrame(self.to_dict(), columns=self.columns)
        df.attrs["notes"] = list(self.notes)
        return df

    def __repr__(self):
        return "Table(%d rows: %s)" % (len(self), ", ".join(self.columns))

    def _repr_html_(self):
        head = "".join("<th>%s</th>" % html.escape(c) for c in self.columns)
        rows = []
        for r in range(min(len(self), 200)):
            rows.append("<tr>%s</tr>" % "".join("<td>%s</td>" % html.escape(_show(self._data[c][r]))
                                                for c in self.columns))
        more = "<p>%d more rows</p>" % (len(self) - 200) if len(self) > 200 else ""
        notes = "".join("<p>%s</p>" % html.escape(n) for n in self.notes)
        return "<table><thead><tr>%s</tr></thead><tbody>%s</tbody></table>%s%s" % (head, "".join(rows), more, notes)


def _value(cell):
    if cell.type == _TEXT:
        return cell.v.s.decode()
    return cell.v.r if cell.type == _REAL else cell.v.i


def _show(x):
    return "%.6g" % x if isinstance(x, (float, np.floating)) else str(x)
