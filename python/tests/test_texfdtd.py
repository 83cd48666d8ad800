"""pytest suite of the Python module (python/texfdtd): against the command on
the same scene bit for bit, every error path as a TexfdtdError with the
library's message, two simulations in one process, checkpoints, keyword
scenes.  Run by `make test` (/usr/bin/python3 -m pytest python/tests)."""

import csv
import os
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
import texfdtd  # noqa: E402

BIN = os.environ.get("TEXFDTD_BIN", str(ROOT / "bin" / "texfdtd"))

SMALL = """[grid]
nx = 80
ny = 72
steps = 150
courant = 0.5
cells_per_wavelength = 16
[source]
type = plane_wave
angle = 20
waveform = sine
ramp_periods = 1
[boundary]
type = cpml
cells = 8
[object.rod]
shape = circle
material = dielectric
eps_r = 3
center_x = 40.3
center_y = 35.6
radius = 9
[monitor.far]
start_step = 60
distance = 3
[output]
png = false
"""


@pytest.fixture
def scene_file(tmp_path):
    p = tmp_path / "small.ini"
    p.write_text(SMALL)
    return p


def run_command(scene, out, *args):
    subprocess.run([BIN, "run", str(scene), "--engine", "cpu", "--threads", "1", "--out",
                    str(out), "--force", "-q", *args], check=True)


def test_fields_and_far_field_equal_the_command_bit_for_bit(scene_file, tmp_path):
    out = tmp_path / "out"
    run_command(scene_file, out)
    with texfdtd.Simulation(texfdtd.Scene(scene_file), engine="cpu", threads=1) as sim:
        sim.run()
        assert sim.steps_done == 150
        with h5py.File(out / "fields.h5") as f:
            for name in ("ez", "hx", "hy"):
                want = f[name][()]
                got = sim.field(name)
                assert got.dtype == want.dtype == np.float32
                assert got.shape == want.shape == (72, 80)
                assert got.tobytes() == want.tobytes(), name
                assert np.abs(got).max() > 0.05  # the wave has met the rod
        rows = list(csv.DictReader(open(out / "far_field.csv")))
        width = sim.far_field(len(rows))
        want = np.array([float(r["sigma_2d_over_lambda"]) for r in rows])
        # the CSV holds 10 significant digits
        assert np.allclose(width[0], want, rtol=1e-9, atol=0)
        assert sim.far_frequencies[0] == pytest.approx(1e9)


def test_double_precision_and_overrides_equal_the_command(scene_file, tmp_path):
    out = tmp_path / "out"
    run_command(scene_file, out, "--precision", "double", "--set", "source.angle=55")
    scene = texfdtd.Scene(scene_file, source={"angle": 55})
    with texfdtd.Simulation(scene, precision="double", threads=1) as sim:
        sim.run()
        with h5py.File(out / "fields.h5") as f:
            assert f["ez"].dtype == np.float64
            assert sim.field("ez").tobytes() == f["ez"][()].tobytes()


def test_denormals_keep_equals_the_command(scene_file, tmp_path):
    out = tmp_path / "out"
    run_command(scene_file, out, "--denormals", "keep")
    with texfdtd.Simulation(scene_file, threads=1, denormals="keep") as sim:
        assert "keep" in sim.describe()
        sim.run()
        with h5py.File(out / "fields.h5") as f:
            assert sim.field("ez").tobytes() == f["ez"][()].tobytes()
    with pytest.raises(texfdtd.TexfdtdError, match="denormals is flush or keep, not 'often'"):
        texfdtd.Simulation(scene_file, denormals="often")
    if "gl" in texfdtd.engines():
        with pytest.raises(texfdtd.TexfdtdError, match="no-such-shaders"):
            texfdtd.Simulation(scene_file, engine="gl", shader_dir=tmp_path / "no-such-shaders")


