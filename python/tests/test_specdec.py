"""The Python package against the specdec program: every result equals the program's
--format tsv output for the same inputs, bit for bit (the TSV prints 17 significant digits,
which read back as the same double); shapes, dtypes and bad input as NumPy users meet them.

Run by `make test-python` (tests/python.sh) with the build tree's library and program;
SPECDEC_PROGRAM names the program to compare against.
"""

import math
import os
import subprocess
import sys

import numpy as np
import pytest

import specdec

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, os.pardir, os.pardir))
PROGRAM = os.environ.get("SPECDEC_PROGRAM", os.path.join(ROOT, "build", "specdec"))
FIXTURES = os.path.join(ROOT, "tests", "fixtures")


def program(*args):
    """The program's --format tsv table: (columns, rows of str)."""
    out = subprocess.run([PROGRAM, *args, "--format", "tsv"], check=True, capture_output=True, text=True).stdout
    lines = out.rstrip("\n").split("\n")
    return lines[0].split("\t"), [line.split("\t") for line in lines[1:]]


def column(args, name):
    cols, rows = program(*args)
    k = cols.index(name)
    return [r[k] for r in rows]


def same_bits(x, text):
    """x (a double) is the number the program printed as text."""
    if text in ("inf", "-inf"):
        return x == float(text)
    return np.float64(x).tobytes() == np.float64(float(text)).tobytes()


# ---- the closed forms ---------------------------------------------------------------------

ALPHAS = [0.0, 0.1, 0.35, 0.5, 0.8, 0.9, 0.99, 0.999999, 1.0]
GAMMAS = [1, 2, 3, 5, 8, 13, 1000, 1000000000]


def test_speedup_columns_bit_for_bit():
    a = ",".join(repr(x) for x in ALPHAS)
    g = ",".join(str(x) for x in GAMMAS)
    cols, rows = program("speedup", "--alpha", a, "--cost", "0.05", "--mu", "0.3", "--gamma", g)
    assert len(rows) == len(ALPHAS) * len(GAMMAS)
    at = {c: i for i, c in enumerate(cols)}
    alpha = np.array([float(r[at["alpha"]]) for r in rows])
    gamma = np.array([float(r[at["gamma"]]) for r in rows])
    got = {
        "expected_tokens": specdec.expected_tokens(alpha, gamma),
        "improvement": specdec.improvement(alpha, gamma, 0.05),
        "flop_factor": specdec.flop_factor(alpha, gamma, 0.3),
        "cost_factor": specdec.cost_factor(gamma, 0.05),
    }
    for name, values in got.items():
        for x, r in zip(values, rows):
            assert same_bits(x, r[at[name]]), (name, x, r[at[name]])


def test_optimal_bit_for_bit():
    a = [0.0, 0.03, 0.5, 0.8, 0.95, 0.999, 1.0]
    for cost in (0.0, 0.02, 0.3):
        cols, rows = program("optimal", "--alpha", ",".join(repr(x) for x in a), "--cost", repr(cost))
        got = specdec.optimal(np.array(a), cost)
        for k, r in enumerate(rows):
            for name in ("gamma_opt", "improvement_opt", "expected_tokens_opt", "gamma_continuous", "ceiling"):
                assert same_bits(getattr(got, name)[k], r[cols.index(name)]), (name, a[k], cost)
        assert np.array_equal(specdec.optimal_gamma(np.array(a), cost), got.gamma_opt)
        assert got[0] is got.gamma_opt and type(got).__name__ == "Optimal"  # a named tuple, not a dict


