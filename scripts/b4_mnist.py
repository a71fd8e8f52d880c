#!/usr/bin/python3
"""Deng 2021, Sec. 6.4.1 (Fig. 6.2a): the training energy of ICSGLD on
MNIST digits 0-4 climbs back up after it has reached low energy, while
SGD and SGLD descend steadily.

usage: nice /usr/bin/python3 scripts/b4_mnist.py [--replex build/replex]
           [--config yaml/b4_mnist_icsgld.yaml] [--out runs/b4_mnist]
           [--threads 2] [--iterations N] [--window 16]
           [--only icsgld,sgd,sgld] [--set KEY=VALUE ...]
           [--icsgld-set KEY=VALUE ...] [--svg FILE] [--check] [--no-run]

Runs the file three times (`replex run FILE -o OUT/NAME --set ...`, no
shell): ICSGLD as the file is; SGD and SGLD with bias.kind=none and one
chain. The training energy is chain 1's lp = -U at every kept draw
(plots/draws.csv: the minibatch estimate (N/n) sum of the batch's losses
plus the prior term, at the iteration of the draw). It is averaged over
windows of --window iterations (default 16, two epochs of the 4,101
training digits at batch 500), which takes the minibatch noise (about
5 du per draw) down to about one du. On the window means s_b:

  largest climb  max_b (s_b - min_{b' <= b} s_b') / du, the largest rise
                 above the lowest energy reached so far;
  climbs         the rises of at least 5 du: from the lowest point since
                 the last counted rise, a rise of 5 du counts once; the
                 next can count after a fall of 5 du from its peak;
  g < 0          (ICSGLD) the multiplier g = 1 + zeta tau / du (log
                 theta[J] - log theta[J-1]) of every bin in the visited
                 range, from the theta of the end of the run (summary.json
                 bias.states[0].log_theta_visited): the bins where it is
                 negative, where a chain is pushed up the energy.

Prints a Markdown table, writes it to OUT/b4_mnist.md, the window means
to OUT/b4_mnist_energy.csv and draws the figure (--svg, default
docs/figures/b4_mnist_energy.svg; hand-written SVG, no packages).
--check (for the test): exit 1 unless ICSGLD climbs >= 5 du at least
once while SGD's largest climb stays within 1 du. --no-run reads the
runs of an earlier call again (a new --window, the figure). Needs only
the standard library.
"""
import argparse
import csv
import math
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import replex_reader  # noqa: E402

BASE = {"bias.kind": "none", "tempering.n_chains": "1"}
METHODS = [
    ("sgd", "SGD", dict(BASE, **{"step.target": "sgd", "step.others": "sgd"})),
    ("sgld", "SGLD", dict(BASE)),
    ("icsgld", "ICSGLD", {}),
]
COLOURS = {"sgd": "#1f77b4", "sgld": "#2ca02c", "icsgld": "#d62728"}
CLIMB = 5.0  # a counted climb: 5 du


def run_one(args, name, sets, out):
    cmd = [args.replex, "run", args.config, "-o", out, "--force", "-q",
           "--threads", str(args.threads)]
    for k, v in sets:
        cmd += ["--set", "%s=%s" % (k, v)]
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        raise SystemExit("b4_mnist: %s: replex exited %d" %
                         (name, p.returncode))
    return time.time() - t0


def window_means(iters, u, w):
    """Means of u over iteration windows [b w, (b + 1) w), complete ones."""
    last = (max(iters) + 1) // w
    acc = {}
    for k, x in zip(iters, u):
        b = k // w
        if b < last:
            s = acc.setdefault(b, [0.0, 0])
            s[0] += x
            s[1] += 1
    bs = sorted(acc)
    return [(b * w + (w - 1) / 2.0, acc[b][0] / acc[b][1]) for b in bs]


def climbs(s, du):
    """Largest rise above the running minimum (du) and the count of rises
    of CLIMB du (hysteresis CLIMB du), with the peaks of the counted ones."""
    big, run_min = 0.0, math.inf
    for x in s:
        run_min = min(run_min, x)
        big = max(big, (x - run_min) / du)
    n, peaks, lo, hi, up = 0, [], s[0], None, False
    for i, x in enumerate(s[1:], 1):
        if not up:
            lo = min(lo, x)
            if x >= lo + CLIMB * du:
                n, up, hi = n + 1, True, x
                peaks.append(i)
        else:
            if x > hi:
                hi = x
                peaks[-1] = i
            if x <= hi - CLIMB * du:
                up, lo = False, x
    return big, n, peaks


def multipliers(summ, tau):
    """ICSGLD: (bins in the visited range, of them with g < 0, min g) from
    the final theta, or None where summary.json leaves log theta out."""
    b = summ.get("bias") or {}
    st = (b.get("states") or [{}])[0]
    lt = st.get("log_theta_visited")
    if not lt or len(lt) < 2:
        return None
    c = b["zeta"] * tau / b["bin_width"]
    g = [1.0 + c * (lt[j] - lt[j - 1]) for j in range(1, len(lt))]
    return len(g), sum(1 for x in g if x < 0), min(g)


