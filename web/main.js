// main.js - the page: scene presets, the controls, the two panels and the
// pass table, around the engine of engine.js.  The page is served from the
// repository root (`make web`), so it fetches core/, shaders/ and scenes/
// as they are in the source tree.
//
// For tests (tests/web/run.mjs) the page exposes window.texfdtd: load(),
// step(), readFields() (base64 of the float32 arrays) and pictures().

import { Engine } from './engine.js';
import { load as loadIncident } from './incident.js';
import { loadScene, loadMaps, buildModel, materialIndex, paintDisc, exportScene, KIND_PEC,
    KIND_DIELECTRIC, KIND_VACUUM } from './scene.js';

const ROOT = new URL('..', location.href).href;
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

let engine = null, inc = null, scene = null, sceneName = '', sets = [];
let running = false, frameSteps = 1;
let lastRate = null;
let painted = false; /* the map has been painted by hand */

function status(msg, isError = false) {
    $('status').textContent = msg;
    $('status').style.color = isError ? '#a00' : '#444';
}

// scenes/*.ini from the server's directory listing (python's http.server),
// or the page's own scene where there is no listing.
async function presets() {
    try {
        const r = await fetch(ROOT + 'scenes/');
        const html = await r.text();
        const names = [...html.matchAll(/href="([^"/]+\.ini)"/g)].map((m) => decodeURIComponent(m[1]));
        if (names.length)
            return names.sort();
    } catch (e) { /* no listing */ }
    return ['web_cylinder.ini'];
}

// the diverging map of core/colormap.c, as the colour-map pass draws it
function drawScale() {
    const c = $('scale').getContext('2d'), w = $('scale').width;
    const LOW = [59, 76, 192], MID = [242, 242, 242], HIGH = [180, 4, 38];
    for (let x = 0; x < w; x++) {
        const v = (x + 0.5) / w * 2 - 1;
        const rgb = v < 0 ? LOW.map((l, k) => l + (MID[k] - l) * (v + 1))
            : MID.map((m, k) => m + (HIGH[k] - m) * v);
        c.fillStyle = `rgb(${rgb.map(Math.round).join(',')})`;
        c.fillRect(x, 0, 1, 12);
    }
}

// RGBA pixels with row 0 at the bottom (+y up, as the command's PNGs) into a canvas
function blit(canvas, px, nx, ny) {
    canvas.width = nx;
    canvas.height = ny;
    const img = new ImageData(nx, ny);
    for (let j = 0; j < ny; j++)
        img.data.set(px.subarray(4 * nx * j, 4 * nx * (j + 1)), 4 * nx * (ny - 1 - j));
    canvas.getContext('2d').putImageData(img, 0, 0);
}

function show() {
    const m = engine.model;
    blit($('ez'), engine.render('ez'), m.nx, m.ny);
    blit($('h'), engine.render('h'), m.nx, m.ny);
    $('counter').textContent = engine.half ? `${engine.n} + H` : `${engine.n}`;
    const a = 'AB'[engine.cur], b = 'AB'[1 - engine.cur];
    $('ez-tex').textContent = `Ez textures A, B (R32F): the present field is in ${a}`;
    $('h-tex').textContent = engine.half
        ? `H textures A, B (RG32F): the new H is in ${b}, the E pass comes next`
        : `H textures A, B (RG32F): the present field is in ${a}`;
    const body = $('passes').querySelector('tbody');
    body.innerHTML = '';
    for (const p of engine.passes) {
        const tr = document.createElement('tr');
        const cells = [p.pass === 'H' ? 'H (update_h.frag)' : 'E (update_e_es.frag)',
            p.reads.join(', '), p.writes];
        for (const t of cells) {
            const td = document.createElement('td');
            td.textContent = t;
            tr.appendChild(td);
        }
        body.appendChild(tr);
    }
    $('speed').textContent = lastRate === null ? '-' : lastRate.toFixed(1);
}

