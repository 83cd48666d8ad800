"""texfdtd from Python: scenes, simulations and their results as NumPy arrays.

A thin ctypes layer over the C library libtexfdtd (core/texfdtd.h, docs/api.md):
no compiler step beyond ``make``.  The library is found, in this order, at
``$TEXFDTD_LIB``, in the source tree's ``build/`` (next to this package when
it is used from a clone), or where the dynamic loader finds ``libtexfdtd``
(an installed copy, ``make install``).

    import texfdtd
    scene = texfdtd.Scene("scenes/pec_circle_ka10.ini", grid={"steps": 400})
    with texfdtd.Simulation(scene, engine="cpu") as sim:
        sim.run()
        ez = sim.field("ez")            # float32 [ny, nx], V/m (scattered field)
        width = sim.far_field(360)      # sigma_2D / lambda, [frequency, angle]

Errors of the library (a bad key with its file:line, an engine that refuses
a scene, ...) are raised as :class:`TexfdtdError` with the library's message.
"""

import csv
import ctypes
import ctypes.util
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np

__all__ = ["TexfdtdError", "Scene", "Simulation", "engines", "version", "sweep"]

_ERRLEN = 2048


class TexfdtdError(RuntimeError):
    """An error reported by libtexfdtd; the message is the library's."""


def _find_library():
    env = os.environ.get("TEXFDTD_LIB")
    if env:
        return env
    here = Path(__file__).resolve().parent
    for build in (here.parents[1] / "build",):
        for name in sorted(build.glob("libtexfdtd.so.*"), key=lambda p: len(p.name)):
            return str(name)
    found = ctypes.util.find_library("texfdtd")
    if found:
        return found
    raise OSError("libtexfdtd not found: run `make` in the source tree, `make install`, "
                  "or set TEXFDTD_LIB to the library's path")


_lib = ctypes.CDLL(_find_library())

_c_char_p = ctypes.c_char_p
_size_t = ctypes.c_size_t
_int_p = ctypes.POINTER(ctypes.c_int)
_dbl_p = ctypes.POINTER(ctypes.c_double)
_flt_p = ctypes.POINTER(ctypes.c_float)
_size_p = ctypes.POINTER(ctypes.c_size_t)
_void_p = ctypes.c_void_p


def _proto(name, *args):
    f = getattr(_lib, name)
    f.argtypes = list(args)
    f.restype = ctypes.c_int
    return f


_lib.tf_version.restype = ctypes.c_int
_lib.tf_version.argtypes = []
_lib.tf_version_string.restype = _c_char_p
_lib.tf_version_string.argtypes = []
_proto("tf_engines", _c_char_p, _size_t, _c_char_p, _size_t)
_proto("tf_scene_load", _c_char_p, ctypes.POINTER(_c_char_p), ctypes.c_int,
       ctypes.POINTER(_void_p), _c_char_p, _size_t)
_proto("tf_scene_from_string", _c_char_p, _c_char_p, ctypes.POINTER(_c_char_p), ctypes.c_int,
       ctypes.POINTER(_void_p), _c_char_p, _size_t)
_proto("tf_scene_set", _void_p, _c_char_p, _c_char_p, _size_t)
_proto("tf_scene_check", _void_p, _c_char_p, _size_t)
_proto("tf_scene_dims", _void_p, _int_p, _int_p, _int_p, _int_p, _c_char_p, _size_t)
_proto("tf_scene_spacing", _void_p, _dbl_p, _dbl_p, _dbl_p, _c_char_p, _size_t)
_lib.tf_scene_free.argtypes = [_void_p]
_lib.tf_scene_free.restype = None


class _SimOptions(ctypes.Structure):
    """tf_sim_options (core/texfdtd.h)."""
    _fields_ = [("size", _size_t), ("engine", _c_char_p), ("precision", _c_char_p),
                ("denormals", _c_char_p), ("shader_dir", _c_char_p), ("device", ctypes.c_int),
                ("threads", ctypes.c_int)]


