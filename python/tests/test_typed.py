"""The typed surface: signatures and docstrings made from the library's rows, errors by kind,
argv-level run(), commands in threads, and an import that changes nothing process-wide.

Run by `make test-python` (tests/python.sh) with the build tree's library and program.
"""

import ctypes
import inspect
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import specdec
from specdec import _lib, commands

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, os.pardir, os.pardir))
PROGRAM = os.environ.get("SPECDEC_PROGRAM", os.path.join(ROOT, "build", "specdec"))

PAIR = dict(target="llama-3.1-8b", draft="llama-3.2-1b", hardware="h100-sxm")


def program_tsv(*args):
    return subprocess.run([PROGRAM, *args, "--format", "tsv"], check=True, capture_output=True, text=True).stdout


def as_tsv(t):
    """A Table printed as the program's TSV prints it (17 significant digits, text as it is)."""
    def cell(x):
        if isinstance(x, str):
            return x
        if isinstance(x, (int, np.integer)):
            return str(int(x))
        return "inf" if x == np.inf else "-inf" if x == -np.inf else "%.17g" % x
    rows = ["\t".join(t.columns)] + ["\t".join(cell(t[c][r]) for c in t.columns) for r in range(len(t))]
    return "\n".join(rows) + "\n"


def test_every_command_has_its_rows_as_parameters():
    assert set(commands.__all__) == set(commands.COMMANDS)
    for name in commands.__all__:
        f = getattr(commands, name)
        sig = inspect.signature(f)
        kinds = {p.kind for p in sig.parameters.values()}
        assert inspect.Parameter.VAR_KEYWORD not in kinds and inspect.Parameter.VAR_POSITIONAL not in kinds, name
        fields = {fl.name for fl in commands.COMMANDS[name].fields}
        assert fields <= set(sig.parameters), name
        assert sig.return_annotation in ("Table", "Table | str"), name
        for section in ("Parameters\n----------", "Returns\n-------", "Raises\n------"):
            assert section in f.__doc__, (name, section)
        if name not in ("optimal", "metrics"):  # the closed forms keep those names at the top
            assert getattr(specdec, name) is f


def test_public_functions_have_real_signatures():
    for name in specdec.__all__:
        obj = getattr(specdec, name)
        if inspect.isfunction(obj) and name != "run":
            params = inspect.signature(obj).parameters.values()
            assert params and all(p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) for p in params), name
    sig = inspect.signature(specdec.roofline)
    # a parameter left out takes the program's default, which the docstring states; the signature says None
    assert all(p.default is None for p in sig.parameters.values() if p.annotation != "bool")
    assert sig.parameters["schedule"].default is False
    assert "context : number, sequence of numbers or str, optional\n    context length S in tokens (default 4096)" \
        in specdec.roofline.__doc__
    assert "(default: the calibration's; without one 0.5) (--eta-flops)" in specdec.roofline.__doc__
    assert sig.parameters["export"].annotation == "Literal['vllm', 'sglang', 'trtllm'] | None"
    assert "from_" in inspect.signature(specdec.speedup).parameters  # --from: a keyword of Python


def test_a_typo_fails_in_python_before_the_library():
    with pytest.raises(TypeError, match="alpah"):
        specdec.speedup(alpah=0.8, cost=0.1)
    with pytest.raises(TypeError):
        specdec.roofline("llama-3.1-8b")  # options are keywords
    with pytest.raises(specdec.BadType, match=r"^--schedule: a flag takes True or False"):
        specdec.roofline(schedule=1, alpha=0.8, **PAIR)
    with pytest.raises(specdec.InvalidInput, match=r"^--export: unknown value 'tgi'; expected one of vllm, sglang"):
        specdec.roofline(schedule=True, export="tgi", alpha=0.8, **PAIR)
    with pytest.raises(specdec.BadType, match=r"^--alpha: expected numbers"):
        specdec.speedup(alpha="0.8x".encode(), cost=0.1)
    with pytest.raises(specdec.InvalidInput, match=r"^--alpha: '0\.8x' is not a number"):
        specdec.speedup(alpha="0.8x", cost=0.1)


def test_leaving_out_is_the_signatures_default():
    """Calling with every signature default is calling with nothing: the defaults are the program's."""
    for name, kw in (("roofline", dict(alpha=0.8, batch=1, **PAIR)),
                     ("simulate", dict(vocab=100, alpha=0.7, tokens=3000, threads=1)),
                     ("overlap", dict(p_file=os.path.join(ROOT, "data", "four-token-p.txt"),
                                      q_file=os.path.join(ROOT, "data", "four-token-q.txt")))):
        f = getattr(commands, name)
        given = {p.name: p.default for p in inspect.signature(f).parameters.values()
                 if p.kind == p.KEYWORD_ONLY and p.name not in kw}
        assert as_tsv(f(**kw, **given)) == as_tsv(f(**kw)), name
    # the control: the program's default given by hand is not the same call
    assert as_tsv(specdec.roofline(eta_flops=0.5, alpha=0.8, batch=1, **PAIR)) != \
        as_tsv(specdec.roofline(alpha=0.8, batch=1, **PAIR))


def test_values_as_numbers_sequences_and_the_programs_text():
    a = specdec.speedup(alpha=np.array([0.6, 0.8]), cost=0.05, gamma=range(1, 4))
    b = specdec.speedup(alpha="0.6,0.8", cost="0.05", gamma="1:3")
    assert as_tsv(a) == as_tsv(b) == program_tsv("speedup", "--alpha", "0.6,0.8", "--cost", "0.05", "--gamma", "1:3")
    with pytest.raises(specdec.InvalidInput, match=r"^--gamma: an empty list"):
        specdec.speedup(alpha=0.8, cost=0.05, gamma=[])