// opts: engine options (engine.js load), from the URL (?flush=glsl,
// ?fma_barrier=0) or a test
const urlOpts = {
    emulateFlush: params.get('flush') === 'glsl',
    fmaBarrier: params.get('fma_barrier') !== '0',
};

// A file of scenes/ on the server, as a Blob.
async function serverFile(name) {
    const r = await fetch(ROOT + 'scenes/' + name);
    if (!r.ok)
        throw new Error(`cannot fetch scenes/${name}: ${r.status}`);
    return r.blob();
}

// Files opened by the user (Open), by name: a function as serverFile.
function openedFiles(files) {
    const byName = new Map(files.map((f) => [f.name, f]));
    return (name) => {
        const f = byName.get(name);
        return f ? Promise.resolve(f)
            : Promise.reject(new Error(`${name}: open it together with the scene file`));
    };
}
let sceneFile = serverFile; /* where the running scene's files come from */

// keep: the present material map (painted by hand) instead of the scene's.
// file: where the scene file `name` and its maps come from.
async function load(name, extraSets = [], opts = urlOpts, keep = false, file = sceneFile) {
    running = false;
    const kept = keep && engine.model ? { mat: engine.model.mat, mats: engine.model.mats } : null;
    // a scene the page refuses leaves the one that runs as it is
    const sc = await loadMaps(loadScene(await (await file(name)).text(), extraSets, name),
        file, decodePng);
    const model = kept ? buildModel(sc, inc, kept.mat.slice(), kept.mats.slice())
        : buildModel(sc, inc);
    await engine.load(ROOT, model, inc, opts);
    scene = sc;
    sceneName = name;
    sceneFile = file;
    sets = extraSets;
    painted = painted && !!kept;
    lastRate = null;
    const notes = [];
    notes.push(`${model.nx} x ${model.ny} cells, ${model.mats.length} materials, `
        + `${model.slots.length} source slots, boundary ${scene.boundary.type}.`);
    notes.push(engine.emulateFlush
        ? 'This browser keeps denormals: the shaders flush them (F() of the prelude), as the cpu engine\'s FTZ/DAZ does.'
        : 'This browser flushes denormals, as the cpu engine\'s FTZ/DAZ does.');
    if (scene.grid.conformal_pec)
        notes.push('The page paints PEC objects as staircases: the command gives this scene '
            + 'a conformal PEC boundary (conformal_pec), so its fields differ near them.');
    if (scene.ignored.size)
        notes.push(`Not used by the page: [${[...scene.ignored].join('], [')}].`);
    $('notes').textContent = notes.join(' ');
    status(`${file === serverFile ? 'scenes/' : 'opened: '}${name}${sets.length ? ' with ' + sets.join(' ') : ''}`);
    show();
}

// A PNG's pixels as they are in the file (no colour management, alpha
// ignored by the map): {w, h, rgba}, rows from the top.
async function decodePng(blob) {
    const bmp = await createImageBitmap(blob, { colorSpaceConversion: 'none', premultiplyAlpha: 'none' });
    const c = document.createElement('canvas');
    c.width = bmp.width;
    c.height = bmp.height;
    const g = c.getContext('2d', { willReadFrequently: true });
    g.drawImage(bmp, 0, 0);
    return { w: bmp.width, h: bmp.height, rgba: g.getImageData(0, 0, bmp.width, bmp.height).data };
}

// ---- painting by hand ----------------------------------------------------------
// The cell under a mouse event on a picture (+y up).
function cellAt(canvas, ev) {
    const r = canvas.getBoundingClientRect(), m = engine.model;
    return [(ev.clientX - r.left) / r.width * m.nx - 0.5,
        (1 - (ev.clientY - r.top) / r.height) * m.ny - 0.5];
}

