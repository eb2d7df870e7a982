"""Every command of the specdec program as a typed function returning a Table.

``specdec.commands.roofline(target=..., draft=..., hardware=..., alpha=0.8)``
runs the library's ``sd_cmd_roofline_table``: the same options, domains,
defaults and messages as ``specdec roofline`` (man specdec), with keyword
names that are the options with ``-`` written ``_`` (``from`` is
``from_``).  Lists take a number, a sequence of numbers or the program's
text (``"1:25"``, ``"0.5:0.9:0.1"``).  The functions are made at import
from the library's rows (commands.h), so their signatures and docstrings
are the library's; ``commands.pyi`` holds the same for type checkers.  The
top-level ``specdec`` module holds the same functions, except where a
closed form has the name (``optimal``, ``metrics``): ``specdec.optimal``
is the closed form over arrays, ``specdec.commands.optimal`` the command.

Commands run concurrently in threads: the library keeps no state between
calls, and ctypes releases the GIL while one runs.
"""

from . import _commands

COMMANDS = {c.name: c for c in _commands.all_commands()}
__all__ = []
for _name, _cmd in COMMANDS.items():
    globals()[_name] = _cmd.function()
    __all__.append(_name)
del _name, _cmd
