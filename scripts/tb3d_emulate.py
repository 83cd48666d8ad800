#!/usr/bin/env python3
"""tb3d_emulate.py - the index logic of the 3D CUDA engine's temporal kernel
(cuda/cuda3d_tb.cu, k_tb3) replayed in numpy, against a plain cell-by-cell
update in cpu/update3d.inc's order (random coefficients per cell and
component, random source slots of the three kinds, a point source, and with
N > 0 a CPML of N cells: random profiles b, c, ik per position, random psi).

Every thread of a block is one element of a (TY, 32) array; the kernel's two
barriers per level are the points between the array statements; the
register queue (E, H and psi per level), the shared-memory neighbours with
the tile-rim clamp, the own-column mask, the z chunks and their K-plane
halo, the split of the tiles into those without and with the psi code, and
the one-step updates of the rest are the kernel's, line for line; so are
the launches' parts: the inner tiles without any test of the grid's faces
or of columns outside it, and (TY 32, a CPML) the tiles that meet one
axis' slabs with that axis' psi only.  Float64,
the same operations in the same order: fields and psi must equal the plain
update to the bit.  Not a test of the CUDA code itself (that is
tests/test_cuda.c, cuda3d/temporal_*, on a GPU): a check, runnable
anywhere, that the tiling and the queues compute what they should.  It
fails, as it should, with the own columns one cell into the halo, the z
halo one plane short, or a level's old psi taken from the wrong plane.

    python3 scripts/tb3d_emulate.py NX NY NZ K TY KZ STEPS [N]
    e.g. python3 scripts/tb3d_emulate.py 80 60 24 3 16 7 7 3     (prints OK)

Needs numpy (Debian: python3-numpy).
"""
import numpy as np, sys
rng = np.random.default_rng(1)

N = 0
PROF = None   # PROF[(axis, 'e'|'h')] = (b, c, ik) arrays over positions

def dslab_e(n, i):
    if N <= 0: return -1
    if 1 <= i <= N-1: return 0
    if n-N <= i <= n-2: return 1
    return -1

def dslab_h(n, i):
    if N <= 0: return -1
    if 0 <= i <= N-1: return 0
    if n-1-N <= i <= n-2: return 1
    return -1

def psi_axis(q):
    r = q % 6
    return 0 if r in (2, 4) else 1 if r in (0, 5) else 2

def term(dd, psi, key, pos):
    b, c, ik = PROF[key]
    q = b[pos]*psi + c[pos]*dd
    return dd*ik[pos] + q, q

