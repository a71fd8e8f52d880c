"""Read a replex run directory from Python, with the standard library only.

    import replex_reader
    run = replex_reader.read("runs/default")
    run.parameters          # the per-parameter table, one dict per row
    run.parameter("lp")     # one row: mean, sd, q5, q50, q95, mcse_mean, ...
    run.summary             # summary.json as a dict
    run.samples             # samples.npy: an NpyArray (shape, rows, columns)
    run.weights             # weights.npy (a bias's log-weights) or None
    run.config              # config.yaml as nested dicts: run.config["seed"]
    run.trace               # trace.csv as {column: [values]}

    run = replex_reader.run("my.yaml", "runs/mine", sets={"seed": 3})
                            # replex run, then read() its directory

read() tells the directory kinds apart by the .replex file replex writes
into each: a run gives a Run; a replicates directory (replicates: N) a
Replicates, whose .runs are the copies' Runs and whose .parameters is the
table over the copies; a sweep directory a Sweep, whose .runs are its
runs and .values their sweep values. Anything else, or a run that did not
finish, raises ReplexReadError saying what it is.

Arrays come as NpyArray (no numpy needed); with numpy installed,
numpy.asarray(run.samples) or run.samples.to_numpy() gives an ndarray.
Numbers are the files' own: summary.json's are the exact doubles replex
computed (null where a figure is not finite: NaN here, or +-inf where the
file says so). Python 3.8 or later.
"""

import ast
import csv
import json
import math
import os
import shutil
import struct
import subprocess
import sys
from array import array

__all__ = ["read", "read_npy", "read_config", "ReplexReadError", "Run",
           "Replicates", "Sweep", "NpyArray"]

MARKER = ".replex"
_KINDS = {"replex run directory": "run",
          "replex replicates directory": "replicates",
          "replex sweep directory": "sweep",
          "replex bench directory": "bench"}


class ReplexReadError(Exception):
    """A directory or file that is not what replex writes, or is cut short."""


# ---------------------------------------------------------------- .npy ---

_TYPECODES = {"f4": "f", "f8": "d"}


def _int_code(size, signed):
    for c in ("bhilq" if signed else "BHILQ"):
        if array(c).itemsize == size:
            return c
    return None


class NpyArray:
    """A C-order array read from a .npy file: .shape, .dtype (the file's
    descr, e.g. '<f4'), .data (a flat array.array, row-major)."""

    def __init__(self, data, shape, dtype):
        self.data = data
        self.shape = tuple(shape)
        self.dtype = dtype

    def __len__(self):
        return self.shape[0] if self.shape else 1

    @property
    def ncols(self):
        """Columns of a 2-D array (1 for a 1-D one)."""
        return self.shape[1] if len(self.shape) > 1 else 1

    def row(self, i):
        """Row i as a list."""
        c = self.ncols
        return list(self.data[i * c:(i + 1) * c])

    def column(self, j):
        """Column j (a 2-D array) as a list."""
        c = self.ncols
        return list(self.data[j::c])

    def tolist(self):
        """Nested lists, as numpy's tolist()."""
        if len(self.shape) <= 1:
            return list(self.data)
        return [self.row(i) for i in range(self.shape[0])]

    def to_numpy(self):
        """A numpy ndarray of the same shape and type (needs numpy)."""
        import numpy
        return numpy.frombuffer(self.data.tobytes(),
                                dtype=numpy.dtype(self.dtype)
                                ).reshape(self.shape)

    def __array__(self, dtype=None, copy=None):
        a = self.to_numpy()
        return a.astype(dtype) if dtype is not None else a

    def __repr__(self):
        return "NpyArray(shape=%r, dtype=%r)" % (self.shape, self.dtype)


