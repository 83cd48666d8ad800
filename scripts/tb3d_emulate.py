#!/usr/bin/env python3
"""tb3d_emulate.py - the index logic of the 3D CUDA engine's temporal kernel
(cuda/cuda3d_tb.cu, k_tb3) replayed in numpy, against a plain cell-by-cell
update in cpu/update3d.inc's order (no CPML; random coefficients per cell
and component, random source slots of the three kinds, a point source).

Every thread of a block is one element of a (TY, 32) array; the kernel's two
barriers per level are the points between the array statements; the
register queue (EX.. HZ per level), the shared-memory neighbours with the
tile-rim clamp, the own-column mask, the z chunks and their K-plane halo,
and the fused steps of the rest are the kernel's, line for line.  Float64,
the same operations in the same order: the result must equal the plain
update to the bit.  Not a test of the CUDA code itself (that is
tests/test_cuda.c, cuda3d/temporal_*, on a GPU): a check, runnable
anywhere, that the tiling and the queue compute what they should.

    python3 scripts/tb3d_emulate.py NX NY NZ K TY KZ STEPS
    e.g. python3 scripts/tb3d_emulate.py 45 37 13 3 16 5 7     (prints OK)

Needs numpy (Debian: python3-numpy).  The plain update is Python loops:
keep the grid small (45 x 37 x 13 takes a few seconds a step).
"""
import numpy as np, sys
rng = np.random.default_rng(1)

def ref_step(F, ce_of, ch, t, slots, point):
    ex, ey, ez, hx, hy, hz = [f.copy() for f in F]
    nz, ny, nx = ex.shape
    # H
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                if j <= ny-2 and k <= nz-2:
                    hx[k,j,i] = hx[k,j,i] - ch*((ez[k,j+1,i]-ez[k,j,i]) - (ey[k+1,j,i]-ey[k,j,i]))
                if i <= nx-2 and k <= nz-2:
                    hy[k,j,i] = hy[k,j,i] - ch*((ex[k+1,j,i]-ex[k,j,i]) - (ez[k,j,i+1]-ez[k,j,i]))
                if i <= nx-2 and j <= ny-2:
                    hz[k,j,i] = hz[k,j,i] - ch*((ey[k,j,i+1]-ey[k,j,i]) - (ex[k,j+1,i]-ex[k,j,i]))
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                jin = 1 <= j <= ny-2; kin = 1 <= k <= nz-2; iin = 1 <= i <= nx-2
                if i <= nx-2 and jin and kin:
                    ex[k,j,i] = ex[k,j,i] + ce_of[0][k,j,i]*((hz[k,j,i]-hz[k,j-1,i]) - (hy[k,j,i]-hy[k-1,j,i]))
                if iin and j <= ny-2 and kin:
                    ey[k,j,i] = ey[k,j,i] + ce_of[1][k,j,i]*((hx[k,j,i]-hx[k-1,j,i]) - (hz[k,j,i]-hz[k,j,i-1]))
                if iin and jin and k <= nz-2:
                    ez[k,j,i] = ez[k,j,i] + ce_of[2][k,j,i]*((hy[k,j,i]-hy[k,j,i-1]) - (hx[k,j,i]-hx[k,j-1,i]))
    for (k,j,i), kind, vals in slots:
        if kind != 2:
            v = vals[t]
            ez[k,j,i] = v if kind == 1 else ez[k,j,i] + v
    if point is not None:
        (k,j,i), pv = point
        ez[k,j,i] = ez[k,j,i] + pv[t]
    return [ex, ey, ez, hx, hy, hz]