_proto("tf_sim_open", _void_p, ctypes.POINTER(_SimOptions), ctypes.POINTER(_void_p), _c_char_p,
       _size_t)
_proto("tf_sim_create", _void_p, _c_char_p, _c_char_p, ctypes.c_int, ctypes.c_int,
       ctypes.POINTER(_void_p), _c_char_p, _size_t)
_proto("tf_sim_step", _void_p, ctypes.c_int, _c_char_p, _size_t)
_proto("tf_sim_run", _void_p, _c_char_p, _size_t)
_proto("tf_sim_steps_done", _void_p, _int_p, _c_char_p, _size_t)
_proto("tf_sim_check_finite", _void_p, _int_p, _c_char_p, _size_t)
_proto("tf_sim_field_names", _void_p, _c_char_p, _size_t, _c_char_p, _size_t)
_proto("tf_sim_field_count", _void_p, _size_p, _c_char_p, _size_t)
_proto("tf_sim_read_field_f32", _void_p, _c_char_p, _flt_p, _size_t, _c_char_p, _size_t)
_proto("tf_sim_read_field_f64", _void_p, _c_char_p, _dbl_p, _size_t, _c_char_p, _size_t)
_proto("tf_sim_write_field_f32", _void_p, _c_char_p, _flt_p, _size_t, _c_char_p, _size_t)
_proto("tf_sim_write_field_f64", _void_p, _c_char_p, _dbl_p, _size_t, _c_char_p, _size_t)
_proto("tf_sim_monitors", _void_p, _int_p, _int_p, _int_p, _int_p, _c_char_p, _size_t)
_proto("tf_sim_far_frequencies", _void_p, _dbl_p, _size_t, _c_char_p, _size_t)
_proto("tf_sim_far2d", _void_p, ctypes.c_int, _dbl_p, _size_t, _c_char_p, _size_t)
_proto("tf_sim_far3d", _void_p, ctypes.c_int, _dbl_p, _dbl_p, _dbl_p, _size_t, _c_char_p, _size_t)
_proto("tf_sim_flux_info", _void_p, ctypes.c_int, _c_char_p, _size_t, _int_p, _c_char_p, _size_t)
_proto("tf_sim_flux", _void_p, ctypes.c_int, _dbl_p, _dbl_p, _dbl_p, _size_t, _c_char_p, _size_t)
_proto("tf_sim_probe_names", _void_p, _c_char_p, _size_t, _c_char_p, _size_t)
_proto("tf_sim_probe_rows", _void_p, _size_p, _c_char_p, _size_t)
_proto("tf_sim_probe_data", _void_p, _dbl_p, _size_t, _c_char_p, _size_t)
_proto("tf_sim_dft_frequencies", _void_p, _dbl_p, _size_t, _c_char_p, _size_t)
_proto("tf_sim_read_dft", _void_p, ctypes.c_int, _dbl_p, _dbl_p, _size_t, _c_char_p, _size_t)
_proto("tf_sim_checkpoint_save", _void_p, _c_char_p, _c_char_p, _size_t)
_proto("tf_sim_checkpoint_load", _void_p, _c_char_p, _c_char_p, _size_t)
_proto("tf_sim_describe", _void_p, _c_char_p, _size_t, _c_char_p, _size_t)
_lib.tf_sim_destroy.argtypes = [_void_p]
_lib.tf_sim_destroy.restype = None


def _call(fn, *args):
    """Call library function fn with the error buffer appended; raise on failure."""
    err = ctypes.create_string_buffer(_ERRLEN)
    if fn(*args, err, _ERRLEN) != 0:
        raise TexfdtdError(err.value.decode(errors="replace") or fn.__name__ + " failed")


def _text(fn, *args, size=4096):
    buf = ctypes.create_string_buffer(size)
    _call(fn, *args, buf, size)
    return buf.value.decode()