def test_run_takes_the_programs_words():
    words = ["--target", "llama-3.1-8b", "--draft=llama-3.2-1b", "--hardware", "h100-sxm", "--alpha", "0.8",
             "--batch", "1,64", "--tp", "1"]
    t = specdec.run("roofline", *words)
    assert as_tsv(t) == program_tsv("roofline", *words)
    assert as_tsv(specdec.run("roofline", "--target", "llama-3.1-8b", alpha=0.8, batch=[1, 64], draft="llama-3.2-1b",
                              hardware="h100-sxm")) == as_tsv(t)
    text = specdec.run("roofline", *words, "--schedule", "--export", "vllm")
    assert isinstance(text, str) and text == subprocess.run(
        [PROGRAM, "roofline", *words, "--schedule", "--export", "vllm"], capture_output=True, text=True).stdout
    with pytest.raises(specdec.InvalidInput, match=r"^roofline: unknown option '--alfa'"):
        specdec.run("roofline", "--alfa", "0.8")
    with pytest.raises(specdec.InvalidInput, match=r"^--alpha needs a value$"):
        specdec.run("roofline", "--alpha")
    with pytest.raises(specdec.InvalidInput, match=r"^--schedule takes no value$"):
        specdec.run("roofline", "--schedule=yes")
    with pytest.raises(specdec.InvalidInput, match=r"^unknown command 'frob'"):
        specdec.run("frob")


@pytest.mark.parametrize("words", [["--alpha", "0.5", "--alpha", "0.6"], ["--alpha", "--batch", "4"],
                                   ["extra"], ["--schedule", "--schedule"]])
def test_run_refuses_what_the_program_refuses(words):
    """The program's own message for each misuse; the control: the words around the misuse run in both."""
    base = ["--target", "llama-3.1-8b", "--draft", "llama-3.2-1b", "--hardware", "h100-sxm"]
    r = subprocess.run([PROGRAM, "roofline", *base, *words], capture_output=True, text=True)
    assert r.returncode == 2 and r.stdout == ""
    with pytest.raises(specdec.InvalidInput) as e:
        specdec.run("roofline", *base, *words)
    assert "specdec: " + str(e.value) == r.stderr.strip()
    assert as_tsv(specdec.run("roofline", *base, "--alpha", "0.8")) == program_tsv("roofline", *base, "--alpha", "0.8")


def test_run_refuses_a_keyword_for_a_word_given():
    with pytest.raises(specdec.InvalidInput, match=r"^alpha given twice"):
        specdec.run("roofline", "--target", "llama-3.1-8b", "--alpha", "0.5", alpha=0.6)
    with pytest.raises(specdec.InvalidInput, match=r"^file given twice"):
        specdec.run("fit", "counters.prom", file="other.prom")


def test_errors_by_kind():
    assert issubclass(specdec.InvalidInput, ValueError) and issubclass(specdec.OutOfMemory, MemoryError)
    assert issubclass(specdec.FileError, OSError) and issubclass(specdec.BadType, TypeError)
    assert issubclass(specdec.ComputationFailed, RuntimeError)
    for status, kind in ((1, specdec.InvalidInput), (2, specdec.FileError), (3, specdec.OutOfMemory),
                         (4, specdec.ComputationFailed)):
        err = _lib.new_error()
        err.msg = b"what: went wrong"
        with pytest.raises(kind, match="^what: went wrong$"):
            _lib.check(status, err)
    fixture = os.path.join(ROOT, "tests", "fixtures", "step-times-h100.tsv")
    with pytest.raises(specdec.FileError, match=r"^--save-calibration: cannot write '/nonexistent/fits\.tsv'"):
        specdec.roofline(calibrate=fixture, save_calibration="/nonexistent/fits.tsv")


def test_commands_run_in_threads():
    jobs = [dict(alpha=a, batch=[1, 8, 64], **PAIR) for a in (0.5, 0.6, 0.7, 0.8, 0.9)] * 3
    alone = [as_tsv(specdec.roofline(**j)) for j in jobs]
    with ThreadPoolExecutor(6) as ex:
        together = list(ex.map(lambda j: as_tsv(specdec.roofline(**j)), jobs))
    assert together == alone
    assert len(set(alone)) == 5  # the five alphas differ: the comparison can fail


def test_import_changes_nothing_process_wide():
    code = """
import ctypes, sys
gsl = ctypes.CDLL(sys.argv[1])
gsl.gsl_set_error_handler_off.restype = ctypes.c_void_p
gsl.gsl_set_error_handler.restype = ctypes.c_void_p
gsl.gsl_set_error_handler.argtypes = [ctypes.c_void_p]
import specdec
before = gsl.gsl_set_error_handler(None)   # the handler import left: None is GSL's default
specdec.roofline(target="llama-3.1-8b", draft="llama-3.2-1b", hardware="h100-sxm", alpha=0.8)
after = gsl.gsl_set_error_handler(None)    # and after a call
print(before, after)
"""
    r = subprocess.run([sys.executable, "-c", code, specdec.library_path], capture_output=True, text=True,
                       env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["None", "None"]
    # the control: a handler set off by hand is seen as set
    off = _lib.lib.gsl_set_error_handler_off()
    try:
        assert _lib.lib.gsl_set_error_handler(None) is not None
    finally:
        _lib.lib.gsl_set_error_handler(off)
