#!/usr/bin/python3
"""Independent reference for the UCI regression protocol (Boston housing).

Not part of replex: a check of replex's data pipeline and of its splits
with a different code base (Debian's numpy and PyTorch). On each split it
fits the 13-50-1 ReLU network of the protocol, inputs and target
standardised with the training rows' statistics, and scores test RMSE and
Gaussian NLL in the target's original units (k$), as replex does:

  hmc  full-batch Hamiltonian Monte Carlo on the weights with Gibbs updates
       of a hierarchical prior (Liu and Wang 2016, the protocol's SVGD
       set-up): w ~ N(0, 1/lambda), y ~ N(f(x; w), 1/gamma), lambda and
       gamma each Gamma(1, 0.1) (shape, rate); the model average of the
       kept samples (a mixture of Gaussians).
  ens  an ensemble of 5 networks trained by Adam (lr 1e-3, batch 32, 40
       epochs, squared error, weight decay 1e-4), the noise variance of
       each from its training residuals; the equal-weight mixture.

Splits:
  --rows DIR    replex's splits: DIR/s<K>/test_rows.npy as written by
                `replex run yaml/uci_boston.yaml -o DIR/s<K> --set
                data.split=K` (the rows of the data file, 0-based).
  --uci DIR     the published split files of Hernandez-Lobato and Adams
                (2015) (DIR/index_test_<K>.txt, DIR/index_train_<K>.txt,
                DIR/data.txt), when the user has a copy.

Prints one line per split and the mean +- standard error over the splits.
"""
import argparse
import math
import os
import sys

import numpy as np
import torch


def load_csv(path):
    rows = open(path).read().strip().splitlines()[2:]  # count line, header
    a = np.array([[float(v) for v in r.split(",")] for r in rows])
    return a[:, :-1], a[:, -1]


def net(d_in, gen):
    w1 = torch.randn(d_in, 50, generator=gen, dtype=torch.float64) / math.sqrt(d_in)
    w2 = torch.randn(50, 1, generator=gen, dtype=torch.float64) / math.sqrt(50)
    return [w1, torch.zeros(50, dtype=torch.float64), w2,
            torch.zeros(1, dtype=torch.float64)]


def forward(p, x):
    return (torch.relu(x @ p[0] + p[1]) @ p[2] + p[3]).squeeze(-1)


def scores(mu, var, yte, ym, ys):
    """mu, var: (S, n) predictive means / variances (standardised)."""
    f = mu * ys + ym
    v = var * ys * ys
    y = torch.as_tensor(yte)
    rmse = float(torch.sqrt(((f.mean(0) - y) ** 2).mean()))
    ll = -0.5 * torch.log(2 * math.pi * v) - 0.5 * (y - f) ** 2 / v
    nll = float(-(torch.logsumexp(ll, 0) - math.log(f.shape[0])).mean())
    return rmse, nll


def hmc(x, y, xt, seed, iters, burn, leap=20):
    gen = torch.Generator().manual_seed(seed)
    p = net(x.shape[1], gen)
    n = x.shape[0]
    a0, b0 = 1.0, 0.1
    gamma, lam = 1.0, 1.0
    nw = sum(t.numel() for t in p)
    eps = 1e-3

    def energy(q):
        r = y - forward(q, x)
        return 0.5 * gamma * (r * r).sum() + 0.5 * lam * sum((t * t).sum() for t in q)

    def grad(q):
        q = [t.detach().requires_grad_(True) for t in q]
        u = energy(q)
        g = torch.autograd.grad(u, q)
        return float(u), [t.detach() for t in g]

    mus, vs = [], []
    acc = 0
    for it in range(iters):
        m0 = [torch.randn(t.shape, generator=gen, dtype=torch.float64) for t in p]
        u0, g = grad(p)
        q = [t.clone() for t in p]
        m = [a - 0.5 * eps * b for a, b in zip(m0, g)]
        for j in range(leap):
            q = [a + eps * b for a, b in zip(q, m)]
            u1, g = grad(q)
            if j < leap - 1:
                m = [a - eps * b for a, b in zip(m, g)]
        m = [a - 0.5 * eps * b for a, b in zip(m, g)]
        h0 = u0 + 0.5 * sum(float((t * t).sum()) for t in m0)
        h1 = u1 + 0.5 * sum(float((t * t).sum()) for t in m)
        ok = math.isfinite(h1) and math.log(
            float(torch.rand(1, generator=gen, dtype=torch.float64))) < h0 - h1
        if ok:
            p = q
            acc += 1
        if it < burn:  # step-size adaptation during burn-in only
            eps *= 1.02 if ok else 0.85
        # Gibbs: gamma | w and lambda | w from their Gamma conditionals
        r = y - forward(p, x)
        sse = float((r * r).sum())
        wsq = sum(float((t * t).sum()) for t in p)
        gamma = np.random.default_rng([seed, it, 1]).gamma(
            a0 + n / 2, 1.0 / (b0 + sse / 2))
        lam = np.random.default_rng([seed, it, 2]).gamma(
            a0 + nw / 2, 1.0 / (b0 + wsq / 2))
        if it >= burn and (it - burn) % 5 == 0:
            with torch.no_grad():
                mus.append(forward(p, xt))
                vs.append(torch.full_like(mus[-1], 1.0 / gamma))
    return torch.stack(mus), torch.stack(vs), acc / iters, eps, gamma, lam