def _ptr(a, ctype):
    return a.ctypes.data_as(ctypes.POINTER(ctype))


def version():
    """The library's version string, "MAJOR.MINOR.PATCH (git HASH)"."""
    return _lib.tf_version_string().decode()


def engines():
    """The engines of this build, e.g. ['cpu', 'gl', 'gl-compute']."""
    return [e for e in _text(_lib.tf_engines).split(",") if e]


def _value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return ", ".join(_value(x) for x in v)
    return str(v)


def _overrides(sections):
    """{"grid": {"nx": 64}, "object.rod": {...}} -> ["grid.nx=64", "object.rod...=..."]."""
    sets = []
    for section, keys in sections.items():
        if not isinstance(keys, dict):
            raise TypeError(f"section {section!r}: give its keys as a dict, e.g. "
                            f"{section}={{'key': value}}")
        for key, v in keys.items():
            sets.append(f"{section}.{key}={_value(v)}")
    return sets


def _ini(sections):
    lines = []
    for section, keys in sections.items():
        if not isinstance(keys, dict):
            raise TypeError(f"section {section!r}: give its keys as a dict")
        lines.append(f"[{section}]")
        lines += [f"{key} = {_value(v)}" for key, v in keys.items()]
    return "\n".join(lines) + "\n"


class Scene:
    """A scene (docs/scenes.md), checked as the command checks it.

    ``Scene(path)`` reads an INI file; ``Scene(text=...)`` takes the text of one;
    with neither, the keyword arguments are the scene itself
    (``Scene(grid={"nx": 64, "ny": 64, "steps": 100}, **{"object.c": {...}})``).
    With a file or text, keyword arguments (one dict per section) and ``sets``
    (strings "section.key=value") override its keys, as ``--set`` does.
    Errors raise :class:`TexfdtdError` with the file:line message.
    """

    def __init__(self, path=None, *, text=None, name="<string>", sets=(), **sections):
        self._h = _void_p()
        if path is not None and text is not None:
            raise TypeError("give a path or a text, not both")
        if path is None and text is None:
            text, name, overrides = _ini(sections), "<keywords>", list(sets)
        else:
            overrides = list(sets) + _overrides(sections)
        arr = (_c_char_p * max(1, len(overrides)))(*[s.encode() for s in overrides])
        if path is not None:
            _call(_lib.tf_scene_load, os.fspath(path).encode(), arr, len(overrides),
                  ctypes.byref(self._h))
        else:
            _call(_lib.tf_scene_from_string, name.encode(), text.encode(), arr, len(overrides),
                  ctypes.byref(self._h))

    def set(self, key, value):
        """Override one key, e.g. ``scene.set("source.angle", 30)``."""
        _call(_lib.tf_scene_set, self._h, f"{key}={_value(value)}".encode())
        return self

    def check(self):
        """Build the model once (paint, materials, monitors): ``run --dry-run``."""
        _call(_lib.tf_scene_check, self._h)

    @property
    def shape(self):
        """(nz, ny, nx) in 3D, (ny, nx) in 2D: the fields' array shape."""
        nx, ny, nz, steps = (ctypes.c_int() for _ in range(4))
        _call(_lib.tf_scene_dims, self._h, ctypes.byref(nx), ctypes.byref(ny), ctypes.byref(nz),
              ctypes.byref(steps))
        return (nz.value, ny.value, nx.value) if nz.value > 1 else (ny.value, nx.value)

    @property
    def steps(self):
        """The scene's [grid] steps."""
        s = ctypes.c_int()
        _call(_lib.tf_scene_dims, self._h, None, None, None, ctypes.byref(s))
        return s.value

    @property
    def spacing(self):
        """(dx in m, dt in s, source frequency f0 in Hz)."""
        dx, dt, f0 = ctypes.c_double(), ctypes.c_double(), ctypes.c_double()
        _call(_lib.tf_scene_spacing, self._h, ctypes.byref(dx), ctypes.byref(dt), ctypes.byref(f0))
        return dx.value, dt.value, f0.value

    def close(self):
        if self._h:
            _lib.tf_scene_free(self._h)
            self._h = _void_p()

    def __del__(self):
        self.close()


