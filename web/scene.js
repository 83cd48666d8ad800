// scene.js - scene files for the page: the INI rules of `texfdtd run`
// (core/scene.c, which reads them with inih; docs/scenes.md), the 2D TMz
// keys the page runs, and the model the engine needs (core/model.c): the
// material map painted cell by cell (core/paint.c paint_objects, subpixel
// smoothing included), the material coefficients (paint_material_mu,
// material_coef), the source slots
// (model_index_cells), the CPML profiles (pml_point) and the plane wave
// (model_build).  Every number is computed in double, as in C, and rounded
// once to float (Math.fround, which rounds to nearest as the C cast does).

// ---- INI (inih's defaults, as Debian's libinih builds it) ------------------
// Lines; `;` or `#` at the start of a line is a comment, and `;` after a
// space or tab ends a value; [section]; `name = value` or `name: value`,
// both trimmed; a line that starts with a space or tab continues the value
// of the key above it (scene.c joins the pieces with a space).  Returns
// [{section, key, value, line}] in file order.
export function parseIni(text, file = 'scene') {
    const out = [];
    let section = '';
    let prev = null;
    const lines = text.replace(/^\ufeff/, '').split(/\r?\n/);
    for (let ln = 1; ln <= lines.length; ln++) {
        const raw = lines[ln - 1];
        let s = raw.trim();
        if (s === '' || s[0] === ';' || s[0] === '#')
            continue;
        const cut = (v) => {
            const m = /[ \t];/.exec(v);
            return (m ? v.slice(0, m.index) : v).trim();
        };
        if (prev && /^[ \t]/.test(raw) && s[0] !== '[') {
            prev.value = `${prev.value} ${cut(s)}`;
            continue;
        }
        if (s[0] === '[') {
            const end = s.indexOf(']');
            if (end < 0)
                throw new Error(`${file}:${ln}: no ']' closes the section name`);
            section = s.slice(1, end).trim();
            prev = null;
            continue;
        }
        const m = /[=:]/.exec(s);
        if (!m)
            throw new Error(`${file}:${ln}: expected 'key = value'`);
        prev = { section, key: s.slice(0, m.index).trim(), value: cut(s.slice(m.index + 1)),
            line: ln };
        out.push(prev);
    }
    return out;
}

// `--set section.key=value` on parsed entries (an empty value removes the
// key), as the command does; section names may contain dots
// (object.cylinder.radius: the key is after the last dot).
export function applySets(entries, sets) {
    for (const set of sets) {
        const eq = set.indexOf('=');
        const path = set.slice(0, eq), value = set.slice(eq + 1).trim();
        const dot = path.lastIndexOf('.');
        if (eq < 0 || dot < 0)
            throw new Error(`--set ${set}: expected SECTION.KEY=VALUE`);
        const section = path.slice(0, dot), key = path.slice(dot + 1);
        const k = entries.findIndex((e) => e.section === section && e.key === key);
        if (value === '') {
            if (k >= 0)
                entries.splice(k, 1);
        } else if (k >= 0) {
            entries[k].value = value;
        } else {
            entries.push({ section, key, value, line: 0 });
        }
    }
    return entries;
}

// ---- the scene ---------------------------------------------------------------
const GRID = { nx: null, ny: null, nz: 1, steps: null, courant: 0.5, cells_per_wavelength: 20,
    conformal_pec: false, subpixel: true, polarization: 'tm' };
const SOURCE = { type: 'plane_wave', angle: 0, amplitude: 1, ramp_periods: 1, front_offset: 0,
    waveform: 'sine', bandwidth: 1, frequency_hz: 1e9, center_x: null, center_y: null,
    pulse_width: null };
const OBJECT_KEYS = ['shape', 'material', 'eps_r', 'center_x', 'center_y', 'width', 'height',
    'radius', 'radius_x', 'radius_y', 'vertices', 'rotation'];
const BOUNDARY = { type: 'pec', cells: 10, order: 3, sigma_factor: 1, kappa_max: 1,
    alpha_max: 0 };

function num(e) {
    const v = Number(e.value);
    if (e.value === '' || !Number.isFinite(v))
        throw new Error(`line ${e.line}: ${e.section}.${e.key} = '${e.value}' is not a number`);
    return v;
}

function bool(e) {
    if (e.value === 'true')
        return true;
    if (e.value === 'false')
        return false;
    throw new Error(`line ${e.line}: ${e.section}.${e.key} takes true or false`);
}

