"""Universal Scalability Law fit of throughput against concurrency (closed-model ramps).

X(N) = λ·N / (1 + σ·(N − 1) + κ·N·(N − 1)) (Gunther): σ is contention (serialised work), κ coherency (crosstalk
between workers), λ the throughput of one worker. With κ > 0 throughput peaks at N* = sqrt((1 − σ) / κ) and falls
after it. The fit minimises squared throughput error directly (not the linearised N/X form, which overweights
small N): for fixed σ, κ the best λ is closed-form, so a grid over σ ∈ [0, 1], κ ≥ 0 refined twice suffices and
needs no solver dependency.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from analytics.diagnosis.types import FloatArray


@dataclass(frozen=True)
class UslFit:
    sigma: float
    kappa: float
    lambda_rps: float  # throughput of one worker
    peak_concurrency: float | None  # N*, None when κ = 0 (no retrograde region)
    peak_rps: float | None
    r2: float

    def predict(self, n: FloatArray) -> FloatArray:
        return usl(n, self.sigma, self.kappa, self.lambda_rps)


def usl(n: FloatArray, sigma: float, kappa: float, lambda_rps: float) -> FloatArray:
    return lambda_rps * n / (1.0 + sigma * (n - 1.0) + kappa * n * (n - 1.0))


def _scan(n: FloatArray, x: FloatArray, sigmas: FloatArray, kappas: FloatArray) -> tuple[float, float, float, float]:
    s = sigmas[:, None, None]
    k = kappas[None, :, None]
    g = n[None, None, :] / (1.0 + s * (n - 1.0) + k * n * (n - 1.0))
    lam = (g * x).sum(axis=2) / (g * g).sum(axis=2)
    sse = ((lam[:, :, None] * g - x) ** 2).sum(axis=2)
    i, j = np.unravel_index(int(np.argmin(sse)), sse.shape)
    return float(sigmas[i]), float(kappas[j]), float(lam[i, j]), float(sse[i, j])


def fit_usl(concurrency: FloatArray, throughput_rps: FloatArray) -> UslFit | None:
    """Least-squares USL fit; None with fewer than 4 distinct concurrency levels (the fit would be arbitrary)."""
    n = np.asarray(concurrency, dtype=np.float64)
    x = np.asarray(throughput_rps, dtype=np.float64)
    keep = (n > 0) & np.isfinite(x) & (x >= 0)
    n, x = n[keep], x[keep]
    if np.unique(n).size < 4 or float(x.max(initial=0.0)) <= 0:
        return None
    sigmas = np.linspace(0.0, 1.0, 101)
    kappas = np.concatenate([[0.0], np.logspace(-7, 0, 120)])
    sigma, kappa, lam, sse = _scan(n, x, sigmas, kappas)
    for _ in range(2):
        ds = max(sigmas[1] - sigmas[0], 1e-6)
        sigmas = np.clip(np.linspace(sigma - ds, sigma + ds, 41), 0.0, 1.0)
        kappas = np.unique(np.clip(np.concatenate([[0.0], np.linspace(kappa * 0.7, kappa * 1.3 + 1e-9, 41)]), 0, None))
        sigma, kappa, lam, sse = _scan(n, x, sigmas, kappas)
    total = float(((x - x.mean()) ** 2).sum())
    r2 = 1.0 - sse / total if total > 0 else 0.0
    peak_n: float | None = None
    peak_x: float | None = None
    if kappa > 0 and sigma < 1:
        peak_n = math.sqrt((1.0 - sigma) / kappa)
        peak_x = float(usl(np.array([peak_n]), sigma, kappa, lam)[0])
    return UslFit(sigma=sigma, kappa=kappa, lambda_rps=lam, peak_concurrency=peak_n, peak_rps=peak_x, r2=r2)