def read_npy(path):
    """A .npy file (format 1.0 to 3.0, C order, little- or big-endian
    floats and integers) as an NpyArray."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:6] != b"\x93NUMPY" or len(raw) < 10:
        raise ReplexReadError("%s: not a .npy file" % path)
    major = raw[6]
    if major == 1:
        hlen, start = struct.unpack("<H", raw[8:10])[0], 10
    elif major in (2, 3):
        hlen, start = struct.unpack("<I", raw[8:12])[0], 12
    else:
        raise ReplexReadError("%s: .npy version %d is not read" % (path, major))
    try:
        hdr = ast.literal_eval(raw[start:start + hlen].decode("latin1"))
        descr, shape = hdr["descr"], tuple(hdr["shape"])
        fortran = hdr["fortran_order"]
    except (ValueError, SyntaxError, KeyError, TypeError):
        raise ReplexReadError("%s: malformed .npy header" % path)
    if fortran:
        raise ReplexReadError("%s: Fortran-order arrays are not read" % path)
    if not isinstance(descr, str) or len(descr) < 3:
        raise ReplexReadError("%s: dtype %r is not read" % (path, descr))
    order, kind = descr[0], descr[1:]
    code = _TYPECODES.get(kind)
    if code is None and kind[:1] in "iu" and kind[1:].isdigit():
        code = _int_code(int(kind[1:]), kind[0] == "i")
    if code is None or order not in "<>|=":
        raise ReplexReadError("%s: dtype %r is not read" % (path, descr))
    n = 1
    for s in shape:
        n *= s
    data = array(code)
    body = raw[start + hlen:]
    if len(body) < n * data.itemsize:
        raise ReplexReadError("%s: cut short: %d of %d bytes of data"
                              % (path, len(body), n * data.itemsize))
    data.frombytes(body[:n * data.itemsize])
    if (order == "<" and sys.byteorder == "big") or \
            (order == ">" and sys.byteorder == "little"):
        data.byteswap()
    return NpyArray(data, shape, descr)


# ------------------------------------------------------------ config.yaml --

class _Flow:
    """The values config.yaml holds: plain scalars, double-quoted strings,
    flow lists [..] and flow mappings {..}, nested."""

    ESC = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "n": "\n",
           "v": "\v", "f": "\f", "r": "\r", "e": "\x1b", " ": " ",
           '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0",
           "L": "\u2028", "P": "\u2029"}

    def __init__(self, text, where):
        self.s, self.i, self.where = text, 0, where

    def fail(self, what):
        raise ReplexReadError("%s: %s at column %d" % (self.where, what,
                                                      self.i + 1))

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] in " \t":
            self.i += 1

    def value(self, stop=""):
        self.ws()
        if self.i >= len(self.s):
            return None
        c = self.s[self.i]
        if c == "[":
            return self.seq()
        if c == "{":
            return self.map()
        if c == '"':
            return self.quoted()
        if c == "'":
            return self.squoted()
        j = self.i
        while self.i < len(self.s) and self.s[self.i] not in stop:
            self.i += 1
        return _scalar(self.s[j:self.i].strip())

    def seq(self):
        self.i += 1
        out = []
        while True:
            self.ws()
            if self.i < len(self.s) and self.s[self.i] == "]":
                self.i += 1
                return out
            out.append(self.value(",]"))
            self.ws()
            if self.i < len(self.s) and self.s[self.i] == ",":
                self.i += 1
            elif self.i >= len(self.s) or self.s[self.i] != "]":
                self.fail("expected ',' or ']'")

    def map(self):
        self.i += 1
        out = {}
        while True:
            self.ws()
            if self.i < len(self.s) and self.s[self.i] == "}":
                self.i += 1
                return out
            k = self.value(":,}")
            self.ws()
            if self.i >= len(self.s) or self.s[self.i] != ":":
                self.fail("expected ':'")
            self.i += 1
            out[str(k)] = self.value(",}")
            self.ws()
            if self.i < len(self.s) and self.s[self.i] == ",":
                self.i += 1
            elif self.i >= len(self.s) or self.s[self.i] != "}":
                self.fail("expected ',' or '}'")

    def quoted(self):
        self.i += 1
        out = []
        while self.i < len(self.s):
            c = self.s[self.i]
            if c == '"':
                self.i += 1
                return "".join(out)
            if c == "\\":
                e = self.s[self.i + 1:self.i + 2]
                n = {"x": 2, "u": 4, "U": 8}.get(e)
                if n:
                    out.append(chr(int(self.s[self.i + 2:self.i + 2 + n], 16)))
                    self.i += 2 + n
                    continue
                if e not in self.ESC:
                    self.fail("unknown escape \\%s" % e)
                out.append(self.ESC[e])
                self.i += 2
                continue
            out.append(c)
            self.i += 1
        self.fail("unterminated string")

    def squoted(self):
        self.i += 1
        out = []
        while self.i < len(self.s):
            c = self.s[self.i]
            if c == "'":
                if self.s[self.i + 1:self.i + 2] == "'":
                    out.append("'")
                    self.i += 2
                    continue
                self.i += 1
                return "".join(out)
            out.append(c)
            self.i += 1
        self.fail("unterminated string")


def _scalar(t):
    """A plain scalar: null, true/false, an integer, a real, else text."""
    if t in ("", "~", "null"):
        return None
    if t in ("true", "false"):
        return t == "true"
    low = t.lower()
    if low in (".inf", "inf", "+.inf", "+inf"):
        return math.inf
    if low in ("-.inf", "-inf"):
        return -math.inf
    if low in (".nan", "nan"):
        return math.nan
    try:
        return int(t)
    except ValueError:
        pass
    try:
        return float(t)
    except ValueError:
        return t


def read_config(path):
    """config.yaml as replex writes it (block mappings indented by two
    spaces; values plain, double-quoted, or flow lists and mappings) as
    nested dicts."""
    root = {}
    stack = [(-1, root)]
    with open(path, encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            body = line.rstrip("\n")
            text = body.lstrip(" ")
            if not text or text.startswith("#"):
                continue
            ind = len(body) - len(text)
            where = "%s:%d" % (path, ln)
            k = text.find(":")
            if k <= 0 or (len(text) > k + 1 and text[k + 1] != " "):
                raise ReplexReadError("%s: expected 'key: value'" % where)
            key, rest = text[:k], text[k + 1:].strip()
            while stack[-1][0] >= ind:
                stack.pop()
            parent = stack[-1][1]
            if rest == "":
                parent[key] = {}
                stack.append((ind, parent[key]))
                continue
            fl = _Flow(rest, where)
            parent[key] = fl.value()
            fl.ws()
            if fl.i < len(rest):
                fl.fail("unexpected text after the value")
    return root


# ----------------------------------------------------------------- runs ---

def _marker(d):
    try:
        with open(os.path.join(d, MARKER), encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None
    return _KINDS.get(text.split("(")[0].strip(), "unknown")


def _fix_nonfinite(obj):
    """summary.json writes a non-finite number as null with
    "key_not_finite": "nan" (or "inf", "-inf") beside it; those become
    floats, other nulls stay None."""
    if isinstance(obj, list):
        return [_fix_nonfinite(v) for v in obj]
    if not isinstance(obj, dict):
        return obj
    out = {}
    for k, v in obj.items():
        v = _fix_nonfinite(v)
        nf = obj.get(k + "_not_finite")
        if v is None and isinstance(nf, str):
            v = {"inf": math.inf, "-inf": -math.inf}.get(nf, math.nan)
        out[k] = v
    return out


def _read_summary(d):
    path = os.path.join(d, "summary.json")
    if not os.path.exists(path):
        raise ReplexReadError("%s: no summary.json: the run did not finish"
                              % d)
    with open(path, encoding="utf-8") as f:
        try:
            return json.load(f)
        except ValueError as e:
            raise ReplexReadError("%s: %s" % (path, e))


def _table_rows(summary, path):
    p = summary.get("parameters")
    if not isinstance(p, dict) or not isinstance(p.get("rows"), list):
        raise ReplexReadError('%s: no "parameters" block (written by a '
                              'replex without the per-parameter table)'
                              % path)
    rows = []
    for r in p["rows"]:
        r = _fix_nonfinite(r)
        rows.append({k: (math.nan if v is None else v) for k, v in r.items()
                     if not k.endswith("_not_finite")})
    return rows


class _Dir:
    """What run, replicates and sweep directories share."""

    kind = None

    def __init__(self, path):
        self.path = path
        self._cache = {}

    def _get(self, name, load):
        if name not in self._cache:
            self._cache[name] = load()
        return self._cache[name]

    def file(self, name):
        """The path of one of the directory's files."""
        return os.path.join(self.path, name)

    def __repr__(self):
        return "%s(%r)" % (type(self).__name__, self.path)