// The scene the page runs from parsed entries; throws with the reason where
// the page cannot run it (3D, TE, point sources, table materials, ...).
// Sections the page does not use ([output], [monitor.*], [probe.*]) are
// listed in scene.ignored.
export function sceneFromEntries(entries) {
    const s = { grid: { ...GRID }, source: { ...SOURCE }, boundary: { ...BOUNDARY },
        objects: [], ignored: new Set() };
    const objects = new Map(), materials = new Map(), maps = new Map();
    let order = 0;
    s.entries = entries;
    for (const e of entries) {
        const sec = e.section;
        if (sec === 'grid' || sec === 'source' || sec === 'boundary') {
            const t = s[sec];
            if (!(e.key in t))
                throw new Error(`line ${e.line}: [${sec}] ${e.key}: the page does not run this key`);
            t[e.key] = typeof GRID[e.key] === 'boolean' ? bool(e)
                : typeof t[e.key] === 'string' ? e.value : num(e);
        } else if (sec.startsWith('object.')) {
            if (!objects.has(sec))
                objects.set(sec, { name: sec.slice(7), rotation: 0, line: e.line, order: order++ });
            const o = objects.get(sec);
            if (!OBJECT_KEYS.includes(e.key))
                throw new Error(`line ${e.line}: [${sec}] ${e.key}: the page does not run this key`);
            o[e.key] = ['shape', 'material', 'vertices'].includes(e.key) ? e.value : num(e);
        } else if (sec.startsWith('material.')) {
            // a table material: the page runs dielectrics (eps_r, sigma) and PEC
            const name = sec.slice(9);
            if (!materials.has(name))
                materials.set(name, { eps_r: 1, sigma: 0, pec: false });
            if (e.key === 'eps_r' || e.key === 'sigma')
                materials.get(name)[e.key] = num(e);
            else if (e.key === 'pec')
                materials.get(name).pec = bool(e);
            else
                throw new Error(`line ${e.line}: [${sec}] ${e.key}: the page runs dielectric `
                    + '(eps_r, sigma) and PEC materials only');
        } else if (sec.startsWith('map.')) {
            // a PNG map: its pixels come later (loadMaps), painted in file
            // order with the objects
            if (!maps.has(sec)) {
                maps.set(sec, { name: sec.slice(4), isMap: true, line: e.line, order: order++ });
            }
            const mp = maps.get(sec);
            if (!['png', 'colors', 'x0', 'y0'].includes(e.key))
                throw new Error(`line ${e.line}: [${sec}] ${e.key}: the page runs PNG maps only`);
            mp[e.key] = e.key === 'png' || e.key === 'colors' ? e.value : num(e);
        } else if (/^(output|monitor|probe)(\.|$)/.test(sec)) {
            s.ignored.add(sec.split('.')[0]);
        } else {
            throw new Error(`line ${e.line}: [${sec}]: the page does not run this section`);
        }
    }
    // table materials are dielectrics or PEC for the objects that name them
    for (const o of objects.values()) {
        const t = materials.get(o.material);
        if (t) {
            o.table = o.material;
            o.material = t.pec ? 'pec' : 'dielectric';
            o.eps_r = t.pec ? 0 : t.eps_r;
            o.sigma = t.pec ? 0 : t.sigma;
        }
        o.sigma ??= 0;
    }
    const g = s.grid;
    if (g.nx === null || g.ny === null || g.steps === null)
        throw new Error('[grid] needs nx, ny and steps');
    if (!(g.nx >= 8 && g.ny >= 8 && Number.isInteger(g.nx) && Number.isInteger(g.ny)))
        throw new Error('[grid] nx and ny must be whole numbers of at least 8');
    if (!(g.courant > 0 && g.courant <= Math.SQRT1_2))
        throw new Error(`[grid] courant = ${g.courant}: allowed above 0, at most 1/sqrt(2) in 2D`);
    if (g.nz !== 1)
        throw new Error('a 3D scene (nz > 1): the page runs 2D TMz scenes only');
    if (g.polarization !== 'tm')
        throw new Error('polarization = te: the page runs TMz only');
    const src = s.source;
    if (src.type === 'point') {
        // scene.c: a point source needs its cell; sine or gaussian
        if (src.center_x === null || src.center_y === null)
            throw new Error('[source] type = point needs center_x and center_y');
        if (!['sine', 'gaussian'].includes(src.waveform))
            throw new Error(`source.waveform = ${src.waveform}: a point source takes sine or gaussian`);
        if (src.pulse_width === null)
            src.pulse_width = g.cells_per_wavelength / g.courant / 4;
    } else if (src.type !== 'plane_wave') {
        throw new Error(`source.type = ${src.type}: plane_wave or point`);
    }
    for (const o of objects.values()) {
        if (!['pec', 'dielectric', 'vacuum'].includes(o.material))
            throw new Error(`[object.${o.name}] material = ${o.material}: the page runs pec, `
                + 'dielectric and vacuum objects only');
        if (o.material === 'dielectric' && o.eps_r === undefined)
            throw new Error(`[object.${o.name}] needs eps_r`);
        setRotation(o, o.rotation);
        if (o.shape === 'polygon') {
            const v = o.vertices.split(',').map((p) => p.trim().split(/\s+/).map(Number));
            o.vertices = v.flat();
            const n = v.length;
            o.center_x = v.reduce((a, p) => a + p[0], 0) / n;
            o.center_y = v.reduce((a, p) => a + p[1], 0) / n;
            if (o.rotated)
                for (let k = 0; k < n; k++) {
                    const dx = o.vertices[2 * k] - o.center_x, dy = o.vertices[2 * k + 1] - o.center_y;
                    o.vertices[2 * k] = o.center_x + (o.rot_cos * dx - o.rot_sin * dy);
                    o.vertices[2 * k + 1] = o.center_y + (o.rot_sin * dx + o.rot_cos * dy);
                }
        }
        // scene.c check_extent: inside the grid interior
        const { lo, hi } = bounds(o), k = interiorMargin(s);
        for (let a = 0; a < 2; a++) {
            const n = a ? g.ny : g.nx;
            if (lo[a] < k || hi[a] > n - 1 - k)
                throw new Error(`line ${o.line}: object.${o.name} spans ${'xy'[a]} = ${lo[a]} to `
                    + `${hi[a]}, outside the grid interior ${k} to ${n - 1 - k}`);
        }
        s.objects.push(o);
    }
    // maps: `colors = #rrggbb NAME, ...`, NAME pec, vacuum or a table material
    for (const mp of maps.values()) {
        if (mp.png === undefined || mp.colors === undefined || mp.x0 === undefined || mp.y0 === undefined)
            throw new Error(`line ${mp.line}: [map.${mp.name}] needs png, colors, x0 and y0`);
        mp.values = new Map();
        for (const item of mp.colors.split(',')) {
            const m = /^\s*#([0-9a-fA-F]{6})\s+(\S+)\s*$/.exec(item);
            if (!m)
                throw new Error(`line ${mp.line}: map.${mp.name}: colors entry '${item.trim()}' is not '#rrggbb NAME'`);
            const name = m[2], t = materials.get(name);
            if (name !== 'pec' && name !== 'vacuum' && !t)
                throw new Error(`line ${mp.line}: map.${mp.name}: colors: '${name}' is not pec, vacuum or a [material.NAME]`);
            mp.values.set(parseInt(m[1], 16), name === 'pec' || name === 'vacuum'
                ? { material: name, eps_r: name === 'pec' ? 0 : 1, sigma: 0 }
                : { material: t.pec ? 'pec' : 'dielectric', eps_r: t.pec ? 0 : t.eps_r,
                    sigma: t.pec ? 0 : t.sigma });
        }
        s.objects.push(mp);
    }
    s.objects.sort((a, b) => a.order - b.order);
    return s;
}