def test_metrics_and_their_inverses_bit_for_bit():
    cols, rows = program("metrics", "--alpha", "0.3,0.7,0.9", "--gamma", "2,5")
    alpha = np.array([float(r[0]) for r in rows])
    gamma = np.array([float(r[1]) for r in rows])
    m = specdec.metrics(alpha, gamma)
    for name in ("acceptance_rate", "mean_acceptance_length", "system_efficiency"):
        for x, r in zip(getattr(m, name), rows):
            assert same_bits(x, r[cols.index(name)])
        assert np.array_equal(getattr(specdec, name)(alpha, gamma), getattr(m, name))
    cols, rows = program("metrics", "--mean-acceptance-length", "1.5,3,4.2", "--gamma", "4")
    got = specdec.alpha_from_length(np.array([1.5, 3, 4.2]), 4)
    for x, r in zip(got, rows):
        assert same_bits(x, r[cols.index("alpha")])
    cols, rows = program("metrics", "--acceptance-rate", "0.25,0.6", "--gamma", "3")
    got = specdec.alpha_from_rate(np.array([0.25, 0.6]), 3)
    for x, r in zip(got, rows):
        assert same_bits(x, r[cols.index("alpha")])


def test_pmf_and_survival_bit_for_bit():
    cols, rows = program("expect", "--alpha", "0.7", "--gamma", "6")
    n = np.array([float(r[cols.index("n")]) for r in rows])
    for name in ("pmf", "survival"):
        got = getattr(specdec, name)(0.7, 6, n)
        for x, r in zip(got, rows):
            assert same_bits(x, r[cols.index(name)])


def test_broadcasting_shapes_and_scalars():
    a = np.linspace(0, 1, 3).reshape(3, 1)
    g = np.array([[1, 2, 4, 8]])
    out = specdec.improvement(a, g, 0.1)
    assert out.shape == (3, 4) and out.dtype == np.float64
    for i in range(3):
        for j in range(4):
            assert out[i, j] == specdec.improvement(float(a[i, 0]), int(g[0, j]), 0.1)
    s = specdec.expected_tokens(0.8, 4)
    assert isinstance(s, np.float64) and np.ndim(s) == 0
    assert specdec.optimal(0.8, 0.1).gamma_opt == 6
    with pytest.raises(specdec.Error, match=r"^improvement: the shapes of alpha, gamma, cost, .* do not broadcast"):
        specdec.improvement(np.zeros(3) + 0.5, np.ones(4), 0.1)


def test_dtypes_and_non_contiguous_input():
    a64 = np.linspace(0, 1, 21)
    ref = specdec.expected_tokens(a64, 5)
    assert np.array_equal(specdec.expected_tokens(a64.astype(np.float32).astype(np.float64), 5),
                          specdec.expected_tokens(a64.astype(np.float32), 5))  # float32 read exactly
    assert np.array_equal(specdec.expected_tokens(a64, np.int32(5)), ref)
    big = np.linspace(0, 1, 41)
    view = big[::2]  # a strided view: copied once, same numbers
    assert not view.flags["C_CONTIGUOUS"]
    assert np.array_equal(specdec.expected_tokens(view, 5), ref)
    fortran = np.asfortranarray(np.outer(np.linspace(0.1, 0.9, 4), np.ones(3)))
    assert np.array_equal(specdec.expected_tokens(fortran, 3), specdec.expected_tokens(np.ascontiguousarray(fortran), 3))
    with pytest.raises(specdec.Error):
        specdec.expected_tokens(np.array(["0.5"]), 3)


def test_empty_arrays():
    out = specdec.improvement(np.array([]), 3, 0.1)
    assert out.shape == (0,)
    d = specdec.optimal(np.zeros((0, 2)), 0.1)
    assert d.gamma_opt.shape == (0, 2)


def test_bad_points_raise_the_library_message():
    with pytest.raises(specdec.Error, match=r"^alpha: 2 is outside \[0, 1\] \(point 0 of 1\)$"):
        specdec.expected_tokens(2, 4)
    with pytest.raises(specdec.Error, match=r"^alpha: nan is outside \[0, 1\] \(point 2 of 3\)$"):
        specdec.improvement(np.array([0.5, 0.6, np.nan]), 4, 0.1)
    with pytest.raises(specdec.Error, match=r"gamma: 2\.5 is not a whole number"):
        specdec.expected_tokens(0.5, 2.5)
    with pytest.raises(specdec.Error, match=r"^cost: -1 is outside"):
        specdec.optimal_gamma(0.5, -1)
    assert issubclass(specdec.InvalidInput, ValueError) and issubclass(specdec.InvalidInput, specdec.Error)
    with pytest.raises(specdec.BadType):
        specdec.expected_tokens(np.array(["0.5"]), 3)


