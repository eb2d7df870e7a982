#!/bin/sh
# python.sh -- the Python package (python/): pytest against the program from the build tree
# and from another folder; `pip install ./python` offline into a fresh venv; and an installed
# copy (make install DESTDIR) imported from /.
#
# usage: sh tests/python.sh BUILD   (PYTHON: the system's python3 with NumPy and pytest)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$ROOT/${1:-build}" && pwd)
PYTHON=${PYTHON:-python3}
MAKE=${MAKE:-make}
SONAME=libspecdec.so.$(sed -n "s/^#define SPECDEC_VERSION_MAJOR //p" "$ROOT/include/specdec/version.h")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

# 1. pytest, the library and program of this build, run from / (nothing found by the folder it runs in)
if (cd / && PYTHONDONTWRITEBYTECODE=1 SPECDEC_LIBRARY="$BUILD/$SONAME" SPECDEC_DATA="$ROOT/data" \
    SPECDEC_PROGRAM="$BUILD/specdec" PYTHONPATH="$ROOT/python" "$PYTHON" -m pytest -q -p no:cacheprovider \
    "$ROOT/python/tests" > "$T/pytest" 2>&1); then
    ok
else
    bad "pytest: $(tail -n 15 "$T/pytest")"
fi
tail -n 1 "$T/pytest"

# 2. the build tree found with nothing set (the checkout's build/ and data/)
if [ "$BUILD" = "$ROOT/build" ]; then
    got=$(cd / && env -u SPECDEC_LIBRARY -u SPECDEC_DATA PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$ROOT/python" "$PYTHON" -c '
import specdec
t = specdec.roofline(target="llama-3.1-8b", draft="llama-3.2-1b", hardware="h100-sxm", alpha=0.8)
print(specdec.library_path, int(t["gamma_opt"][0]))' 2>&1)
    case $got in "$ROOT/build/$SONAME "[0-9]*) ok ;; *) bad "the build tree's library: $got" ;; esac
fi

# 3. pip install ./python, offline, into a fresh venv that sees the system's NumPy
# (from a copy of python/: setuptools builds in the source folder, which stays clean)
cp -R "$ROOT/python" "$T/src"
rm -rf "$T/src/build" "$T/src"/*.egg-info
if "$PYTHON" -m venv --system-site-packages --without-pip "$T/venv" > "$T/venv.log" 2>&1 &&
    (cd "$T" && "$PYTHON" -m pip --python "$T/venv/bin/python" install --no-build-isolation --no-index -q \
        ./src > "$T/pip.log" 2>&1); then
    got=$(cd / && SPECDEC_LIBRARY="$BUILD/$SONAME" VIRTUAL="$T/venv" "$T/venv/bin/python" -c '
import specdec, os
print(os.path.dirname(specdec.__file__).startswith(os.environ["VIRTUAL"]), specdec.__version__,
      specdec.expected_tokens(0.8, 4))' 2>&1)
    want=$(sed -n 's/^version = "\(.*\)"/\1/p' "$ROOT/python/pyproject.toml")
    case $got in "True $want 3.3616"*) ok ;; *) bad "pip install ./python: '$got' (pyproject version $want)" ;; esac
else
    bad "pip install ./python: $(tail -n 5 "$T/venv.log" "$T/pip.log" 2>/dev/null)"
fi

# 4. an installed copy: make install into a scratch DESTDIR, then import it from / with the staged
# library and data (the copy names the LIBDIR it was installed for)
stage=$T/stage
if $MAKE --no-print-directory -C "$ROOT" BUILD="${BUILD#"$ROOT"/}" DESTDIR="$stage" PREFIX=/usr/local PYTHON="$PYTHON" \
    install > "$T/install.log" 2>&1; then
    site=$(cd "$stage" && ls -d usr/local/lib/python*/dist-packages | head -n 1)
    got=$(cd / && PYTHONPATH="$stage/$site" SPECDEC_LIBRARY="$stage/usr/local/lib/$SONAME" \
        SPECDEC_DATA="$stage/usr/local/share/specdec" "$PYTHON" -c '
import specdec, specdec._install as i
t = specdec.serving(target="llama-3.1-8b", draft="llama-3.2-1b", hardware="h100-sxm", alpha=0.8, rate=1, gamma=3,
                    method="analytic")
print(specdec.__file__.startswith("'"$stage"'"), i.LIBDIR, t["method"][0], len(t.columns))' 2>&1)
    case $got in "True /usr/local/lib analytic "[0-9]*) ok ;; *) bad "the installed copy: $got" ;; esac
    # found through the LIBDIR it records, with nothing set: the staged copy told its staged folder
    printf 'LIBDIR = %s\n' "'$stage/usr/local/lib'" > "$stage/$site/specdec/_install.py"
    got=$(cd / && env -u SPECDEC_LIBRARY PYTHONPATH="$stage/$site" SPECDEC_DATA="$stage/usr/local/share/specdec" \
        "$PYTHON" -c 'import specdec; print(specdec.library_path)' 2>&1)
    [ "$got" = "$stage/usr/local/lib/$SONAME" ] && ok || bad "the installed LIBDIR: $got"
    # and a pip-installed copy with nothing recorded nor set: ld.so's search (here its failure, named)
    got=$(cd / && env -u SPECDEC_LIBRARY LD_LIBRARY_PATH=/nonexistent "$T/venv/bin/python" -c 'import specdec' 2>&1)
    case $got in *"the system's library path: $SONAME ("*) ok ;; *) bad "the system's library path: $got" ;; esac