// scene.c set_rotation: exact at multiples of 90 degrees.
function setRotation(o, deg) {
    let r = deg % 360;
    if (r < 0)
        r += 360;
    o.rotated = r !== 0;
    const c4 = [1, 0, -1, 0], s4 = [0, 1, 0, -1];
    if (r === 0 || r === 90 || r === 180 || r === 270) {
        o.rot_cos = c4[r / 90];
        o.rot_sin = s4[r / 90];
    } else {
        o.rot_cos = Math.cos(r * Math.PI / 180);
        o.rot_sin = Math.sin(r * Math.PI / 180);
    }
}

export function loadScene(text, sets = [], file = 'scene') {
    return sceneFromEntries(applySets(parseIni(text, file), sets));
}

// The pixels of the scene's PNG maps: `file(name)` gives the file named
// beside the scene file as a Blob, `decode(blob)` its pixels {w, h, rgba}
// (the browser's image decoder, without colour conversion: main.js).
export async function loadMaps(scene, file, decode) {
    for (const o of scene.objects)
        if (o.isMap)
            Object.assign(o, await decode(await file(o.png)));
    return scene;
}

// ---- painting (core/paint.c) -------------------------------------------------
function polygonInside(v, x, y) {
    let inside = false;
    const n = v.length / 2;
    for (let a = 0, b = n - 1; a < n; b = a++) {
        const xa = v[2 * a], ya = v[2 * a + 1], xb = v[2 * b], yb = v[2 * b + 1];
        if (y >= Math.min(ya, yb) && y <= Math.max(ya, yb) && x >= Math.min(xa, xb)
            && x <= Math.max(xa, xb) && (xb - xa) * (y - ya) === (yb - ya) * (x - xa))
            return true;
        if ((ya > y) !== (yb > y)) {
            const xc = xa + (y - ya) * (xb - xa) / (yb - ya);
            if (x < xc)
                inside = !inside;
        }
    }
    return inside;
}

export function inside(o, x, y) {
    const dx = x - o.center_x, dy = y - o.center_y;
    const lx = o.rotated ? o.rot_cos * dx + o.rot_sin * dy : dx;
    const ly = o.rotated ? -o.rot_sin * dx + o.rot_cos * dy : dy;
    switch (o.shape) {
    case 'rectangle':
        return Math.abs(lx) <= 0.5 * o.width && Math.abs(ly) <= 0.5 * o.height;
    case 'circle':
        return dx * dx + dy * dy <= o.radius * o.radius;
    case 'ellipse': {
        const sy = ly * (o.radius_x / o.radius_y);
        return lx * lx + sy * sy <= o.radius_x * o.radius_x;
    }
    case 'polygon':
        return polygonInside(o.vertices, x, y);
    default:
        throw new Error(`[object.${o.name}] shape = ${o.shape}: not a 2D shape`);
    }
}