// Paint a disc of the brush's material at cell (x, y); the fields go on.
function paintAt(x, y, radius, brush, eps) {
    const m = engine.model;
    const mats = m.mats.slice(), mat = m.mat.slice();
    const kind = brush === 'pec' ? KIND_PEC : brush === 'dielectric' ? KIND_DIELECTRIC : KIND_VACUUM;
    if (kind === KIND_DIELECTRIC && !(eps >= 1 && eps <= 1e4))
        throw new Error('eps_r must lie in 1 ... 10^4');
    const idx = kind === KIND_VACUUM ? 0 : materialIndex(mats, kind, kind === KIND_PEC ? 0 : eps, m.S);
    if (paintDisc(scene, mat, x, y, radius, idx)) {
        engine.setMap(mat, mats);
        painted = true;
    }
}

function hookPainting(canvas) {
    let down = false;
    const paint = (ev) => {
        const [x, y] = cellAt(canvas, ev);
        try {
            paintAt(x, y, Number($('radius').value), $('brush').value, Number($('eps').value));
        } catch (e) {
            status(e.message, true);
        }
        if (!running)
            show();
    };
    canvas.addEventListener('mousedown', (ev) => { down = true; paint(ev); });
    canvas.addEventListener('mousemove', (ev) => { if (down) paint(ev); });
    window.addEventListener('mouseup', () => { down = false; });
}

// The scene file and the PNG of the material map (scene.js exportScene);
// the PNG from a canvas (exact colours: every pixel opaque).
async function exportFiles() {
    const base = sceneName.replace(/\.ini$/, '') + '_painted';
    const e = exportScene(scene, engine.model, `${base}.png`,
        `scenes/${sceneName}${painted ? ', painted by hand' : ''}`);
    const c = document.createElement('canvas');
    c.width = e.w;
    c.height = e.h;
    c.getContext('2d').putImageData(new ImageData(e.rgba, e.w, e.h), 0, 0);
    const png = await new Promise((res) => c.toBlob(res, 'image/png'));
    return { name: base, ini: e.ini, png };
}

async function offerDownloads() {
    const f = await exportFiles();
    const d = $('downloads');
    d.innerHTML = '';
    for (const [name, blob] of [[`${f.name}.ini`, new Blob([f.ini], { type: 'text/plain' })],
        [`${f.name}.png`, f.png]]) {
        const a = document.createElement('a');
        a.href = URL.createObjectURL(blob);
        a.download = name;
        a.textContent = name;
        d.append(a, ' ');
    }
    status(`exported: save both files in one folder, then  texfdtd run ${f.name}.ini`);
}

// One frame of Run: some steps, then the pictures.  The Mcells/s are those
// of the steps alone (timed to a one-texel readback that waits for them),
// the frame's steps chosen so that they take about 20 ms.
function frame() {
    if (!running)
        return;
    const t0 = performance.now();
    engine.step(frameSteps);
    engine.finish();
    const t1 = performance.now();
    show();
    const m = engine.model, dt = Math.max(t1 - t0, 0.01);
    lastRate = m.nx * m.ny * frameSteps / dt / 1e3;
    frameSteps = Math.max(1, Math.min(500, Math.round(frameSteps * 20 / dt)));
    if (engine.n >= scene.grid.steps) {
        running = false;
        status(`done: ${engine.n} steps (the scene's [grid] steps)`);
    }
    requestAnimationFrame(frame);
}