class _Table(_Dir):
    """A directory with a summary.json and its per-parameter table."""

    @property
    def summary(self):
        """summary.json as a dict (json.load: nulls are None)."""
        return self._get("summary", lambda: _read_summary(self.path))

    @property
    def parameters(self):
        """The per-parameter table, one dict per row: name, mean, sd, q5,
        q50, q95, mcse_mean, ess_mean, ess_batch_means, ess_bulk,
        ess_tail, rhat (NaN where a figure is not defined)."""
        return self._get("parameters", lambda: _table_rows(
            self.summary, self.file("summary.json")))

    def parameter(self, name):
        """The row of one parameter ("lp", "noise_sd",
        "theta[3]"); KeyError when the table has none."""
        for r in self.parameters:
            if r["name"] == name:
                return r
        raise KeyError(name)

    @property
    def table_info(self):
        """The table's header: chains, draws, weighted, network, rhat,
        coordinates, coordinates_listed."""
        p = self.summary.get("parameters", {})
        return {k: v for k, v in p.items() if k not in ("rows", "warnings")}

    @property
    def warnings(self):
        """The table's warnings (ESS below 100, R-hat above 1.01)."""
        return list(self.summary.get("parameters", {}).get("warnings", []))

    @property
    def converged(self):
        """The verdict on the table (summary.json "convergence"): True when
        every judged row has a bulk and a tail ESS of at least 100 per chain
        and an R-hat of at most 1.01, False otherwise, None for a summary
        written before the verdict existed."""
        c = self.summary.get("convergence")
        return None if c is None else bool(c.get("converged"))

    def read_csv(self, name="summary.csv"):
        """A CSV file of the directory as a list of dicts, numbers as
        floats (summary.csv: the table with 10 significant digits)."""
        out = []
        with open(self.file(name), newline="", encoding="utf-8") as f:
            for r in csv.DictReader(f):
                out.append({k: _num_or_text(v) for k, v in r.items()})
        return out