export const KIND_VACUUM = 0, KIND_PEC = 1, KIND_DIELECTRIC = 2;

const EPS0 = 8.8541878128e-12, C0 = 299792458.0; /* MATERIAL_EPS0, scene.c C0 */

// scene.c scene_dt: the time step in seconds
export function sceneDt(g, src) {
    return g.courant * (C0 / (src.frequency_hz * g.cells_per_wavelength)) / C0;
}

// paint_material_mu: the table entry of (kind, eps_r, sigma), added on
// first use; index 0 is vacuum.  A lossy one (sigma in S/m, dt the step in
// s) takes material_coef's Crank-Nicolson coefficients ca, cb and its
// incident terms cinc_diff, cinc_sum; a lossless one ca = 1, cb = S/eps_r.
export function materialIndex(mats, kind, eps, S, sigma = 0, dt = 0) {
    const k = mats.findIndex((t) => t.kind === kind && t.eps_r === eps && t.sigma === sigma);
    if (k >= 0)
        return k;
    if (mats.length === 256)
        throw new Error('more than 256 distinct materials');
    const cezh = kind === KIND_PEC ? 0 : S / eps;
    const t = { kind, eps_r: eps, sigma: kind === KIND_PEC ? 0 : sigma, cezh,
        cinc: kind === KIND_DIELECTRIC ? -(1 - 1 / eps) : 0, ca: 1, cb: cezh,
        cinc_diff: 0, cinc_sum: 0 };
    if (t.sigma !== 0) {
        const sp = t.sigma * dt / (2.0 * EPS0), s = sp / eps, den = eps + sp;
        t.ca = (1.0 - s) / (1.0 + s);
        t.cb = (S / eps) / (1.0 + s);
        t.cinc_diff = -(eps - 1.0) / den;
        t.cinc_sum = -sp / den;
    }
    t.ca_f = Math.fround(t.ca);
    t.cb_f = Math.fround(t.cb);
    mats.push(t);
    return mats.length - 1;
}

// ---- subpixel smoothing (core/paint.c paint_smoothed, TMz) ------------------
const SAMPLES = 16, LEVELS = 64; /* PAINT_SUBPIXEL_SAMPLES, _LEVELS */

// scene.c scene_object_bounds, 2D
function bounds(o) {
    const ac = Math.abs(o.rot_cos), as = Math.abs(o.rot_sin);
    let hx = o.radius, hy = o.radius;
    if (o.shape === 'rectangle') {
        hx = 0.5 * o.width;
        hy = 0.5 * o.height;
        if (o.rotated) {
            hx = ac * 0.5 * o.width + as * 0.5 * o.height;
            hy = as * 0.5 * o.width + ac * 0.5 * o.height;
        }
    } else if (o.shape === 'ellipse') {
        hx = o.radius_x;
        hy = o.radius_y;
        if (o.rotated) {
            hx = Math.sqrt(o.radius_x * o.radius_x * ac * ac + o.radius_y * o.radius_y * as * as);
            hy = Math.sqrt(o.radius_x * o.radius_x * as * as + o.radius_y * o.radius_y * ac * ac);
        }
    }
    const lo = [o.center_x - hx, o.center_y - hy], hi = [o.center_x + hx, o.center_y + hy];
    if (o.rotated && o.shape !== 'polygon' && ac !== 0 && as !== 0)
        for (let a = 0; a < 2; a++) {
            lo[a] -= 1e-9 * (1 + Math.abs(lo[a]));
            hi[a] += 1e-9 * (1 + Math.abs(hi[a]));
        }
    if (o.shape === 'polygon')
        for (let k = 0; k < o.vertices.length / 2; k++)
            for (let a = 0; a < 2; a++) {
                const v = o.vertices[2 * k + a];
                lo[a] = k === 0 || v < lo[a] ? v : lo[a];
                hi[a] = k === 0 || v > hi[a] ? v : hi[a];
            }
    return { lo, hi };
}

function segmentDistance(x, y, xa, ya, xb, yb) {
    const ex = xb - xa, ey = yb - ya, l2 = ex * ex + ey * ey;
    let t = l2 > 0 ? ((x - xa) * ex + (y - ya) * ey) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return Math.hypot(x - (xa + t * ex), y - (ya + t * ey));
}