def test_docstrings_name_the_equations():
    assert "eq. (4)" in specdec.expected_tokens.__doc__
    assert "eq. (10)" in specdec.improvement.__doc__
    assert "eq. (11)" in specdec.flop_factor.__doc__
    assert "alpha: reals in [0, 1]" in specdec.expected_tokens.__doc__


# ---- acceptance from logits ------------------------------------------------------------------


@pytest.fixture(scope="module")
def logits(tmp_path_factory):
    rng = np.random.default_rng(20261203)
    p = (rng.normal(size=(6, 300)) * 2).astype(np.float32)
    q = (p + rng.normal(size=(6, 300))).astype(np.float32)
    d = tmp_path_factory.mktemp("npy")
    np.save(d / "p.npy", p)
    np.save(d / "q.npy", q)
    return p, q, str(d / "p.npy"), str(d / "q.npy")


SETTINGS = [dict(temperature=1.0), dict(temperature=0.7, top_p=0.9), dict(temperature=0.5, top_k=20, min_p=0.05),
            dict(temperature=0.0)]


@pytest.mark.parametrize("s", SETTINGS)
def test_acceptance_per_row_bit_for_bit(logits, s):
    p, q, pf, qf = logits
    flags = []
    for k, v in s.items():
        flags += ["--" + k.replace("_", "-"), repr(v)]
    cols, rows = program("overlap", "--p-npy", pf, "--q-npy", qf, "--input", "logits", "--per-row", *flags)
    for rule in ("adjusted", "deterministic-draft", "exact-match"):
        got = specdec.acceptance(p, q, rule=rule, **s)
        k = cols.index("beta_" + rule.replace("-", "_"))
        assert len(got.beta) == len(rows)
        for x, r in zip(got.beta, rows):
            assert same_bits(x, r[k]), (rule, s)


def test_acceptance_summary_and_ranks_bit_for_bit(logits):
    p, q, pf, qf = logits
    cols, rows = program("overlap", "--p-npy", pf, "--q-npy", qf, "--input", "logits", "--temperature", "0.7")
    row = rows[[r[cols.index("rule")] for r in rows].index("adjusted")]
    got = specdec.acceptance(p, q, temperature=0.7, ranks=3, children="top-k")
    for mine, theirs in (("alpha", "alpha_hat"), ("se", "alpha_hat_se"), ("ci_low", "ci95_low"), ("ci_high", "ci95_high")):
        assert same_bits(getattr(got, mine), row[cols.index(theirs)])
    cols, rows = program("overlap", "--p-npy", pf, "--q-npy", qf, "--input", "logits", "--temperature", "0.7",
                         "--ranks", "3", "--children", "top-k")
    for r in rows:
        k = int(r[cols.index("rank")])
        assert same_bits(got.rank_acceptance[k].mean(), r[cols.index("p")])
    one = specdec.acceptance(p[2], q[2], temperature=0.7)  # 1-D: one position
    assert one.beta.shape == (1,) and one.beta[0] == got.beta[2]


def test_acceptance_probabilities_and_dtypes(logits):
    p, q, _, _ = logits
    pp = np.exp(p - p.max(axis=1, keepdims=True)).astype(np.float64)
    pp /= pp.sum(axis=1, keepdims=True)
    qq = np.exp(q - q.max(axis=1, keepdims=True)).astype(np.float64)
    qq /= qq.sum(axis=1, keepdims=True)
    b = specdec.acceptance(pp, qq, logits=False).beta
    assert np.all((b > 0) & (b <= 1))
    assert np.array_equal(specdec.acceptance(p, q).beta, specdec.acceptance(p.astype(np.float64), q).beta)
    wide = np.zeros((6, 600), dtype=np.float32)
    wide[:, ::2] = p  # a strided view: copied once
    assert np.array_equal(specdec.acceptance(wide[:, ::2], q).beta, specdec.acceptance(p, q).beta)


