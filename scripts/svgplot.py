"""A line plot with error bands as a hand-written SVG file (no plotting
library needed): used by scripts/m25_kl.py and scripts/mixdata_modes.py.

    svgplot.lines(path, series, title=..., xlabel=..., ylabel=...,
                  logy=True)

series: a list of (label, xs, ys, lo, hi) with lo/hi the band edges (or
None). Colours follow the order of the series.
"""
import math

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
           "#8c564b", "#7f7f7f")


def _ticks(lo, hi, n=5):
    span = hi - lo
    step = 10 ** math.floor(math.log10(span / n))
    for m in (1, 2, 5, 10):
        if span / (step * m) <= n:
            step *= m
            break
    t = math.ceil(lo / step) * step
    out = []
    while t <= hi + 1e-12 * span:
        out.append(t)
        t += step
    return out


def _fmt(v):
    if v == 0:
        return "0"
    if abs(v) >= 1000:
        return "%gk" % (v / 1000)
    return "%g" % float("%.3g" % v)


def lines(path, series, title="", xlabel="", ylabel="", logy=False,
          width=640, height=420):
    ml, mr, mt, mb = 70, 170, 40, 50
    pw, ph = width - ml - mr, height - mt - mb
    xs = [x for s in series for x in s[1]]
    ys = [y for s in series
          for y in list(s[2]) + [v for b in s[3:5] if b is not None
                                 for v in b]
          if y == y and (y > 0 or not logy)]
    x0, x1 = min(xs), max(xs)
    f = (lambda v: math.log10(v)) if logy else (lambda v: v)
    y0, y1 = f(min(ys)), f(max(ys))
    if logy:
        y0, y1 = math.floor(y0 * 2) / 2, math.ceil(y1 * 2) / 2
    else:
        pad = 0.05 * (y1 - y0 or 1)
        y0, y1 = y0 - pad, y1 + pad

    def X(v):
        return ml + (v - x0) / (x1 - x0) * pw

    def Y(v):
        v = f(max(v, 10 ** y0)) if logy else v
        return mt + (1 - (v - y0) / (y1 - y0)) * ph

    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
         'font-family="sans-serif" font-size="12">' % (width, height),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="%d" y="22" font-size="14">%s</text>' % (ml, title)]
    o.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" '
             'stroke="black"/>' % (ml, mt, pw, ph))
    for t in _ticks(x0, x1):
        o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>'
                 % (X(t), mt, X(t), mt + ph))
        o.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                 % (X(t), mt + ph + 16, _fmt(t)))
    if logy:
        yt = []
        for e in range(int(math.floor(y0)), int(math.ceil(y1)) + 1):
            for m in (1, 2, 5):
                v = m * 10.0 ** e
                if y0 <= math.log10(v) <= y1:
                    yt.append(v)
    else:
        yt = _ticks(y0, y1)
    for t in yt:
        o.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>'
                 % (ml, Y(t), ml + pw, Y(t)))
        o.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>'
                 % (ml - 5, Y(t) + 4, _fmt(t)))
    o.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
             % (ml + pw / 2, height - 12, xlabel))
    o.append('<text transform="translate(16,%.1f) rotate(-90)" '
             'text-anchor="middle">%s</text>' % (mt + ph / 2, ylabel))
    for i, (label, sx, sy, lo, hi) in enumerate(series):
        c = COLOURS[i % len(COLOURS)]
        if lo is not None and hi is not None:
            pts = ["%.1f,%.1f" % (X(a), Y(b)) for a, b in zip(sx, hi)]
            pts += ["%.1f,%.1f" % (X(a), Y(b))
                    for a, b in reversed(list(zip(sx, lo)))]
            o.append('<polygon points="%s" fill="%s" fill-opacity="0.18" '
                     'stroke="none"/>' % (" ".join(pts), c))
        pts = ["%.1f,%.1f" % (X(a), Y(b)) for a, b in zip(sx, sy)]
        dash = ' stroke-dasharray="5,4"' if label.startswith("(") else ""
        o.append('<polyline points="%s" fill="none" stroke="%s" '
                 'stroke-width="2"%s/>' % (" ".join(pts), c, dash))
        ly = mt + 14 + 20 * i
        o.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" '
                 'stroke-width="2"%s/>' % (ml + pw + 10, ly, ml + pw + 34,
                                           ly, c, dash))
        o.append('<text x="%d" y="%d">%s</text>'
                 % (ml + pw + 40, ly + 4, label))
    o.append("</svg>")
    with open(path, "w") as fh:
        fh.write("\n".join(o) + "\n")