// paint.c near_boundary: false when o's boundary stays farther than r
function nearBoundary(o, x, y, r) {
    const dx = x - o.center_x, dy = y - o.center_y;
    const lx = o.rotated ? o.rot_cos * dx + o.rot_sin * dy : dx;
    const ly = o.rotated ? -o.rot_sin * dx + o.rot_cos * dy : dy;
    switch (o.shape) {
    case 'circle':
        return Math.abs(Math.sqrt(dx * dx + dy * dy) - o.radius) <= r;
    case 'ellipse': {
        const q = Math.hypot(lx / o.radius_x, ly / o.radius_y);
        return Math.abs(q - 1) * Math.min(o.radius_x, o.radius_y) <= r;
    }
    case 'rectangle': {
        const hx = 0.5 * o.width, hy = 0.5 * o.height;
        const deep = Math.abs(lx) < hx - r && Math.abs(ly) < hy - r;
        const far = Math.abs(lx) > hx + r || Math.abs(ly) > hy + r;
        return !deep && !far;
    }
    case 'polygon': {
        const v = o.vertices, n = v.length / 2;
        for (let a = 0, b = n - 1; a < n; b = a++)
            if (segmentDistance(x, y, v[2 * a], v[2 * a + 1], v[2 * b], v[2 * b + 1]) <= r)
                return true;
        return false;
    }
    default:
        return true;
    }
}

// paint.c disc_arc and disc_box_area: the exact area of the disc of radius
// r about the origin within [x0, x1] x [y0, y1]
function discArc(r, ta, tb) {
    const ha = Math.sqrt(Math.max(0, (r - ta) * (r + ta)));
    const hb = Math.sqrt(Math.max(0, (r - tb) * (r + tb)));
    const z = (tb * ha - ta * hb) / (r * r);
    return 0.5 * (tb * hb - ta * ha + r * r * Math.asin(Math.min(1, z)));
}

function discBoxArea(r, x0, x1, y0, y1) {
    const lo = Math.max(x0, -r), hi = Math.min(x1, r);
    if (!(lo < hi) || y0 >= r || y1 <= -r)
        return 0;
    const t = [lo, hi];
    if (lo < 0 && hi > 0)
        t.push(0);
    for (const y of [y0, y1])
        if (Math.abs(y) < r) {
            const x = Math.sqrt(r * r - y * y);
            if (-x > lo && -x < hi)
                t.push(-x);
            if (x > lo && x < hi)
                t.push(x);
        }
    t.sort((a, b) => a - b);
    let area = 0;
    for (let k = 0; k + 1 < t.length; k++) {
        const ta = t[k], tb = t[k + 1], m = 0.5 * (ta + tb);
        const h = Math.sqrt(Math.max(0, r * r - m * m));
        const topSide = y1 < h, bottomSide = y0 > -h;
        if ((topSide ? y1 : h) <= (bottomSide ? y0 : -h))
            continue;
        const arc = discArc(r, ta, tb);
        area += (topSide ? y1 * (tb - ta) : arc) - (bottomSide ? y0 * (tb - ta) : -arc);
    }
    return area;
}

// paint.c exact_cover: -1 where the cover is sampled instead
function exactCover(o, x, y) {
    const x0 = x - 0.5 - o.center_x, y0 = y - 0.5 - o.center_y;
    if (o.shape === 'circle')
        return discBoxArea(o.radius, x0, x0 + 1, y0, y0 + 1);
    if (o.shape === 'ellipse' && o.radius_x === o.radius_y)
        return discBoxArea(o.radius_x, x0, x0 + 1, y0, y0 + 1);
    if (o.shape === 'ellipse' && !o.rotated) {
        const k = o.radius_x / o.radius_y;
        return discBoxArea(o.radius_x, x0, x0 + 1, k * y0, k * (y0 + 1)) / k;
    }
    if (o.shape === 'rectangle' && !o.rotated) {
        const hx = 0.5 * o.width, hy = 0.5 * o.height;
        const ox = Math.min(x0 + 1, hx) - Math.max(x0, -hx), oy = Math.min(y0 + 1, hy) - Math.max(y0, -hy);
        return ox > 0 && oy > 0 ? ox * oy : 0;
    }
    return -1;
}

// paint.c paint_cover_levels: the cell's covered fraction in 64ths, rounded
function coverLevels(o, i, j) {
    let f;
    if (!nearBoundary(o, i, j, 0.75)) {
        f = inside(o, i, j) ? 1 : 0;
    } else {
        f = exactCover(o, i, j);
        if (f >= 0) {
            f = Math.min(f, 1);
        } else {
            let n = 0;
            for (let b = 0; b < SAMPLES; b++)
                for (let a = 0; a < SAMPLES; a++)
                    n += inside(o, i - 0.5 + (a + 0.5) / SAMPLES, j - 0.5 + (b + 0.5) / SAMPLES) ? 1 : 0;
            f = n / (SAMPLES * SAMPLES);
        }
    }
    return Math.round(f * LEVELS); /* lround: f >= 0 */
}