def analyse(d, args):
    run = replex_reader.read(d)
    rows = run.read_csv(os.path.join("plots", "draws.csv"))
    iters = [int(r["iteration"]) for r in rows]
    u = [-r["lp"] for r in rows]
    du = float(args.du)
    wm = window_means(iters, u, args.window)
    s = [x for _, x in wm]
    big, n, peaks = climbs(s, du)
    summ = run.summary
    tau = float(run.config["ladder"]["tau"])
    return {"iters": iters, "u": u, "wm": wm, "big": big, "n": n,
            "peaks": peaks, "wall": summ["timing"]["wall_s"],
            "threads": summ["timing"]["threads"],
            "chains": int(run.config["tempering"]["n_chains"]),
            "K": int(summ.get("iterations", max(iters) + 1)),
            "acc": (summ.get("metrics") or {}).get("accuracy"),
            "g": multipliers(summ, tau)}


# ---- the figure: hand-written SVG ----

def fmt(v):
    return "%.1f" % v


def nice_ticks(lo, hi, n=5):
    step = 10 ** math.floor(math.log10((hi - lo) / n))
    for m in (1, 2, 5, 10):
        if (hi - lo) / (step * m) <= n:
            step *= m
            break
    t = math.ceil(lo / step) * step
    out = []
    while t <= hi + 1e-9:
        out.append(t)
        t += step
    return out


def panel(o, x0, y0, w, h, res, names, xr, yr, logy, title, raw):
    X = lambda k: x0 + (k - xr[0]) / (xr[1] - xr[0]) * w  # noqa: E731
    if logy:
        ly = (math.log10(yr[0]), math.log10(yr[1]))
        Y = lambda v: y0 + h - (math.log10(max(v, yr[0])) - ly[0]) / (  # noqa
            ly[1] - ly[0]) * h
    else:
        Y = lambda v: y0 + h - (v - yr[0]) / (yr[1] - yr[0]) * h  # noqa
    o.append('<rect x="%s" y="%s" width="%s" height="%s" fill="none" '
             'stroke="black"/>' % (x0, y0, w, h))
    o.append('<text x="%s" y="%s" text-anchor="middle" font-size="14">%s'
             '</text>' % (fmt(x0 + w / 2), y0 - 8, title))
    for t in nice_ticks(xr[0], xr[1]):
        o.append('<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="black"/>'
                 '<text x="%s" y="%s" text-anchor="middle" font-size="11">'
                 '%d</text>' % (fmt(X(t)), fmt(X(t)), y0 + h, y0 + h + 4,
                                fmt(X(t)), y0 + h + 16, t))
    yt = ([v for v in (200, 300, 500, 1000, 2000, 3000, 5000, 10000)
           if yr[0] <= v <= yr[1]] if logy else nice_ticks(yr[0], yr[1]))
    for t in yt:
        o.append('<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="#ddd"/>'
                 '<text x="%s" y="%s" text-anchor="end" font-size="11">'
                 '%d</text>' % (x0, x0 + w, fmt(Y(t)), fmt(Y(t)), x0 - 4,
                                fmt(Y(t) + 4), t))
    o.append('<text x="%s" y="%s" text-anchor="middle" font-size="12">'
             'iteration</text>' % (fmt(x0 + w / 2), y0 + h + 32))
    o.append('<text transform="translate(%s,%s) rotate(-90)" '
             'text-anchor="middle" font-size="12">training energy U '
             '(chain 1)%s</text>' % (x0 - 48, fmt(y0 + h / 2),
                                     ", log scale" if logy else ""))
    o.append('<clipPath id="c%d"><rect x="%s" y="%s" width="%s" '
             'height="%s"/></clipPath>' % (x0, x0, y0, w, h))
    for nm in names:
        r = res[nm]
        if raw:
            pts = " ".join("%s,%s" % (fmt(X(k)), fmt(Y(v)))
                           for k, v in zip(r["iters"], r["u"])
                           if xr[0] <= k <= xr[1])
            o.append('<polyline clip-path="url(#c%d)" fill="none" '
                     'stroke="%s" stroke-opacity="0.25" stroke-width="0.8" '
                     'points="%s"/>' % (x0, COLOURS[nm], pts))
        pts = " ".join("%s,%s" % (fmt(X(k)), fmt(Y(v))) for k, v in r["wm"]
                       if xr[0] <= k <= xr[1])
        o.append('<polyline clip-path="url(#c%d)" fill="none" stroke="%s" '
                 'stroke-width="2" points="%s"/>' % (x0, COLOURS[nm], pts))
        for i in r["peaks"]:
            k, v = r["wm"][i]
            if xr[0] <= k <= xr[1] and yr[0] <= v <= yr[1]:
                o.append('<circle cx="%s" cy="%s" r="3.5" fill="none" '
                         'stroke="black"/>' % (fmt(X(k)), fmt(Y(v))))