async function main() {
    drawScale();
    const canvas = document.createElement('canvas');
    const gl = canvas.getContext('webgl2', { antialias: false, preserveDrawingBuffer: false });
    if (!gl)
        throw new Error('this browser has no WebGL2');
    engine = new Engine(gl);
    inc = await loadIncident(ROOT);
    const names = await presets();
    const sel = $('preset');
    for (const n of names) {
        const o = document.createElement('option');
        o.value = o.textContent = n;
        sel.appendChild(o);
    }
    const first = params.get('scene') || 'web_cylinder.ini';
    sel.value = first;
    sel.onchange = () => load(sel.value, [], urlOpts, false, serverFile).catch((e) => {
        status(`scenes/${sel.value}: ${e.message}`, true);
        sel.value = sceneName;
    });
    $('run').onclick = () => {
        if (!running) {
            running = true;
            requestAnimationFrame(frame);
        }
    };
    $('pause').onclick = () => { running = false; };
    $('step').onclick = () => { running = false; engine.singlePass(); show(); };
    $('step1').onclick = () => { running = false; engine.step(1); show(); };
    hookPainting($('ez'));
    hookPainting($('h'));
    $('open').onchange = () => {
        const files = [...$('open').files];
        const ini = files.find((f) => f.name.endsWith('.ini'));
        if (!ini)
            return status('Open: choose a scene file (.ini) and the PNG files it names', true);
        load(ini.name, [], urlOpts, false, openedFiles(files))
            .catch((e) => status(`${ini.name}: ${e.message}`, true));
    };
    $('export').onclick = () => offerDownloads().catch((e) => status(e.message, true));
    $('reset').onclick = () => load(sceneName, sets, urlOpts, true).catch((e) => status(e.message, true));
    $('clear').onclick = () => load(sceneName, sets).catch((e) => status(e.message, true));
    await load(first, params.getAll('set'));
}

function b64(arr) {
    const u8 = new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength);
    let s = '';
    for (let k = 0; k < u8.length; k += 0x8000)
        s += String.fromCharCode.apply(null, u8.subarray(k, k + 0x8000));
    return btoa(s);
}

// the renderer's own name where the browser tells it
function renderer() {
    const gl = engine.gl, ext = gl.getExtension('WEBGL_debug_renderer_info');
    return ext ? gl.getParameter(ext.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER);
}

window.texfdtd = {
    ready: main().then(() => true, (e) => { status(e.message, true); throw e; }),
    load: (name, s = [], opts = urlOpts) => load(name, s, opts, false, serverFile).then(() => true),
    step: (n) => { engine.step(n); engine.finish(); return engine.n; },
    info: () => ({ n: engine.n, slots: engine.model.slots.length, nx: engine.model.nx, ny: engine.model.ny,
        emulateFlush: engine.emulateFlush, fmaBarrier: engine.fmaBarrier, denormals: engine.denormals,
        renderer: renderer() }),
    readFields: () => {
        const f = engine.readFields();
        return { ez: b64(f.ez), hx: b64(f.hx), hy: b64(f.hy) };
    },
    show: () => { show(); return true; },
    // the colour-map pass's picture of Ez, RGBA rows from the bottom, base64
    picture: () => b64(engine.render('ez')),
    // the material map the page paints for a scene file (by name under
    // scenes/, or its text), without running it: {map (base64, [ny][nx]),
    // kinds, eps} or {error}
    geometry: async (name, s = [], text = null) => {
        try {
            if (text === null) {
                const r = await fetch(ROOT + 'scenes/' + name);
                text = await r.text();
            }
            const sc = await loadMaps(loadScene(text, s, name), serverFile, decodePng);
            const m = buildModel(sc, inc);
            return { nx: m.nx, ny: m.ny, map: b64(m.mat), kinds: m.mats.map((t) => t.kind),
                eps: m.mats.map((t) => t.eps_r), sigma: m.mats.map((t) => t.sigma) };
        } catch (e) {
            return { error: e.message };
        }
    },
    scenes: () => presets(),
    // the export, with the PNG in base64
    exportFiles: async () => {
        const f = await exportFiles();
        return { name: f.name, ini: f.ini, png: b64(new Uint8Array(await f.png.arrayBuffer())) };
    },
    // where a cell's centre is on the Ez picture, in CSS pixels of the page
    cellPoint: (i, j) => {
        const r = $('ez').getBoundingClientRect(), m = engine.model;
        return { x: r.left + (i + 0.5) / m.nx * r.width, y: r.top + (1 - (j + 0.5) / m.ny) * r.height };
    },
    setBrush: (brush, radius, eps) => {
        $('brush').value = brush;
        $('radius').value = String(radius);
        $('eps').value = String(eps);
        return true;
    },
};