// paint.c paint_smoothed for a dielectric (lossy or not) over vacuum, dielectrics
// or PEC: a boundary cell takes eps = w eps_o + (1 - w) eps_under and sigma
// likewise, w its cover in 64ths (material_mix); a cell under PEC only where
// its node is in.
function paintSmoothed(o, full, mat, mats, nx, ny, S, dt) {
    const { lo, hi } = bounds(o);
    const i0 = Math.ceil(lo[0]), i1 = Math.floor(hi[0]), j0 = Math.ceil(lo[1]), j1 = Math.floor(hi[1]);
    const epsO = mats[full].eps_r, sigO = mats[full].sigma;
    for (let j = j0 - 1; j <= j1 + 1; j++)
        for (let i = i0 - 1; i <= i1 + 1; i++) {
            if (i < 0 || j < 0 || i >= nx || j >= ny)
                continue;
            const f = coverLevels(o, i, j), c = i + nx * j, under = mats[mat[c]];
            if (f === 0)
                continue;
            if (f === LEVELS || under.kind === KIND_PEC) {
                if (f < LEVELS && !inside(o, i, j))
                    continue;
                mat[c] = full;
                continue;
            }
            const w = f / LEVELS;
            const eps = w * epsO + (1 - w) * under.eps_r, sig = w * sigO + (1 - w) * under.sigma;
            mat[c] = eps === 1 && sig === 0 ? 0 : materialIndex(mats, KIND_DIELECTRIC, eps, S, sig, dt);
        }
}

// paint.c paint_map: one material per pixel, pixel (c, r from the top) at
// cell (x0 + c, y0 + h - 1 - r); o.rgba from loadMaps.
function paintMap(o, mat, mats, nx, ny, S, dt) {
    if (!o.rgba)
        throw new Error(`map.${o.name}: its PNG has not been read`);
    const idx = new Map();
    for (const [rgb, t] of o.values)
        idx.set(rgb, t.material === 'vacuum' ? 0 : materialIndex(mats,
            t.material === 'pec' ? KIND_PEC : KIND_DIELECTRIC, t.eps_r, S, t.sigma, dt));
    const { w, h, rgba } = o;
    if (o.x0 < 0 || o.y0 < 0 || o.x0 + w > nx || o.y0 + h > ny)
        throw new Error(`map.${o.name}: ${o.png} (${w} x ${h}) does not fit the grid at (${o.x0}, ${o.y0})`);
    for (let r = 0; r < h; r++)
        for (let c = 0; c < w; c++) {
            const p = 4 * (r * w + c), rgb = (rgba[p] << 16) | (rgba[p + 1] << 8) | rgba[p + 2];
            const k = idx.get(rgb);
            if (k === undefined)
                throw new Error(`map.${o.name}: pixel (${c}, ${r}) of ${o.png} has colour `
                    + `#${rgb.toString(16).padStart(6, '0')}, which colors does not map`);
            mat[o.x0 + c + nx * (o.y0 + h - 1 - r)] = k;
        }
}

// The material map of the scene's objects (core/paint.c paint_objects): a
// cell belongs to an object when its node (i, j) is inside; with
// [grid] subpixel (the default) a dielectric object's boundary cells take
// the mean eps of their area.  (`conformal_pec`, the command's conformal
// PEC boundary, the page does not run: it paints PEC as a staircase and says
// so.)
export function paint(scene, mats) {
    const { nx, ny, courant: S } = scene.grid, dt = sceneDt(scene.grid, scene.source);
    const mat = new Uint8Array(nx * ny);
    for (const o of scene.objects) {
        if (o.isMap) {
            paintMap(o, mat, mats, nx, ny, S, dt);
            continue;
        }
        const idx = o.material === 'vacuum' ? 0
            : materialIndex(mats, o.material === 'pec' ? KIND_PEC : KIND_DIELECTRIC,
                o.material === 'pec' ? 0 : o.eps_r, S, o.material === 'pec' ? 0 : o.sigma, dt);
        if (scene.grid.subpixel && o.material === 'dielectric') {
            paintSmoothed(o, idx, mat, mats, nx, ny, S, dt);
            continue;
        }
        for (let j = 0; j < ny; j++)
            for (let i = 0; i < nx; i++)
                if (inside(o, i, j))
                    mat[i + nx * j] = idx;
    }
    return mat;
}

// ---- CPML profiles (core/model.c pml_point), double, rounded once ---------
function pmlPoint(b, n, x) {
    const N = b.cells;
    let rho = 0;
    if (x < N)
        rho = (N - x) / N;
    else if (x > n - 1 - N)
        rho = (x - (n - 1 - N)) / N;
    rho = rho > 1 ? 1 : rho;
    const m = b.order;
    const sigma = b.sigma_factor * 0.8 * (m + 1) * b.courant * Math.pow(rho, m);
    const kappa = 1 + (b.kappa_max - 1) * Math.pow(rho, m);
    const alpha = b.alpha_max * (1 - rho);
    const bb = Math.exp(-(sigma / kappa + alpha));
    const c = sigma > 0 ? sigma * (bb - 1) / (sigma * kappa + kappa * kappa * alpha) : 0;
    return [bb, c, 1 / kappa];
}