def test_acceptance_bad_input(logits):
    p, q, _, _ = logits
    bad = p.copy()
    bad[3, 7] = np.nan
    with pytest.raises(specdec.Error, match=r"target row 3"):
        specdec.acceptance(bad, q)
    with pytest.raises(specdec.Error, match=r"shape"):
        specdec.acceptance(p, q[:, :299])
    with pytest.raises(specdec.Error, match=r"^temperature: "):
        specdec.acceptance(p, q, temperature=-1)
    with pytest.raises(specdec.Error, match=r"rule"):
        specdec.acceptance(p, q, rule="greedy")
    with pytest.raises(specdec.Error, match=r"no rows"):
        specdec.acceptance(p[:0], q[:0])
    with pytest.raises(specdec.Error, match=r"^top_k: -1 is not a whole number"):
        specdec.acceptance(p, q, top_k=-1)
    with pytest.raises(specdec.Error, match=r"^draft_top_k: 2\.7 is not a whole number"):
        specdec.acceptance(p, q, draft_top_k=2.7)
    with pytest.raises(specdec.Error, match=r"^ranks: -1 is not a whole number in \[0, 64\]"):
        specdec.acceptance(p, q, ranks=-1)
    tiny = specdec.acceptance(p, q, temperature=1e-310).beta  # 1 / T overflows: still a distribution
    assert np.all((tiny >= 0) & (tiny <= 1)) and np.array_equal(tiny, specdec.acceptance(p, q, temperature=0).beta)


# ---- commands as tables ------------------------------------------------------------------------


def same_table(table, args):
    cols, rows = program(*args)
    assert table.columns == cols
    assert len(table) == len(rows)
    for c, name in enumerate(cols):
        col = table[name]
        for x, r in zip(col, rows):
            text = r[c]
            if isinstance(x, str):
                assert x == text, (name, x, text)
            elif isinstance(x, (int, np.integer)):
                assert str(int(x)) == text, (name, x, text)
            else:
                assert same_bits(x, text), (name, x, text)


def test_roofline_table_bit_for_bit():
    t = specdec.roofline(target="llama-3.1-70b", draft="llama-3.2-1b", hardware="h100-sxm", tp=4, alpha=0.8,
                         batch=[1, 16, 64, 256])
    same_table(t, ["roofline", "--target", "llama-3.1-70b", "--draft", "llama-3.2-1b", "--hardware", "h100-sxm",
                   "--tp", "4", "--alpha", "0.8", "--batch", "1,16,64,256"])
    assert t["gamma_opt"].dtype == np.int64 and t["target"][0] == "llama-3.1-70b"
    assert any("context 4096" in n for n in t.notes)


def test_simulate_and_serving_tables_bit_for_bit():
    t = specdec.simulate(vocab=200, alpha=0.7, gamma=[2, 4], tokens=20000, threads=1)
    same_table(t, ["simulate", "--vocab", "200", "--alpha", "0.7", "--gamma", "2,4", "--tokens", "20000",
                   "--threads", "1"])
    s = specdec.serving(target="llama-3.1-8b", draft="llama-3.2-1b", hardware="h100-sxm", alpha=0.8, rate=[1, 4],
                        gamma="0,3", requests=300, replications=2)
    same_table(s, ["serving", "--target", "llama-3.1-8b", "--draft", "llama-3.2-1b", "--hardware", "h100-sxm",
                   "--alpha", "0.8", "--rate", "1,4", "--gamma", "0,3", "--requests", "300", "--replications", "2"])
    assert s["ttft_p50"].dtype == object  # the twin's rows print "-" there


def test_fit_from_a_path_and_from_text():
    log = os.path.join(FIXTURES, "counters-vllm-v1.log")
    t = specdec.fit(log, cost=0.05)
    same_table(t, ["fit", log, "--cost", "0.05"])
    with open(log) as f:
        text = f.read()
    u = specdec.fit(text, cost=0.05)
    assert u.columns == t.columns and u.to_dict().keys() == t.to_dict().keys()
    for name in t.columns:
        if name not in ("input",):
            assert list(map(str, u[name])) == list(map(str, t[name])), name