def _num_or_text(v):
    try:
        return float(v) if v != "" else None
    except ValueError:
        return v


class Run(_Table):
    """One run directory (replex run -o DIR)."""

    kind = "run"

    def _npy(self, name, optional=False):
        def load():
            p = self.file(name)
            if optional and not os.path.exists(p):
                return None
            if not os.path.exists(p):
                raise ReplexReadError("%s: missing" % p)
            return read_npy(p)
        return self._get(name, load)

    @property
    def samples(self):
        """samples.npy: the kept draws of the target position, (draws,
        dim) float32 (with record.all_positions every position's row,
        position-major within a draw)."""
        return self._npy("samples.npy")

    @property
    def weights(self):
        """weights.npy: the draws' log importance weights (a bias such as
        CSGLD), float64, one per row of samples; None without a bias."""
        return self._npy("weights.npy", optional=True)

    @property
    def index(self):
        """index.npy: the chain at each position, (rows, chains) int32."""
        return self._npy("index.npy")

    @property
    def config(self):
        """config.yaml (every key, defaults spelled out) as nested dicts:
        run.config["tempering"]["n_chains"]."""
        return self._get("config", lambda: read_config(
            self.file("config.yaml")))

    @property
    def trace(self):
        """trace.csv as {column: [floats]}."""
        def load():
            with open(self.file("trace.csv"), newline="",
                      encoding="utf-8") as f:
                rd = csv.reader(f)
                head = next(rd)
                cols = [[] for _ in head]
                for r in rd:
                    for c, v in zip(cols, r):
                        c.append(float(v))
            return dict(zip(head, cols))
        return self._get("trace", load)


class Replicates(_Table):
    """A replicates directory (replicates: N): .parameters is the table
    over the copies; .runs the copies themselves."""

    kind = "replicates"

    @property
    def runs(self):
        """The copies' Runs, in order (summary.json's "runs")."""
        return self._get("runs", lambda: [
            Run(os.path.join(self.path, r["dir"]))
            for r in self.summary.get("runs", [])])