// (b, c, ik) of positions 0 .. n-1 (+ offset) as float triples.
function pmlAxis(b, n, offset) {
    const out = new Float32Array(3 * n);
    for (let i = 0; i < n; i++)
        out.set(pmlPoint(b, n, i + offset).map(Math.fround), 3 * i);
    return out;
}

// ---- the model -----------------------------------------------------------------
// {nx, ny, S, mats, mat, slots (cells), nslots, pml (null or {n, xe, xh, ye,
// yh}), mur_k_f, wave (incident.h's struct inc_wave)}.  `mat` may be given
// (a painted map) instead of painting the scene's objects.
export function buildModel(scene, inc, mat = null, mats = null) {
    const { nx, ny, courant: S, cells_per_wavelength: cpw } = scene.grid;
    if (!mats) {
        mats = [];
        materialIndex(mats, KIND_VACUUM, 1, S);
    }
    if (!mat)
        mat = paint(scene, mats);
    const slots = [];
    for (let c = 0; c < nx * ny; c++)
        if (mat[c] !== 0)
            slots.push(c);
    const b = { ...scene.boundary, courant: S };
    const pml = b.type === 'cpml' ? {
        n: b.cells, xe: pmlAxis(b, nx, 0), xh: pmlAxis(b, nx, 0.5),
        ye: pmlAxis(b, ny, 0), yh: pmlAxis(b, ny, 0.5),
    } : null;
    // model_build: the plane wave
    const src = scene.source;
    const th = src.angle * Math.PI / 180;
    const cos_t = Math.cos(th), sin_t = Math.sin(th);
    let d0 = Infinity;
    for (const x of [0, nx - 1])
        for (const y of [0, ny - 1])
            d0 = Math.min(d0, x * cos_t + y * sin_t);
    const ramp_steps = src.ramp_periods * cpw / S;
    const f0 = S / cpw;
    let pulse_tau = 0;
    if (src.waveform === 'gaussian')
        pulse_tau = Math.sqrt(Math.log(2)) / (Math.PI * src.bandwidth * f0);
    else if (src.waveform === 'modulated_gaussian')
        pulse_tau = 2 * Math.sqrt(Math.log(2)) / (Math.PI * src.bandwidth * f0);
    else if (src.waveform === 'ricker')
        pulse_tau = 1 / (Math.PI * f0);
    const waveforms = { sine: 0, gaussian: 1, modulated_gaussian: 2, ricker: 3 };
    if (!(src.waveform in waveforms))
        throw new Error(`source.waveform = ${src.waveform}: unknown`);
    const point = src.type === 'point';
    const wave = {
        kind: point ? inc.INC_NONE : inc.INC_PLANE, waveform: waveforms[src.waveform], cos_t, sin_t,
        d0: d0 + src.front_offset, omega_dt: 2 * Math.PI * S / cpw, amplitude: src.amplitude,
        pulse_t0: 5 * pulse_tau, inv_courant: 1 / S, inv_ramp: ramp_steps > 0 ? 1 / ramp_steps : 0,
        inv_pulse_tau: pulse_tau > 0 ? 1 / pulse_tau : 0, ramp_steps,
    };
    return { nx, ny, S, ch_f: Math.fround(S), mats, mat, slots, pml,
        lossy: mats.some((t) => t.sigma !== 0),
        mur: b.type === 'mur', mur_k_f: Math.fround((S - 1) / (S + 1)), wave,
        // model_point_cell (lround of a coordinate >= 1)
        point: point ? { i: Math.round(src.center_x), j: Math.round(src.center_y),
            gaussian: src.waveform === 'gaussian', width: src.pulse_width } : null };
}

// model_point_value: the soft point source's value for the update n -> n+1
// (libm's exp and sin in C, JavaScript's here: within an ulp of each other
// in double, the same float but for a double within an ulp of a rounding
// boundary).
export function pointValue(model, n) {
    const p = model.point, w = model.wave, t = n + 1;
    if (p.gaussian) {
        const a = (t - 4 * p.width) / p.width;
        return w.amplitude * Math.exp(-a * a);
    }
    const r = w.ramp_steps > 0 && t < w.ramp_steps ? t / w.ramp_steps : 1;
    return w.amplitude * r * Math.sin(w.omega_dt * t);
}

// This step's slot values (model_slot_values_f: core/incident.h
// inc_eslot_value, in double, rounded once), for the update n -> n+1.
export function slotValues(model, inc, n, out) {
    const { nx, mats, mat, slots, wave } = model;
    for (let k = 0; k < slots.length; k++) {
        const c = slots[k];
        const t = mats[mat[c]];
        out[k] = inc.inc_eslot_value(wave, t.kind === KIND_PEC ? 1 : 0, t.sigma !== 0 ? 1 : 0,
            t.cinc, t.cinc_diff, t.cinc_sum, c % nx, Math.floor(c / nx), n);
    }
    return out;
}