class Simulation:
    """A scene on an engine: ``Simulation(scene, engine="cpu", precision="single",
    device=-1, threads=0, denormals="flush", shader_dir=None)``.  ``denormals``:
    "flush" (to zero, as GPU shaders do) or "keep" (IEEE gradual underflow);
    ``shader_dir``: the GL engines' shader folder (None: as the command finds
    it).  A context manager: leaving the ``with`` block frees the engine (and a
    GPU context) at once."""

    def __init__(self, scene, engine="cpu", precision="single", device=-1, threads=0,
                 denormals="flush", shader_dir=None):
        if not isinstance(scene, Scene):
            scene = Scene(scene)
        self.scene = scene
        self._shape = scene.shape
        self._h = _void_p()
        opt = _SimOptions(ctypes.sizeof(_SimOptions), engine.encode(), precision.encode(),
                          denormals.encode(), os.fsencode(shader_dir) if shader_dir else None,
                          int(device), int(threads))
        _call(_lib.tf_sim_open, scene._h, ctypes.byref(opt), ctypes.byref(self._h))
        self.dtype = np.float32 if precision == "single" else np.float64

    def _live(self):
        if not self._h:
            raise TexfdtdError("the simulation is closed")
        return self._h

    # -- stepping ----------------------------------------------------------
    def step(self, n=1):
        """Advance n time steps."""
        _call(_lib.tf_sim_step, self._live(), int(n))
        return self

    def run(self, steps=None, progress=None, chunk=None):
        """Step to the scene's [grid] steps (or ``steps`` more).  ``progress``:
        a callable ``progress(done, total)``, or ``True`` for a one-line bar on
        stderr."""
        done = self.steps_done
        total = self.scene.steps if steps is None else done + int(steps)
        if progress is True:
            import sys

            def progress(d, t):
                sys.stderr.write(f"\rtexfdtd: step {d} / {t}" + ("\n" if d == t else ""))
                sys.stderr.flush()
        if chunk is None:
            chunk = max(1, (total - done) // 100) if progress else total - done
        while done < total:
            n = min(chunk, total - done)
            self.step(n)
            done += n
            if progress:
                progress(done, total)
        return self

    @property
    def steps_done(self):
        s = ctypes.c_int()
        _call(_lib.tf_sim_steps_done, self._live(), ctypes.byref(s))
        return s.value

    def finite(self):
        """True when every time-domain field is finite."""
        f = ctypes.c_int()
        _call(_lib.tf_sim_check_finite, self._live(), ctypes.byref(f))
        return bool(f.value)

    # -- fields -----------------------------------------------------------
    @property
    def field_names(self):
        return _text(_lib.tf_sim_field_names, self._live()).split(",")

    def field(self, name, dtype=None):
        """Field ``name`` ("ez", "hx", ...) as a new array of the scene's shape,
        in the simulation's precision (or ``dtype``): the engine's values."""
        dtype = np.dtype(dtype or self.dtype)
        out = np.empty(self._shape, dtype=dtype)
        if dtype == np.float32:
            _call(_lib.tf_sim_read_field_f32, self._live(), name.encode(), _ptr(out, ctypes.c_float),
                  out.size)
        elif dtype == np.float64:
            _call(_lib.tf_sim_read_field_f64, self._live(), name.encode(),
                  _ptr(out, ctypes.c_double), out.size)
        else:
            raise TypeError("dtype must be float32 or float64")
        return out

    def set_field(self, name, values):
        """Replace field ``name`` with ``values`` (the scene's shape)."""
        a = np.ascontiguousarray(values)
        if a.shape != self._shape:
            raise ValueError(f"field {name}: shape {a.shape}, the scene's is {self._shape}")
        if a.dtype == np.float32:
            _call(_lib.tf_sim_write_field_f32, self._live(), name.encode(), _ptr(a, ctypes.c_float),
                  a.size)
        else:
            a = np.ascontiguousarray(a, dtype=np.float64)
            _call(_lib.tf_sim_write_field_f64, self._live(), name.encode(),
                  _ptr(a, ctypes.c_double), a.size)

    # -- monitors ---------------------------------------------------------
    def _monitors(self):
        v = [ctypes.c_int() for _ in range(4)]
        _call(_lib.tf_sim_monitors, self._live(), *(ctypes.byref(x) for x in v))
        return [x.value for x in v]

    @property
    def far_frequencies(self):
        """[monitor.far] frequencies, Hz."""
        n = self._monitors()[0]
        out = np.empty(n)
        if n:
            _call(_lib.tf_sim_far_frequencies, self._live(), _ptr(out, ctypes.c_double), n)
        return out

    def far_field(self, nangles=360):
        """2D: the echo width over the wavelength sigma_2D / lambda at
        ``nangles`` angles phi = 360 a / nangles degrees, as an array
        [frequency, angle] (far_field.csv's values once the run is done)."""
        nf = self._monitors()[0]
        if not nf:
            raise TexfdtdError("the scene has no [monitor.far]")
        out = np.empty((nf, int(nangles)))
        _call(_lib.tf_sim_far2d, self._live(), int(nangles), _ptr(out, ctypes.c_double), out.size)
        return out

    def rcs(self, theta_deg, phi_deg, k=0):
        """3D: sigma / lambda^2 at far-field frequency index k in the
        directions (theta, phi) in degrees (arrays of one shape)."""
        th = np.ascontiguousarray(theta_deg, dtype=np.float64)
        ph = np.ascontiguousarray(phi_deg, dtype=np.float64)
        if th.shape != ph.shape:
            raise ValueError("theta and phi must have one shape")
        out = np.empty(th.shape)
        _call(_lib.tf_sim_far3d, self._live(), int(k), _ptr(th, ctypes.c_double),
              _ptr(ph, ctypes.c_double), _ptr(out, ctypes.c_double), out.size)
        return out

    def flux(self):
        """Every [monitor.flux.NAME]: {name: (hz, scattered, total)}, widths
        over the incident intensity, m (flux.csv)."""
        result = {}
        for i in range(self._monitors()[1]):
            name = ctypes.create_string_buffer(256)
            nf = ctypes.c_int()
            _call(_lib.tf_sim_flux_info, self._live(), i, name, 256, ctypes.byref(nf))
            hz, sc, tot = (np.empty(nf.value) for _ in range(3))
            _call(_lib.tf_sim_flux, self._live(), i, _ptr(hz, ctypes.c_double),
                  _ptr(sc, ctypes.c_double), _ptr(tot, ctypes.c_double), nf.value)
            result[name.value.decode()] = (hz, sc, tot)
        return result

    def probes(self):
        """The probe series as (column names, array [rows, columns]):
        step, time (s), then each probe's fields (probes.csv)."""
        cols = self._monitors()[2]
        if not cols:
            return [], np.empty((0, 0))
        names = _text(_lib.tf_sim_probe_names, self._live(), size=65536).split(",")
        rows = ctypes.c_size_t()
        _call(_lib.tf_sim_probe_rows, self._live(), ctypes.byref(rows))
        out = np.empty((rows.value, cols))
        if out.size:
            _call(_lib.tf_sim_probe_data, self._live(), _ptr(out, ctypes.c_double), out.size)
        return names, out

    @property
    def dft_frequencies(self):
        n = self._monitors()[3]
        out = np.empty(n)
        if n:
            _call(_lib.tf_sim_dft_frequencies, self._live(), _ptr(out, ctypes.c_double), n)
        return out

    def dft(self, k=0):
        """The running DFT of Ez at [monitor.dft] frequency index k, complex128."""
        re = np.empty(self._shape)
        im = np.empty(self._shape)
        _call(_lib.tf_sim_read_dft, self._live(), int(k), _ptr(re, ctypes.c_double),
              _ptr(im, ctypes.c_double), re.size)
        return re + 1j * im

    # -- state ------------------------------------------------------------
    def save(self, directory):
        """Write a checkpoint to directory/checkpoint.h5."""
        _call(_lib.tf_sim_checkpoint_save, self._live(), os.fspath(directory).encode())

    def load(self, directory):
        """Load directory/checkpoint.h5 (same grid and precision)."""
        _call(_lib.tf_sim_checkpoint_load, self._live(), os.fspath(directory).encode())

    def describe(self):
        return _text(_lib.tf_sim_describe, self._live())

    def close(self):
        """Free the engine (and its GPU context) now."""
        if self._h:
            _lib.tf_sim_destroy(self._h)
            self._h = _void_p()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def __repr__(self):
        return f"<texfdtd.Simulation {self.describe() if self._h else 'closed'}>"


# ---- sweeps: the command's `texfdtd sweep` (docs/sweeps.md) ------------------

def _command():
    env = os.environ.get("TEXFDTD_BIN")
    if env:
        return env
    here = Path(__file__).resolve().parents[2] / "bin" / "texfdtd"
    if here.exists():
        return str(here)
    found = shutil.which("texfdtd")
    if found:
        return found
    raise OSError("the texfdtd command was not found: run `make`, `make install`, or set "
                  "TEXFDTD_BIN")


def _spec(v):
    if isinstance(v, str):
        return v
    return ",".join(_value(x) for x in v)


def sweep(scene, vary, *, engine="cpu", out=None, results=None, sets=(), options=(),
          mpirun=None, quiet=True):
    """Run ``texfdtd sweep`` on the scene file ``scene``: every combination of
    ``vary`` ({key: "A:STEP:B" or a list of values}, the first key changing
    slowest), each run in ``out``/run-NNNN, and return the summary as a dict of
    columns (numbers as float arrays, text as lists): index, dir, each varied
    key, status and each result (``results``: far.backscatter, far.forward,
    flux.NAME, probe.NAME.max, steps, seconds, wall, ...).  A rerun resumes
    (finished runs are kept).  ``mpirun``: a number of ranks N >= 2 to spread
    the runs over (rank 0 hands them out, each other rank takes one GPU of
    its node).  ``sets``: --set overrides for every run; ``options``: more
    command-line options passed through (e.g. ["--precision", "double"]).
    Errors raise TexfdtdError with the command's message."""
    cmd = [_command(), "sweep", os.fspath(scene), "--engine", engine]
    for key, spec in vary.items():
        cmd += ["--vary", f"{key}={_spec(spec)}"]
    if out is not None:
        cmd += ["--out", os.fspath(out)]
    if results:
        cmd += ["--results", ",".join(results)]
    for s in sets:
        cmd += ["--set", s]
    cmd += list(options)
    if quiet:
        cmd.append("-q")
    if mpirun:
        root = ["--allow-run-as-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
        cmd = ["mpirun", *root, "-np", str(int(mpirun)), "--oversubscribe"] + cmd
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise TexfdtdError(p.stderr.strip() or f"texfdtd sweep failed (exit {p.returncode})")
    if out is None:
        out = Path("out") / ("sweep-" + Path(scene).stem)
    with open(Path(out) / "summary.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    summary = {}
    for name in (rows[0].keys() if rows else []):
        col = [r[name] for r in rows]
        try:
            summary[name] = np.array([float(x) for x in col])
        except ValueError:
            summary[name] = col
    return summary