else
    bad "make install DESTDIR: $(tail -n 5 "$T/install.log")"
fi

# 5. the type stubs: a fresh run of specdec._stub equals the shipped __init__.pyi and commands.pyi;
# pyright (strict) resolves every public name and checks a small typed program; a name the stubs
# lack fails it (the control)
mkdir -p "$T/stubs"
if (cd / && SPECDEC_LIBRARY="$BUILD/$SONAME" PYTHONPATH="$ROOT/python" PYTHONDONTWRITEBYTECODE=1 "$PYTHON" -m specdec._stub \
    "$T/stubs") && cmp -s "$T/stubs/__init__.pyi" "$ROOT/python/specdec/__init__.pyi" &&
    cmp -s "$T/stubs/commands.pyi" "$ROOT/python/specdec/commands.pyi"; then
    ok
else
    bad "the stubs are not what python3 -m specdec._stub writes now: run it (PYTHONPATH=python) and commit them"
fi
PYRIGHT=$BUILD/pyright/node_modules/.bin/pyright
if [ ! -x "$PYRIGHT" ]; then
    npm install --prefix "$BUILD/pyright" --no-audit --no-fund --silent pyright@1.1.414 > "$T/npm.log" 2>&1 ||
        bad "npm install pyright: $(tail -n 3 "$T/npm.log")"
fi
SPECDEC_LIBRARY="$BUILD/$SONAME" PYTHONPATH="$ROOT/python" PYTHONDONTWRITEBYTECODE=1 "$PYTHON" -c '
import specdec
from specdec import commands
print("import specdec\nfrom specdec import commands\n")
for i, n in enumerate(specdec.__all__):
    print("top_%d = specdec.%s" % (i, n))
for i, n in enumerate(commands.__all__):
    print("command_%d = commands.%s" % (i, n))' > "$T/names.py"
cp "$ROOT/python/tests/typed_example.py" "$T/typed_example.py"
printf '{ "extraPaths": ["%s"], "typeCheckingMode": "strict" }\n' "$ROOT/python" > "$T/pyrightconfig.json"
if [ -x "$PYRIGHT" ] && (cd "$T" && "$PYRIGHT" --pythonpath "$PYTHON" names.py typed_example.py > "$T/pyright.log" 2>&1); then
    ok
else
    bad "pyright: $(tail -n 15 "$T/pyright.log" 2>/dev/null)"
fi
printf 'import specdec\nplanted = specdec.no_such_name\n' > "$T/control.py"
if [ -x "$PYRIGHT" ] && ! (cd "$T" && "$PYRIGHT" --pythonpath "$PYTHON" control.py > "$T/control.log" 2>&1); then
    ok
else
    bad "pyright passed a name the stubs do not have (the control)"
fi

echo "python: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
