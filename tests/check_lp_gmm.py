#!/usr/bin/env python3
"""lp of inference.nc against the log density of the gmm target of a run
directory (argv[1]): equal up to one constant (sd of the gap < 1e-4).
Needs numpy, netCDF4 and PyYAML; exit 0 pass, 1 fail, 77 skipped."""
import sys
try:
    import numpy as np, netCDF4, yaml
except ImportError:
    sys.exit(77)
d = sys.argv[1]
cfg = yaml.safe_load(open(d + "/config.yaml"))
t = cfg["target"]
w = np.array(t["weights"], float); w /= w.sum()
mu = np.array(t["means"], float); sc = np.array(t["scales"], float)
f = netCDF4.Dataset(d + "/inference.nc")
th = np.array(f["posterior"]["theta"][0], float)
lp = np.array(f["sample_stats"]["lp"][0], float)
z = (th[:, None, :] - mu[None]) / sc[None]
a = np.log(w)[None] - 0.5 * (z * z).sum(2) - np.log(sc).sum(1)[None]
m = a.max(1)
ref = m + np.log(np.exp(a - m[:, None]).sum(1))
gap = lp - ref
print("draws %d gap mean %.4g sd %.3g" % (len(gap), gap.mean(), gap.std()))
sys.exit(0 if gap.std() < 1e-4 else 1)