class Sweep(_Dir):
    """A sweep directory (a sweep: block): .runs in order, .values their
    sweep values, .table sweep.csv."""

    kind = "sweep"

    @property
    def table(self):
        """sweep.csv: one dict per run (run, the swept keys, the figures);
        [] when the sweep was interrupted before it wrote the table."""
        def load():
            p = self.file("sweep.csv")
            if not os.path.exists(p):
                return []
            with open(p, newline="", encoding="utf-8") as f:
                return [{k: _num_or_text(v) for k, v in r.items()}
                        for r in csv.DictReader(f)]
        return self._get("table", load)

    @property
    def keys(self):
        """The swept keys (sweep.csv's columns between run and the
        figures)."""
        p = self.file("sweep.csv")
        if not os.path.exists(p):
            return []
        with open(p, newline="", encoding="utf-8") as f:
            head = next(csv.reader(f), [])
        out = []
        for h in head[1:]:
            if h == "a5_per_1000":
                break
            out.append(h)
        return out

    @property
    def values(self):
        """Each run's sweep values, {key: value}, in run order."""
        ks = self.keys
        return [{k: r[k] for k in ks} for r in self.table]

    @property
    def runs(self):
        """The runs DIR/run-001, run-002, ... that exist, in order."""
        def load():
            out, r = [], 1
            while os.path.isdir(os.path.join(self.path, "run-%03d" % r)):
                out.append(Run(os.path.join(self.path, "run-%03d" % r)))
                r += 1
            return out
        return self._get("runs", load)


def read(path):
    """The directory at path as a Run, Replicates or Sweep (by the
    .replex file replex writes into it). Nothing is read until asked for,
    but a run must have finished (summary.json present)."""
    if not os.path.exists(path):
        part = path.rstrip("/") + ".partial"
        if os.path.isdir(part):
            raise ReplexReadError("%s: no such directory; %s holds an "
                                  "interrupted run: replex run --resume %s"
                                  % (path, part, path))
        raise ReplexReadError("%s: no such directory" % path)
    if not os.path.isdir(path):
        raise ReplexReadError("%s: not a directory" % path)
    kind = _marker(path)
    if kind is None:
        raise ReplexReadError("%s: not a run directory (it has no %s file)"
                              % (path, MARKER))
    if kind == "sweep":
        return Sweep(path)
    if kind not in ("run", "replicates"):
        raise ReplexReadError("%s: a %s directory, not a run" % (path, kind))
    if not os.path.exists(os.path.join(path, "summary.json")):
        raise ReplexReadError("%s: no summary.json: the run did not finish"
                              % path)
    return Run(path) if kind == "run" else Replicates(path)


def run(config, out, sets=None, threads=None, force=False, replex=None,
        extra=()):
    """Run a configuration with the replex program and read its
    directory: `replex run CONFIG -o OUT [--set KEY=VALUE ...]
    [--threads N] [--force] -q --no-plots` (no shell: the arguments go to
    the program as they are). sets: {key path: value} (a value is passed
    as its YAML text: str() of numbers, "true"/"false" for booleans,
    lists as [a, b]); replex: the program (default: $RX_REPLEX, else
    `replex` on the PATH); extra: more arguments. Returns read(out), or
    raises ReplexReadError with replex's message and exit status (2: bad
    input, 1: the run failed)."""
    prog = replex or os.environ.get("RX_REPLEX") or shutil.which("replex")
    if not prog:
        raise ReplexReadError("replex not found: pass replex=PATH or put "
                              "it on the PATH")
    argv = [prog, "run", str(config), "-o", str(out), "-q", "--no-plots"]
    for k, v in (sets or {}).items():
        if isinstance(v, bool):
            v = "true" if v else "false"
        elif isinstance(v, (list, tuple)):
            v = "[" + ", ".join(str(x) for x in v) + "]"
        argv += ["--set", "%s=%s" % (k, v)]
    if threads is not None:
        argv += ["--threads", str(int(threads))]
    if force:
        argv.append("--force")
    argv += list(extra)
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode != 0:
        raise ReplexReadError("replex run %s: exit %d: %s" % (
            config, p.returncode, p.stderr.strip()))
    return read(str(out))