def tb_launch(F, ce_of, ch, t0, slots, point, K, TY, kz):
    ex0, ey0, ez0, hx0, hy0, hz0 = F
    nz, ny, nx = ex0.shape
    out = [np.full_like(f, np.nan) for f in F]
    slotmap = {}
    for q, ((k,j,i), kind, vals) in enumerate(slots):
        slotmap[(k,j,i)] = q
    ntx = (nx + 32 - 2*K - 1)//(32 - 2*K); nty = (ny + TY - 2*K - 1)//(TY - 2*K)
    ntz = (nz + kz - 1)//kz
    lane = np.arange(32)[None,:].repeat(TY,0); w = np.arange(TY)[:,None].repeat(32,1)
    lp = np.where(lane < 31, lane+1, lane); lm = np.where(lane > 0, lane-1, lane)
    wp = np.where(w < TY-1, w+1, w); wm = np.where(w > 0, w-1, w)
    for bz in range(ntz):
     for by in range(nty):
      for bx in range(ntx):
        i = bx*(32-2*K) - K + lane; j = by*(TY-2*K) - K + w
        z0 = bz*kz; z1 = min(z0+kz, nz); zs = z0 - K
        ok = (i >= 0) & (i < nx) & (j >= 0) & (j < ny)
        own = ok & (lane >= K) & (lane < 32-K) & (w >= K) & (w < TY-K)
        ic = np.clip(i, 0, nx-1); jc = np.clip(j, 0, ny-1)
        def load(f, k):
            return np.where(ok, f[k][jc, ic], 0.0)
        Z = lambda: np.zeros((TY,32))
        EX=[Z() for _ in range(K)]; EY=[Z() for _ in range(K)]; EZ=[Z() for _ in range(K)]
        HX=[Z() for _ in range(K)]; HY=[Z() for _ in range(K)]; HZ=[Z() for _ in range(K)]
        if zs >= 0:
            EX[0] = load(ex0, zs); EY[0] = load(ey0, zs); EZ[0] = load(ez0, zs)
        iters = (z1 - z0) + 2*K - 1
        for t in range(iters):
            k1 = zs + t
            elx, ely, elz = EX[0], EY[0], EZ[0]
            ehx = ehy = ehz = hox = hoy = hoz = Z()
            if 0 <= k1+1 < nz:
                ehx, ehy, ehz = load(ex0,k1+1), load(ey0,k1+1), load(ez0,k1+1)
            if 0 <= k1 < nz:
                hox, hoy, hoz = load(hx0,k1), load(hy0,k1), load(hz0,k1)
            EX[0], EY[0], EZ[0] = ehx, ehy, ehz
            for s in range(1, K+1):
                k = k1 - (s-1)
                nhx, nhy, nhz = HX[s-1], HY[s-1], HZ[s-1]
                exv=eyv=ezv=hxv=hyv=hzv=Z()
                if k >= 0 and k < nz and k >= zs:
                    s_ex, s_ey, s_ez = elx.copy(), ely.copy(), elz.copy()
                    ezi = s_ez[w, lp]; eyi = s_ey[w, lp]; ezj = s_ez[wp, lane]; exj = s_ex[wp, lane]
                    hxv = np.where((j > ny-2) | (k > nz-2), hox, hox - ch*((ezj-elz) - (ehy-ely)))
                    hyv = np.where((i > nx-2) | (k > nz-2), hoy, hoy - ch*((ehx-elx) - (ezi-elz)))
                    hzv = np.where((i > nx-2) | (j > ny-2), hoz, hoz - ch*((eyi-ely) - (exj-elx)))
                    s_hx, s_hy, s_hz = hxv.copy(), hyv.copy(), hzv.copy()
                    hz_jm = s_hz[wm, lane]; hy_km = nhy; hx_km = nhx; hz_im = s_hz[w, lm]; hy_im = s_hy[w, lm]; hx_jm = s_hx[wm, lane]
                    exv, eyv, ezv = elx.copy(), ely.copy(), elz.copy()
                    jin = (j >= 1) & (j <= ny-2); kin = 1 <= k <= nz-2; iin = (i >= 1) & (i <= nx-2)
                    ce0 = np.where(ok, ce_of[0][k][jc, ic], 0.0)
                    ce1 = np.where(ok, ce_of[1][k][jc, ic], 0.0)
                    ce2 = np.where(ok, ce_of[2][k][jc, ic], 0.0)
                    cx = ok & (i <= nx-2) & jin & kin
                    exv = np.where(cx, exv + ce0*((hzv - hz_jm) - (hyv - hy_km)), exv)
                    cy = ok & iin & (j <= ny-2) & kin
                    eyv = np.where(cy, eyv + ce1*((hxv - hx_km) - (hzv - hz_im)), eyv)
                    cz = ok & iin & jin & (k <= nz-2)
                    ezv = np.where(cz, ezv + ce2*((hyv - hy_im) - (hxv - hx_jm)), ezv)
                    # sources
                    for (a, b) in zip(*np.nonzero(ok)):
                        key = (k, int(j[a,b]), int(i[a,b]))
                        if key in slotmap:
                            q = slotmap[key]; _, kind, vals = slots[q]
                            if kind != 2:
                                v = vals[t0 + s - 1]
                                ezv[a,b] = v if kind == 1 else ezv[a,b] + v
                        if point is not None and key == point[0]:
                            ezv[a,b] = ezv[a,b] + point[1][t0 + s - 1]
                    if s == K and k >= z0:
                        for f_out, val in zip(out, [exv, eyv, ezv, hxv, hyv, hzv]):
                            sel = own
                            f_out[k][j[sel], i[sel]] = val[sel]
                if s < K:
                    nex, ney, nez = EX[s], EY[s], EZ[s]
                    EX[s], EY[s], EZ[s] = exv, eyv, ezv
                    elx, ely, elz = nex, ney, nez
                    ehx, ehy, ehz = exv, eyv, ezv
                    hox, hoy, hoz = nhx, nhy, nhz
                HX[s-1], HY[s-1], HZ[s-1] = hxv, hyv, hzv
    return out

def main(nx, ny, nz, K, TY, kz, steps):
    F = [rng.uniform(-1e-2, 1e-2, (nz, ny, nx)) for _ in range(6)]
    ce_tab = np.array([0.5, 0.25, 0.0, 0.3])
    mat = rng.integers(0, 4, (3, nz, ny, nx))
    ce_of = [ce_tab[mat[a]] for a in range(3)]
    ch = 0.5
    slots = []
    for q in range(40):
        c = (int(rng.integers(0,nz)), int(rng.integers(0,ny)), int(rng.integers(0,nx)))
        if any(c == s[0] for s in slots): continue
        slots.append((c, int(rng.integers(0,3)), rng.uniform(-1,1,steps+8)))
    point = ((nz//2, 8, 24), rng.uniform(-1,1,steps+8))
    R = F
    for t in range(steps):
        R = ref_step(R, ce_of, ch, t, slots, point)
    G = F; t = 0
    while steps - t >= K:
        G = tb_launch(G, ce_of, ch, t, slots, point, K, TY, kz); t += K
    while t < steps:
        G = ref_step(G, ce_of, ch, t, slots, point); t += 1
    bad = 0
    for q in range(6):
        d = np.sum(~(G[q] == R[q]))
        bad += d
        if d: print("field", q, "differs at", d, "cells; first", np.argwhere(~(G[q]==R[q]))[:5].tolist())
    print(nx, ny, nz, "K", K, "TY", TY, "kz", kz, "steps", steps, "OK" if bad == 0 else "FAIL")
    return bad == 0

if __name__ == "__main__":
    a = [int(x) for x in sys.argv[1:]]
    sys.exit(0 if main(*a) else 1)