def draw(path, res, names, labels, args):
    W, H = 1000, 480
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
         'font-family="sans-serif">' % (W, H),
         '<rect width="100%" height="100%" fill="white"/>']
    K = max(res[n]["iters"][-1] for n in names) + 1
    allu = [v for n in names for v in res[n]["u"]]
    panel(o, 70, 40, 380, 300, res, names, (0, K),
          (max(100.0, 0.8 * min(allu)), 1.2 * max(allu)), True,
          "whole run: draws (faint), %d-iteration means" % args.window, True)
    k0 = K // 6
    late = [v for n in names for k, v in res[n]["wm"] if k >= k0]
    lo, hi = min(late), max(late)
    pad = 0.05 * (hi - lo)
    panel(o, 580, 40, 380, 300, res, names, (k0, K), (lo - pad, hi + pad),
          False, "after the descent: %d-iteration means" % args.window,
          False)
    x, y = 70, 392
    for n in names:
        r = res[n]
        o.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" '
                 'stroke-width="2"/><text x="%d" y="%d" font-size="12">%s: '
                 'largest climb %.1f du, %d climbs &gt;= %g du</text>'
                 % (x, x + 24, y, y, COLOURS[n], x + 30, y + 4, labels[n],
                    r["big"], r["n"], CLIMB))
        y += 18
    o.append('<circle cx="%d" cy="%d" r="3.5" fill="none" stroke="black"/>'
             '<text x="%d" y="%d" font-size="12">peak of a counted climb '
             '(du = %g)</text>' % (x + 12, y, x + 30, y + 4, args.du))
    o.append("</svg>")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(o) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--replex", default=os.environ.get(
        "RX_REPLEX", os.path.join("build", "replex")))
    ap.add_argument("--config", default=os.path.join("yaml",
                                                     "b4_mnist_icsgld.yaml"))
    ap.add_argument("--out", default=os.path.join("runs", "b4_mnist"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=0)
    ap.add_argument("--window", type=int, default=16)
    ap.add_argument("--du", type=float, default=10.0,
                    help="the bin width du the climbs are counted in")
    ap.add_argument("--only", default="icsgld,sgd,sgld")
    ap.add_argument("--set", action="append", default=[], dest="sets")
    ap.add_argument("--icsgld-set", action="append", default=[],
                    dest="isets")
    ap.add_argument("--svg", default=os.path.join("docs", "figures",
                                                  "b4_mnist_energy.svg"))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--no-run", action="store_true",
                    help="only read the runs in --out again and redraw")
    args = ap.parse_args()
    only = args.only.split(",")
    common = [tuple(s.split("=", 1)) for s in args.sets]
    if args.iterations:
        common.append(("iterations", str(args.iterations)))
    os.makedirs(args.out, exist_ok=True)
    res, labels, names = {}, {}, []
    t0 = time.time()
    for nm, label, sets in METHODS:
        if nm not in only:
            continue
        own = list(sets.items())
        if nm == "icsgld":
            own += [tuple(s.split("=", 1)) for s in args.isets]
        d = os.path.join(args.out, nm)
        if not args.no_run:
            run_one(args, nm, own + common, d)
        res[nm] = analyse(d, args)
        labels[nm] = label
        names.append(nm)
    total = time.time() - t0
    names = [n for n in ("icsgld", "sgld", "sgd") if n in names]
    lines = ["| method | chains | iterations | wall (s) | lowest U | final U "
             "| largest climb (du) | climbs >= %g du | g < 0 at the end "
             "(bins, min g) | test accuracy |" % CLIMB,
             "|---|---|---|---|---|---|---|---|---|---|"]
    for n in names:
        r = res[n]
        s = [x for _, x in r["wm"]]
        g = r["g"]
        gs = ("%d of %d, %.3g" % (g[1], g[0], g[2]) if g else
              ("(not in summary.json)" if n == "icsgld" else "-"))
        lines.append("| %s | %d | %d | %.0f | %.0f | %.0f | %.1f | %d | %s "
                     "| %s |" % (labels[n], r["chains"], r["K"], r["wall"],
                                 min(s), s[-1], r["big"], r["n"], gs,
                                 "%.3f" % r["acc"] if r["acc"] else "-"))
    lines.append("")
    lines.append("U: means over %d-iteration windows of chain 1's "
                 "minibatch energy; du = %g; %d threads; %s; %.0f s in all"
                 % (args.window, args.du, args.threads,
                    platform.processor() or platform.machine(), total))
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(args.out, "b4_mnist.md"), "w") as f:
        f.write(text + "\n")
    with open(os.path.join(args.out, "b4_mnist_energy.csv"), "w",
              newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["method", "iteration", "window_mean_U"])
        for n in names:
            for k, v in res[n]["wm"]:
                wr.writerow([n, k, "%.6g" % v])
    if args.svg and args.svg != "none":
        draw(args.svg, res, names, labels, args)
        print("figure: %s" % args.svg)
    if args.check:
        ok = True
        if "icsgld" in res and res["icsgld"]["n"] < 1:
            print("check: ICSGLD never climbs %g du" % CLIMB)
            ok = False
        if "sgd" in res and res["sgd"]["big"] > 1.0:
            print("check: SGD climbs %.2f du (> 1)" % res["sgd"]["big"])
            ok = False
        print("check: %s" % ("pass" if ok else "FAIL"))
        return 0 if ok else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