def test_tree_and_validate():
    t = specdec.tree(tree="chain:4;kary:2,2", acceptance_rank=[0.7, 0.2], cost=0.05)
    same_table(t, ["tree", "--tree", "chain:4;kary:2,2", "--acceptance-rank", "0.7,0.2", "--cost", "0.05"])
    v = specdec.validate(only="1:3")
    assert v.passed and set(v["verdict"]) == {"pass", "caught"}  # the controls are caught


def test_command_errors():
    with pytest.raises(specdec.Error, match=r"^--alpha: 2 is outside \[0, 1\]$"):
        specdec.speedup(alpha=2, cost=0.1)
    with pytest.raises(specdec.Error, match=r"^--target: unknown model 'nope'"):
        specdec.roofline(target="nope", draft="llama-3.2-1b", hardware="h100-sxm", alpha=0.8)
    with pytest.raises(specdec.Error, match=r"/no/such/file\.log: cannot open"):
        specdec.fit("/no/such/file.log")
    with pytest.raises(TypeError, match=r"format"):  # a keyword the command does not have fails in Python
        specdec.speedup(alpha=0.5, cost=0.1, format="json")
    with pytest.raises(TypeError, match=r"alpah"):
        specdec.speedup(alpah=0.5, cost=0.1)


def test_text_output_and_table_helpers():
    text = specdec.roofline(target="llama-3.1-8b", draft="llama-3.2-1b", hardware="h100-sxm", alpha=0.8,
                            schedule=True, export="vllm")
    assert isinstance(text, str) and "num_speculative_tokens" in text
    t = specdec.speedup(alpha=0.8, cost=0.1, gamma=[1, 2])
    d = t.to_dict()
    assert list(d) == t.columns and isinstance(d["improvement"], np.ndarray)
    html = t._repr_html_()
    assert html.startswith("<table>") and "improvement" in html
    try:
        import pandas  # optional
    except ImportError:
        with pytest.raises(ImportError):
            t.to_pandas()
    else:
        df = t.to_pandas()
        assert list(df.columns) == t.columns and len(df) == 2


def test_library_not_found_names_where_it_looked(tmp_path):
    env = dict(os.environ, SPECDEC_LIBRARY=str(tmp_path / "nope.so"))
    r = subprocess.run([sys.executable, "-c", "import specdec"], env=env, capture_output=True, text=True)
    assert r.returncode != 0
    assert "cannot load libspecdec.so.3; looked at $SPECDEC_LIBRARY: %s (no such file)" % (tmp_path / "nope.so") \
        in r.stderr
    # a copy of the package away from any build tree and not installed: all three places named
    import shutil

    shutil.copytree(os.path.dirname(specdec.__file__), tmp_path / "specdec",
                    ignore=shutil.ignore_patterns("_install.py", "__pycache__"))
    env = {k: v for k, v in os.environ.items() if k != "SPECDEC_LIBRARY"}
    env["PYTHONPATH"] = str(tmp_path)
    r = subprocess.run([sys.executable, "-c", "import specdec"], env=env, capture_output=True, text=True,
                       cwd=str(tmp_path))
    assert r.returncode != 0
    assert "$SPECDEC_LIBRARY (not set); the installed LIBDIR (not set); the build tree: " in r.stderr


def test_threads_share_the_closed_forms():
    from concurrent.futures import ThreadPoolExecutor

    a = np.linspace(0, 1, 100001)
    ref = specdec.expected_tokens(a, 7)
    with ThreadPoolExecutor(4) as ex:
        outs = list(ex.map(lambda _: specdec.expected_tokens(a, 7), range(8)))
    assert all(np.array_equal(o, ref) for o in outs)
    assert math.isclose(float(ref[-1]), 8.0)


def test_the_comparison_can_fail():
    """The negative control: a cost 1e-9 apart, the program's number is not the package's."""
    cols, rows = program("speedup", "--alpha", "0.8", "--cost", "0.050000001", "--gamma", "4")
    theirs = rows[0][cols.index("improvement")]
    assert not same_bits(specdec.improvement(0.8, 4, 0.05), theirs)
    assert same_bits(specdec.improvement(0.8, 4, 0.050000001), theirs)