def test_two_simulations_in_one_process(scene_file):
    a_alone = texfdtd.Simulation(texfdtd.Scene(scene_file), threads=1)
    a_alone.run()
    ez_a = a_alone.field("ez")
    a_alone.close()
    scene_b = texfdtd.Scene(scene_file, sets=["source.angle=70"])
    b_alone = texfdtd.Simulation(scene_b, threads=1)
    b_alone.run()
    ez_b = b_alone.field("ez")
    b_alone.close()
    a = texfdtd.Simulation(texfdtd.Scene(scene_file), threads=1)
    b = texfdtd.Simulation(scene_b, threads=1)
    for _ in range(15):  # interleaved
        a.step(10)
        b.step(10)
    assert a.field("ez").tobytes() == ez_a.tobytes()
    assert b.field("ez").tobytes() == ez_b.tobytes()
    assert ez_a.tobytes() != ez_b.tobytes()
    a.close()
    b.close()


def test_scene_from_keywords_is_the_file(scene_file):
    sections = {
        "grid": {"nx": 80, "ny": 72, "steps": 150, "courant": 0.5, "cells_per_wavelength": 16},
        "source": {"type": "plane_wave", "angle": 20, "waveform": "sine", "ramp_periods": 1},
        "boundary": {"type": "cpml", "cells": 8},
        "object.rod": {"shape": "circle", "material": "dielectric", "eps_r": 3,
                       "center_x": 40.3, "center_y": 35.6, "radius": 9},
    }
    kw = texfdtd.Scene(**sections)
    assert kw.shape == (72, 80) and kw.steps == 150
    with texfdtd.Simulation(kw, threads=1) as s1, \
            texfdtd.Simulation(texfdtd.Scene(scene_file), threads=1) as s2:
        s1.step(90)
        s2.step(90)
        assert s1.field("ez").tobytes() == s2.field("ez").tobytes()


def test_checkpoint_round_trip(scene_file, tmp_path):
    with texfdtd.Simulation(texfdtd.Scene(scene_file), threads=1) as ref:
        ref.step(100)
        want = ref.field("ez")
    with texfdtd.Simulation(texfdtd.Scene(scene_file), threads=1) as a:
        a.step(40)
        a.save(tmp_path / "ck")
    with texfdtd.Simulation(texfdtd.Scene(scene_file), threads=1) as b:
        b.load(tmp_path / "ck")
        assert b.steps_done == 40
        b.step(60)
        assert b.field("ez").tobytes() == want.tobytes()


def test_progress_and_write_field(scene_file):
    seen = []
    with texfdtd.Simulation(texfdtd.Scene(scene_file), threads=1) as sim:
        sim.run(steps=20, progress=lambda d, t: seen.append((d, t)), chunk=5)
        assert seen == [(5, 20), (10, 20), (15, 20), (20, 20)]
        z = np.zeros(sim.scene.shape, dtype=np.float32)
        z[36, 40] = 1.0
        sim.set_field("ez", z)
        assert sim.field("ez").tobytes() == z.tobytes()
        assert sim.finite()
        assert "cpu" in sim.describe()