def ens(x, y, xt, seed, members=5, epochs=40, bs=32):
    mus, vs = [], []
    for k in range(members):
        gen = torch.Generator().manual_seed(1000 * seed + k)
        p = [t.requires_grad_(True) for t in net(x.shape[1], gen)]
        opt = torch.optim.Adam(p, lr=1e-3, weight_decay=1e-4)
        n = x.shape[0]
        for e in range(epochs):
            perm = torch.randperm(n, generator=gen)
            for i in range(0, n, bs):
                b = perm[i:i + bs]
                loss = ((forward(p, x[b]) - y[b]) ** 2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        with torch.no_grad():
            v = float(((forward(p, x) - y) ** 2).mean())
            mus.append(forward(p, xt))
            vs.append(torch.full_like(mus[-1], v))
    return torch.stack(mus), torch.stack(vs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", help="replex run directories DIR/s<K>")
    ap.add_argument("--uci", help="published split files")
    ap.add_argument("--csv", default="data/uci/boston_house_prices.csv")
    ap.add_argument("--splits", type=int, default=20)
    ap.add_argument("--first", type=int, default=0, help="first split id")
    ap.add_argument("--method", default="hmc", choices=["hmc", "ens"])
    ap.add_argument("--iters", type=int, default=2000)
    ap.add_argument("--burn", type=int, default=1000)
    a = ap.parse_args()
    torch.set_num_threads(1)
    if a.uci:
        d = np.loadtxt(os.path.join(a.uci, "data.txt"))
        X, Y = d[:, :-1], d[:, -1]
    else:
        X, Y = load_csv(a.csv)
    res = []
    for k in range(a.first, a.first + a.splits):
        if a.uci:
            te = np.loadtxt(os.path.join(a.uci, f"index_test_{k}.txt"), dtype=int)
        else:
            te = np.load(os.path.join(a.rows, f"s{k}", "test_rows.npy")).ravel()
        tr = np.setdiff1d(np.arange(len(Y)), te)
        xm, xs = X[tr].mean(0), X[tr].std(0)
        xs[xs == 0] = 1
        ym, ys = Y[tr].mean(), Y[tr].std()
        x = torch.as_tensor((X[tr] - xm) / xs)
        y = torch.as_tensor((Y[tr] - ym) / ys)
        xt = torch.as_tensor((X[te] - xm) / xs)
        if a.method == "hmc":
            mu, v, acc, eps, g, lam = hmc(x, y, xt, k + 1, a.iters, a.burn)
            extra = f"acc {acc:.2f} eps {eps:.2e} noise sd {g ** -0.5:.3f} weight sd {lam ** -0.5:.3f}"
        else:
            mu, v = ens(x, y, xt, k + 1)
            extra = ""
        r, nl = scores(mu, v, Y[te], ym, ys)
        res.append((r, nl))
        print(f"split {k}: test {len(te)} RMSE {r:.3f} NLL {nl:.3f} {extra}",
              flush=True)
    r = np.array(res)
    se = r.std(0, ddof=1) / math.sqrt(len(r))
    print(f"mean over {len(r)} splits: RMSE {r[:, 0].mean():.3f} +- {se[0]:.3f}"
          f"  NLL {r[:, 1].mean():.3f} +- {se[1]:.3f}")


if __name__ == "__main__":
    sys.exit(main())