def ref_step(F, ce_of, ch, t, slots, point):
    ex, ey, ez, hx, hy, hz = [f.copy() for f in F[:6]]
    nz, ny, nx = ex.shape
    PS = F[6]
    PS = [a.copy() for a in PS]
    # H
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                xs, ys, zs = dslab_h(nx, i), dslab_h(ny, j), dslab_h(nz, k)
                if j <= ny-2 and k <= nz-2:
                    dy = ez[k,j+1,i]-ez[k,j,i]; dz = ey[k+1,j,i]-ey[k,j,i]
                    ty, tz = dy, dz
                    if ys >= 0: ty, PS[6][k,j,i] = term(dy, PS[6][k,j,i], (1,'h'), j)
                    if zs >= 0: tz, PS[7][k,j,i] = term(dz, PS[7][k,j,i], (2,'h'), k)
                    hx[k,j,i] = hx[k,j,i] - ch*(ty - tz)
                if i <= nx-2 and k <= nz-2:
                    dz = ex[k+1,j,i]-ex[k,j,i]; dx = ez[k,j,i+1]-ez[k,j,i]
                    tz, tx = dz, dx
                    if zs >= 0: tz, PS[9][k,j,i] = term(dz, PS[9][k,j,i], (2,'h'), k)
                    if xs >= 0: tx, PS[8][k,j,i] = term(dx, PS[8][k,j,i], (0,'h'), i)
                    hy[k,j,i] = hy[k,j,i] - ch*(tz - tx)
                if i <= nx-2 and j <= ny-2:
                    dx = ey[k,j,i+1]-ey[k,j,i]; dy = ex[k,j+1,i]-ex[k,j,i]
                    tx, ty = dx, dy
                    if xs >= 0: tx, PS[10][k,j,i] = term(dx, PS[10][k,j,i], (0,'h'), i)
                    if ys >= 0: ty, PS[11][k,j,i] = term(dy, PS[11][k,j,i], (1,'h'), j)
                    hz[k,j,i] = hz[k,j,i] - ch*(tx - ty)
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                xs, ys, zs = dslab_e(nx, i), dslab_e(ny, j), dslab_e(nz, k)
                jin = 1 <= j <= ny-2; kin = 1 <= k <= nz-2; iin = 1 <= i <= nx-2
                if i <= nx-2 and jin and kin:
                    dy = hz[k,j,i]-hz[k,j-1,i]; dz = hy[k,j,i]-hy[k-1,j,i]
                    ty, tz = dy, dz
                    if ys >= 0: ty, PS[0][k,j,i] = term(dy, PS[0][k,j,i], (1,'e'), j)
                    if zs >= 0: tz, PS[1][k,j,i] = term(dz, PS[1][k,j,i], (2,'e'), k)
                    ex[k,j,i] = ex[k,j,i] + ce_of[0][k,j,i]*(ty - tz)
                if iin and j <= ny-2 and kin:
                    dz = hx[k,j,i]-hx[k-1,j,i]; dx = hz[k,j,i]-hz[k,j,i-1]
                    tz, tx = dz, dx
                    if zs >= 0: tz, PS[3][k,j,i] = term(dz, PS[3][k,j,i], (2,'e'), k)
                    if xs >= 0: tx, PS[2][k,j,i] = term(dx, PS[2][k,j,i], (0,'e'), i)
                    ey[k,j,i] = ey[k,j,i] + ce_of[1][k,j,i]*(tz - tx)
                if iin and jin and k <= nz-2:
                    dx = hy[k,j,i]-hy[k,j,i-1]; dy = hx[k,j,i]-hx[k,j-1,i]
                    tx, ty = dx, dy
                    if xs >= 0: tx, PS[4][k,j,i] = term(dx, PS[4][k,j,i], (0,'e'), i)
                    if ys >= 0: ty, PS[5][k,j,i] = term(dy, PS[5][k,j,i], (1,'e'), j)
                    ez[k,j,i] = ez[k,j,i] + ce_of[2][k,j,i]*(tx - ty)
    for (k,j,i), kind, vals in slots:
        if kind != 2:
            v = vals[t]
            ez[k,j,i] = v if kind == 1 else ez[k,j,i] + v
    if point is not None:
        (k,j,i), pv = point
        ez[k,j,i] = ez[k,j,i] + pv[t]
    return [ex, ey, ez, hx, hy, hz, PS]

def dsl_v(n, a, e):
    if N <= 0: return np.full(a.shape, -1)
    if e:
        return np.where((a >= 1) & (a <= N-1), 0, np.where((a >= n-N) & (a <= n-2), 1, -1))
    return np.where((a >= 0) & (a <= N-1), 0, np.where((a >= n-1-N) & (a <= n-2), 1, -1))

def term_v(dd, o, key, pos, m):
    # where m: q = b o + c dd, t = dd ik + q; else t = dd, q = o
    b, c, ik = PROF[key]
    pc = np.clip(pos, 0, len(b)-1)
    q = b[pc]*o + c[pc]*dd
    t = dd*ik[pc] + q
    return np.where(m, t, dd), np.where(m, q, o)

def meets(a, b, n):
    return a <= N-1 or b >= n-1-N