def test_errors_raise_with_the_library_message(scene_file, tmp_path):
    with pytest.raises(texfdtd.TexfdtdError, match="no-such.ini"):
        texfdtd.Scene(tmp_path / "no-such.ini")
    bad = tmp_path / "bad.ini"
    bad.write_text(SMALL.replace("courant = 0.5", "courant = 0.9"))
    with pytest.raises(texfdtd.TexfdtdError, match=r"bad\.ini:5: .*courant"):
        texfdtd.Scene(bad)
    with pytest.raises(texfdtd.TexfdtdError, match="grid.nosuchkey"):
        texfdtd.Scene(scene_file, grid={"nosuchkey": 1})
    scene = texfdtd.Scene(scene_file)
    with pytest.raises(texfdtd.TexfdtdError, match="warp"):
        texfdtd.Simulation(scene, engine="warp")
    with pytest.raises(texfdtd.TexfdtdError):
        scene.set("grid.nx", -3)
    assert scene.shape == (72, 80)  # a failed set leaves the scene as it was
    sim = texfdtd.Simulation(scene, threads=1)
    with pytest.raises(texfdtd.TexfdtdError, match="nosuchfield"):
        sim.field("nosuchfield")
    with pytest.raises(ValueError):
        sim.set_field("ez", np.zeros((3, 3), dtype=np.float32))
    with pytest.raises(texfdtd.TexfdtdError, match="monitor.dft|dft"):
        sim.dft(0)
    sim.close()
    with pytest.raises(texfdtd.TexfdtdError, match="closed"):
        sim.step()
    cube = texfdtd.Scene(grid={"nx": 16, "ny": 16, "nz": 16, "steps": 5})
    if "gl" in texfdtd.engines():
        with pytest.raises(texfdtd.TexfdtdError, match="3D|nz"):
            texfdtd.Simulation(cube, engine="gl")


def test_sweep_from_python_and_its_resume(scene_file, tmp_path):
    out = tmp_path / "sw"
    vary = {"source.angle": "0:30:30", "object.rod.eps_r": [2, 4]}
    s = texfdtd.sweep(scene_file, vary, out=out, results=["far.backscatter", "steps"],
                      options=["--threads", "1"])
    assert list(s["index"]) == [0, 1, 2, 3]
    assert list(s["source.angle"]) == [0, 0, 30, 30]        # the first key changes slowest
    assert list(s["object.rod.eps_r"]) == [2, 4, 2, 4]
    assert list(s["steps"]) == [150] * 4
    assert s["status"] == ["ok"] * 4
    # run 3 alone through the module: the same far field at 180 + 30 degrees
    scene = texfdtd.Scene(scene_file, source={"angle": 30}, **{"object.rod": {"eps_r": 4}})
    with texfdtd.Simulation(scene, threads=1) as sim:
        sim.run()
        with h5py.File(out / "run-0003" / "fields.h5") as f:
            assert sim.field("ez").tobytes() == f["ez"][()].tobytes()
    # resume: a rerun keeps the finished runs' files
    before = (out / "run-0001" / "fields.h5").stat().st_mtime_ns
    again = texfdtd.sweep(scene_file, vary, out=out, results=["far.backscatter", "steps"],
                          options=["--threads", "1"])
    assert (out / "run-0001" / "fields.h5").stat().st_mtime_ns == before
    assert list(again["far.backscatter"]) == list(s["far.backscatter"])
    with pytest.raises(texfdtd.TexfdtdError, match="nosuchresult"):
        texfdtd.sweep(scene_file, vary, out=tmp_path / "bad", results=["nosuchresult"])


def test_sweep_farmed_over_mpi_ranks_equals_serial(scene_file, tmp_path):
    import shutil
    if not shutil.which("mpirun"):
        pytest.skip("no mpirun")
    vary = {"source.angle": [0, 40, 80]}
    serial = texfdtd.sweep(scene_file, vary, out=tmp_path / "serial",
                           results=["far.backscatter"], options=["--threads", "1"])
    try:
        farm = texfdtd.sweep(scene_file, vary, out=tmp_path / "farm", results=["far.backscatter"],
                             options=["--threads", "1"], mpirun=3)
    except texfdtd.TexfdtdError as e:
        if "MPI" in str(e) and "built" in str(e):
            pytest.skip(str(e))
        raise
    assert list(farm["far.backscatter"]) == list(serial["far.backscatter"])
    for k in range(3):
        with h5py.File(tmp_path / "serial" / f"run-{k:04d}" / "fields.h5") as a, \
                h5py.File(tmp_path / "farm" / f"run-{k:04d}" / "fields.h5") as b:
            assert a["ez"][()].tobytes() == b["ez"][()].tobytes()