// ---- painting by hand, and the scene file that takes it to the command ----
// scene.c scene_interior_margin: where objects and maps may lie.
export function interiorMargin(scene) {
    const b = scene.boundary;
    return b.type === 'cpml' ? b.cells + 1 : b.type === 'mur' ? 2 : 1;
}

// A disc of radius r (cells) around (x, y) into the map `mat`, material
// index idx, inside the interior only.  Returns whether a cell changed.
export function paintDisc(scene, mat, x, y, r, idx) {
    const { nx, ny } = scene.grid, g = interiorMargin(scene);
    let changed = false;
    for (let j = Math.max(g, Math.ceil(y - r)); j <= Math.min(ny - 1 - g, Math.floor(y + r)); j++)
        for (let i = Math.max(g, Math.ceil(x - r)); i <= Math.min(nx - 1 - g, Math.floor(x + r)); i++)
            if ((i - x) * (i - x) + (j - y) * (j - y) <= r * r && mat[i + nx * j] !== idx) {
                mat[i + nx * j] = idx;
                changed = true;
            }
    return changed;
}

// core/matmap_write.c material_colors: vacuum white, PEC black, dielectrics
// from blue (low eps_r) to red (high), each distinct.
export function materialColors(mats) {
    const order = mats.map((t, k) => k).filter((k) => mats[k].kind === KIND_DIELECTRIC)
        .sort((a, b) => mats[a].eps_r - mats[b].eps_r || a - b);
    const col = mats.map((t) => (t.kind === KIND_PEC ? 0x000000 : 0xffffff));
    const nd = order.length;
    for (let r = 0; r < nd; r++) {
        const t = nd > 1 ? r / (nd - 1) : 0;
        let c = (Math.round(40 + 200 * t) << 16) | (Math.round(90 + 60 * (1 - Math.abs(2 * t - 1))) << 8)
            | Math.round(230 - 200 * t);
        for (let q = 0; q < r + 2;) {
            const other = q === 0 ? 0xffffff : q === 1 ? 0x000000 : col[order[q - 2]];
            if (c === other) {
                c = (c + 0x010203) & 0xffffff;
                q = 0;
            } else {
                q++;
            }
        }
        col[order[r]] = c;
    }
    return col;
}

const hex = (c) => '#' + c.toString(16).padStart(6, '0');

// The whole material map as a scene file and a PNG, as `texfdtd run
// --geometry` writes them (core/matmap_write.c): the interior as
// pngName (RGBA pixels, row 0 at the top), [material.mK] per dielectric,
// [map.geometry] painting it back, and the scene's other sections as they
// were loaded (its objects are in the map now).  Returns {ini, rgba, w, h}.
export function exportScene(scene, model, pngName, title) {
    const { nx, ny } = scene.grid, g = interiorMargin(scene);
    const w = nx - 2 * g, h = ny - 2 * g;
    const col = materialColors(model.mats);
    const rgba = new Uint8ClampedArray(4 * w * h);
    const used = new Set([0]);
    for (let j = 0; j < h; j++)
        for (let i = 0; i < w; i++) {
            const k = model.mat[(i + g) + nx * (j + g)], c = col[k];
            used.add(k);
            rgba.set([c >> 16, (c >> 8) & 255, c & 255, 255], 4 * ((h - 1 - j) * w + i));
        }
    const lines = [`; ${title}`, '; exported by the texfdtd web page (web/): the material map is',
        `; ${pngName}, one pixel a cell, +y up; run it with  texfdtd run THIS_FILE`];
    let section = null;
    for (const e of scene.entries) {
        if (/^(object|material|map)\./.test(e.section))
            continue;
        if (e.section !== section) {
            section = e.section;
            lines.push('', `[${section}]`);
        }
        lines.push(`${e.key} = ${e.value}`);
    }
    const names = model.mats.map((t, k) => (t.kind === KIND_PEC ? 'pec'
        : t.kind === KIND_VACUUM ? 'vacuum' : `m${k}`));
    model.mats.forEach((t, k) => {
        if (t.kind === KIND_DIELECTRIC && used.has(k))
            lines.push('', `[material.m${k}]`, `eps_r = ${t.eps_r}`,
                ...(t.sigma !== 0 ? [`sigma = ${t.sigma}`] : []));
    });
    const colors = [...used].sort((a, b) => a - b).map((k) => `${hex(col[k])} ${names[k]}`);
    lines.push('', '[map.geometry]', `png = ${pngName}`, `x0 = ${g}`, `y0 = ${g}`,
        // one colour a line, each continuation line starting with a name (inih)
        `colors = ${colors.map((c) => c.replace(' ', '\n    ')).join(',')}`, '');
    return { ini: lines.join('\n'), rgba, w, h };
}