def tb_launch(F, ce_of, ch, t0, slots, point, K, TY, kz):
    ex0, ey0, ez0, hx0, hy0, hz0 = F[:6]
    PS0 = F[6]
    nz, ny, nx = ex0.shape
    out = [np.full_like(f, np.nan) for f in F[:6]] + [[np.zeros_like(a) for a in PS0]]
    slotmap = {}
    for q, ((k,j,i), kind, vals) in enumerate(slots):
        slotmap[(k,j,i)] = q
    ntx = (nx + 32 - 2*K - 1)//(32 - 2*K); nty = (ny + TY - 2*K - 1)//(TY - 2*K)
    ntz = (nz + kz - 1)//kz
    lane = np.arange(32)[None,:].repeat(TY,0); w = np.arange(TY)[:,None].repeat(32,1)
    lp = np.where(lane < 31, lane+1, lane); lm = np.where(lane > 0, lane-1, lane)
    wp = np.where(w < TY-1, w+1, w); wm = np.where(w > 0, w-1, w)
    nslab = 0
    for bz in range(ntz):
     for by in range(nty):
      for bx in range(ntx):
        i0 = bx*(32-2*K) - K; j0 = by*(TY-2*K) - K
        i = i0 + lane; j = j0 + w
        z0 = bz*kz; z1 = min(z0+kz, nz); zs = z0 - K
        mt = [meets(i0, i0+31, nx), meets(j0, j0+TY-1, ny), meets(zs, z1+K-2, nz)] if N > 0 else [False]*3
        PML = any(mt)
        nslab += PML
        # the launch that takes the tile: with a CPML the interior tiles run
        # without the face tests (IN), those meeting one axis' slabs with that
        # axis' 4 psi (PM 1, TY 32), the others with all 12; without one the
        # inner tiles run without the face tests
        if N > 0:
            IN = not PML
        else:
            IN = i0 >= 1 and i0+31 <= nx-2 and j0 >= 1 and j0+TY-1 <= ny-2 and zs >= 1 and z1+K-1 <= nz-2
        ax = mt.index(True) if sum(mt) == 1 and TY == 32 else -1
        has = lambda q: ax < 0 or psi_axis(q) == ax
        fm = (lambda c: True) if IN else (lambda c: c)   # an update's face condition
        ff = (lambda c: False) if IN else (lambda c: c)  # a 'keep the old value' condition
        ok = np.ones((TY, 32), bool) if IN else (i >= 0) & (i < nx) & (j >= 0) & (j < ny)
        own = ok & (lane >= K) & (lane < 32-K) & (w >= K) & (w < TY-K)
        ic = np.clip(i, 0, nx-1); jc = np.clip(j, 0, ny-1)
        def load(f, k):
            return np.where(ok, f[k][jc, ic], 0.0)
        Z = lambda: np.zeros((TY,32))
        EX=[Z() for _ in range(K)]; EY=[Z() for _ in range(K)]; EZ=[Z() for _ in range(K)]
        HX=[Z() for _ in range(K)]; HY=[Z() for _ in range(K)]; HZ=[Z() for _ in range(K)]
        PS=[[Z() for _ in range(12)] for _ in range(K)]
        # psi membership per q: side arrays (H: dslab_h, E: dslab_e along q's axis)
        def insl(q, k):
            a = psi_axis(q); e = q < 6
            if a == 0: return ok & (dsl_v(nx, i, e) >= 0)
            if a == 1: return ok & (dsl_v(ny, j, e) >= 0)
            return ok & (dsl_v(nz, np.array(k), e) >= 0)
        if zs >= 0:
            EX[0] = load(ex0, zs); EY[0] = load(ey0, zs); EZ[0] = load(ez0, zs)
        iters = (z1 - z0) + 2*K - 1
        for t in range(iters):
            k1 = zs + t
            elx, ely, elz = EX[0], EY[0], EZ[0]
            ehx = ehy = ehz = hox = hoy = hoz = Z()
            po = [Z() for _ in range(12)]
            if IN or 0 <= k1+1 < nz:
                ehx, ehy, ehz = load(ex0,k1+1), load(ey0,k1+1), load(ez0,k1+1)
            if IN or 0 <= k1 < nz:
                hox, hoy, hoz = load(hx0,k1), load(hy0,k1), load(hz0,k1)
                if PML:
                    for q in range(12):
                        po[q] = np.where(insl(q, k1), PS0[q][k1][jc, ic], 0.0)
            EX[0], EY[0], EZ[0] = ehx, ehy, ehz
            for s in range(1, K+1):
                k = k1 - (s-1)
                nhx, nhy, nhz = HX[s-1], HY[s-1], HZ[s-1]
                exv=eyv=ezv=hxv=hyv=hzv=Z()
                pn = [x.copy() for x in po]
                if (IN or (k >= 0 and k < nz)) and k >= zs:
                    s_ex, s_ey, s_ez = elx.copy(), ely.copy(), elz.copy()
                    ezi = s_ez[w, lp]; eyi = s_ey[w, lp]; ezj = s_ez[wp, lane]; exj = s_ex[wp, lane]
                    dhx1, dhx2 = ezj-elz, ehy-ely
                    dhy1, dhy2 = ehx-elx, ezi-elz
                    dhz1, dhz2 = eyi-ely, exj-elx
                    if PML:
                        kk = np.full(i.shape, k)
                        xs, ys, zsd = dsl_v(nx, i, False) >= 0, dsl_v(ny, j, False) >= 0, dsl_v(nz, kk, False) >= 0
                        u = (j <= ny-2) & (k <= nz-2)
                        ty, pn[6] = term_v(dhx1, po[6], (1,'h'), j, u & ys & has(6))
                        tz, pn[7] = term_v(dhx2, po[7], (2,'h'), kk, u & zsd & has(7))
                        hxv = np.where(u, hox - ch*(ty - tz), hox)
                        u = (i <= nx-2) & (k <= nz-2)
                        tz, pn[9] = term_v(dhy1, po[9], (2,'h'), kk, u & zsd & has(9))
                        tx, pn[8] = term_v(dhy2, po[8], (0,'h'), i, u & xs & has(8))
                        hyv = np.where(u, hoy - ch*(tz - tx), hoy)
                        u = (i <= nx-2) & (j <= ny-2)
                        tx, pn[10] = term_v(dhz1, po[10], (0,'h'), i, u & xs & has(10))
                        ty, pn[11] = term_v(dhz2, po[11], (1,'h'), j, u & ys & has(11))
                        hzv = np.where(u, hoz - ch*(tx - ty), hoz)
                    else:
                        hxv = np.where(ff((j > ny-2) | (k > nz-2)), hox, hox - ch*(dhx1 - dhx2))
                        hyv = np.where(ff((i > nx-2) | (k > nz-2)), hoy, hoy - ch*(dhy1 - dhy2))
                        hzv = np.where(ff((i > nx-2) | (j > ny-2)), hoz, hoz - ch*(dhz1 - dhz2))
                    s_hx, s_hy, s_hz = hxv.copy(), hyv.copy(), hzv.copy()
                    hz_jm = s_hz[wm, lane]; hy_km = nhy; hx_km = nhx; hz_im = s_hz[w, lm]; hy_im = s_hy[w, lm]; hx_jm = s_hx[wm, lane]
                    exv, eyv, ezv = elx.copy(), ely.copy(), elz.copy()
                    jin = (j >= 1) & (j <= ny-2); kin = 1 <= k <= nz-2; iin = (i >= 1) & (i <= nx-2)
                    ce0 = np.where(ok, ce_of[0][k][jc, ic], 0.0)
                    ce1 = np.where(ok, ce_of[1][k][jc, ic], 0.0)
                    ce2 = np.where(ok, ce_of[2][k][jc, ic], 0.0)
                    cx = ok & fm((i <= nx-2) & jin & kin)
                    cy = ok & fm(iin & (j <= ny-2) & kin)
                    cz = ok & fm(iin & jin & (k <= nz-2))
                    if PML:
                        kk = np.full(i.shape, k)
                        xs, ys, zsd = dsl_v(nx, i, True) >= 0, dsl_v(ny, j, True) >= 0, dsl_v(nz, kk, True) >= 0
                        ty, pn[0] = term_v(hzv - hz_jm, po[0], (1,'e'), j, cx & ys & has(0))
                        tz, pn[1] = term_v(hyv - hy_km, po[1], (2,'e'), kk, cx & zsd & has(1))
                        exv = np.where(cx, exv + ce0*(ty - tz), exv)
                        tz, pn[3] = term_v(hxv - hx_km, po[3], (2,'e'), kk, cy & zsd & has(3))
                        tx, pn[2] = term_v(hzv - hz_im, po[2], (0,'e'), i, cy & xs & has(2))
                        eyv = np.where(cy, eyv + ce1*(tz - tx), eyv)
                        tx, pn[4] = term_v(hyv - hy_im, po[4], (0,'e'), i, cz & xs & has(4))
                        ty, pn[5] = term_v(hxv - hx_jm, po[5], (1,'e'), j, cz & ys & has(5))
                        ezv = np.where(cz, ezv + ce2*(tx - ty), ezv)
                    else:
                        exv = np.where(cx, exv + ce0*((hzv - hz_jm) - (hyv - hy_km)), exv)
                        eyv = np.where(cy, eyv + ce1*((hxv - hx_km) - (hzv - hz_im)), eyv)
                        ezv = np.where(cz, ezv + ce2*((hyv - hy_im) - (hxv - hx_jm)), ezv)
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
                        for f_out, val in zip(out[:6], [exv, eyv, ezv, hxv, hyv, hzv]):
                            f_out[k][j[own], i[own]] = val[own]
                        if PML:
                            for q in range(12):
                                m = own & insl(q, k)
                                out[6][q][k][j[m], i[m]] = pn[q][m]
                if s < K:
                    nex, ney, nez = EX[s], EY[s], EZ[s]
                    EX[s], EY[s], EZ[s] = exv, eyv, ezv
                    elx, ely, elz = nex, ney, nez
                    ehx, ehy, ehz = exv, eyv, ezv
                    hox, hoy, hoz = nhx, nhy, nhz
                if PML:
                    for q in range(12):
                        x = PS[s-1][q]; PS[s-1][q] = pn[q]; po[q] = x
                HX[s-1], HY[s-1], HZ[s-1] = hxv, hyv, hzv
    # psi entries outside every slab: both buffers keep them (never updated)
    for q in range(12):
        a = psi_axis(q); e = q < 6
        n = (nx, ny, nz)[a]
        side = dsl_v(n, np.arange(n), e) >= 0
        sh = [1, 1, 1]; sh[2 - a] = n
        m = np.broadcast_to(side.reshape(sh), (nz, ny, nx))
        out[6][q] = np.where(m, out[6][q], PS0[q])
    print("  tiles with psi:", nslab, "of", ntx*nty*ntz)
    return out

