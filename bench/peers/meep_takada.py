#!/usr/bin/python3
"""The takada_square problem in Meep (Debian python3-meep), timed as a peer.

Same grid (n x n cells, 20 cells per wavelength), Courant number 0.5 (Meep's
default), the same number of steps, a PEC square of k*As = 10 in the centre and
metallic outer walls (Meep's default without PML).  Meep has no scattered-field
formulation: the plane wave comes from a line source along the left wall, so
the physics is the same kind of problem, not bit for bit the same fields.
Prints one Markdown table row: grid, seconds, Mcells/s.
"""
import argparse
import time

import meep as mp

p = argparse.ArgumentParser(description=__doc__)
p.add_argument("--n", type=int, default=1024, help="cells per side")
p.add_argument("--steps", type=int, default=1000)
a = p.parse_args()

res = 20  # cells per unit length; wavelength = 1 unit -> 20 cells per wavelength
L = a.n / res
side = 10 / (2 * 3.141592653589793)  # k*As = 10 with k = 2*pi
mp.verbosity(0)
sim = mp.Simulation(
    cell_size=mp.Vector3(L, L, 0),
    resolution=res,
    geometry=[mp.Block(size=mp.Vector3(side, side, mp.inf), material=mp.metal)],
    sources=[mp.Source(mp.ContinuousSource(frequency=1.0), component=mp.Ez,
                       center=mp.Vector3(-L / 2 + 3 / res, 0), size=mp.Vector3(0, L, 0))],
)
sim.init_sim()
sim.run(until=10 * sim.fields.dt)  # warm-up
t0 = time.perf_counter()
steps0 = sim.fields.t
sim.run(until=a.steps * sim.fields.dt)
secs = time.perf_counter() - t0
steps = sim.fields.t - steps0
print(f"| Meep {mp.__version__} {a.n}² | {steps} steps | {secs:.2f} s | "
      f"{a.n * a.n * steps / secs / 1e6:.0f} Mcells/s |")