def main(nx, ny, nz, K, TY, kz, steps, n=0):
    global N, PROF
    N = n
    F = [rng.uniform(-1e-2, 1e-2, (nz, ny, nx)) for _ in range(6)]
    PROF = {}
    for ax, L in enumerate((nx, ny, nz)):
        for e in 'eh':
            PROF[(ax, e)] = (rng.uniform(0.5, 1, L), rng.uniform(-0.3, 0, L), rng.uniform(0.5, 1, L))
    PS0 = []
    for q in range(12):
        a = psi_axis(q); e = q < 6
        L = (nx, ny, nz)[a]
        side = dsl_v(L, np.arange(L), e) >= 0
        sh = [1, 1, 1]; sh[2 - a] = L
        m = np.broadcast_to(side.reshape(sh), (nz, ny, nx))
        PS0.append(np.where(m, rng.uniform(-1e-2, 1e-2, (nz, ny, nx)), 0.0))
    F.append(PS0)
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
    for q in range(12):
        d = np.sum(~(G[6][q] == R[6][q]))
        bad += d
        if d: print("psi", q, "differs at", d, "cells; first", np.argwhere(~(G[6][q]==R[6][q]))[:5].tolist())
    print(nx, ny, nz, "K", K, "TY", TY, "kz", kz, "steps", steps, "N", N, "OK" if bad == 0 else "FAIL")
    return bad == 0

if __name__ == "__main__":
    a = [int(x) for x in sys.argv[1:]]
    sys.exit(0 if main(*a) else 1)
