// run.mjs - the web page (web/) in a real browser, checked against the cpu
// engine: Debian's chromium, headless, driven over its DevTools protocol
// through the pipe of --remote-debugging-pipe (node alone: no npm package,
// no WebSocket, no debugging port).
//
//   node tests/web/run.mjs [--steps N] [--shot FILE] [--bin bin/texfdtd]
//
// It serves the repository root on 127.0.0.1 (python3 -m http.server, as
// `make web`), opens web/index.html in headless Chromium (WebGL2 on
// SwiftShader, Chromium's software renderer), runs scenes/web_cylinder.ini
// for N steps (default 400, the scene's) and reads Ez, Hx, Hy back from the float
// textures (readPixels); runs the same scene on the cpu engine
// (bin/texfdtd run --engine cpu, denormals flushed as the page's shaders
// flush them) and compares the float32 arrays: the number of differing
// cells and the largest difference in units in the last place.  The test
// expects bit-identical fields (docs/accuracy.md, "The web page").  With
// --shot it also saves a screenshot of the page (the painted case at its
// last step).  Besides: the page's picture against the command's, its
// material maps against `run --geometry`'s, painting with the mouse, the
// export and opening it again, and the controls (see CASES and the
// functions below).  Exit status 0 when every check passes, 1 otherwise,
// 77 when chromium is missing.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import zlib from 'node:zlib';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
    const k = args.indexOf(name);
    return k >= 0 ? args[k + 1] : dflt;
};
const STEPS = Number(opt('--steps', '400'));
const SCENE = opt('--scene', 'web_cylinder.ini');
const SHOT = opt('--shot', null);
// (a check of the check: the cpu engine run for another number of steps
// must make the comparison fail)
const CPU_STEPS = Number(opt('--cpu-steps', String(STEPS)));
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const BIN = opt('--bin', path.join(ROOT, 'bin/texfdtd'));
const CHROMIUM = ['chromium', 'chromium-browser', 'google-chrome']
    .map((c) => { try { return execFileSync('sh', ['-c', `command -v ${c}`]).toString().trim(); } catch { return ''; } })
    .find((p) => p);
if (!CHROMIUM) {
    console.log('web: skipped (no chromium; scripts/deps.sh installs it)');
    process.exit(77);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'texfdtd-web-'));
const children = [];
// stop the server and the browser (waiting for them), then remove tmp
let cleaning = null;
function cleanup() {
    cleaning ??= cleanupOnce();
    return cleaning;
}

async function cleanupOnce() {
    await Promise.all(children.map((c) => new Promise((res) => {
        if (c.exitCode !== null || c.signalCode !== null)
            return res();
        c.once('exit', res);
        c.kill('SIGKILL');
    })));
    try {
        fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 5 });
    } catch (e) {
        console.log(`web: could not remove ${tmp}: ${e.message}`);
    }
}

function freePort() {
    return new Promise((res) => {
        const s = net.createServer();
        s.listen(0, '127.0.0.1', () => {
            const p = s.address().port;
            s.close(() => res(p));
        });
    });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitHttp(url, ms) {
    const t0 = Date.now();
    for (;;) {
        try {
            const r = await fetch(url);
            if (r.ok)
                return r;
        } catch { /* not yet */ }
        if (Date.now() - t0 > ms)
            throw new Error(`${url}: no answer in ${ms} ms`);
        await sleep(100);
    }
}

// ---- the DevTools protocol over Chromium's pipe ------------------------------
// --remote-debugging-pipe: commands go to the browser's fd 3 and answers
// and events come from its fd 4, JSON messages each ended by a NUL byte
// (no WebSocket, no port).  The page's commands carry its session id
// (Target.attachToTarget, flatten).
class Cdp {
    constructor(toBrowser, fromBrowser) {
        this.out = toBrowser;
        this.id = 0;
        this.pending = new Map();
        this.console = [];
        this.session = undefined;
        let buf = Buffer.alloc(0);
        fromBrowser.on('data', (d) => {
            buf = Buffer.concat([buf, d]);
            for (let z; (z = buf.indexOf(0)) >= 0;) {
                this.receive(JSON.parse(buf.subarray(0, z).toString('utf8')));
                buf = buf.subarray(z + 1);
            }
        });
        fromBrowser.on('close', () => {
            for (const { rej } of this.pending.values())
                rej(new Error('the browser closed its pipe'));
            this.pending.clear();
        });
    }

    receive(msg) {
        if (msg.id && this.pending.has(msg.id)) {
            const { res, rej } = this.pending.get(msg.id);
            this.pending.delete(msg.id);
            if (msg.error)
                rej(new Error(JSON.stringify(msg.error)));
            else
                res(msg.result);
        } else if (msg.method === 'Runtime.consoleAPICalled') {
            this.console.push(msg.params.args.map((a) => a.value ?? a.description).join(' '));
        } else if (msg.method === 'Runtime.exceptionThrown') {
            const d = msg.params.exceptionDetails;
            this.console.push(`exception: ${d.exception?.description ?? d.text}`);
        }
    }

    // a command to the browser (browser true) or to the attached page
    send(method, params = {}, browser = false) {
        const id = ++this.id;
        const msg = { id, method, params };
        if (!browser && this.session)
            msg.sessionId = this.session;
        this.out.write(JSON.stringify(msg) + '\0');
        return new Promise((res, rej) => this.pending.set(id, { res, rej }));
    }

    // open url in a new page and attach to it
    async openPage(url) {
        const { targetId } = await this.send('Target.createTarget', { url }, true);
        const { sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true }, true);
        this.session = sessionId;
    }

    // the value of an expression in the page (awaited)
    async eval(expr) {
        const r = await this.send('Runtime.evaluate',
            { expression: expr, awaitPromise: true, returnByValue: true });
        if (r.exceptionDetails)
            throw new Error(`${expr}: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
        return r.result.value;
    }
}

// ---- float32 comparison -------------------------------------------------------------
function ordered(bits) {
    return bits & 0x80000000 ? -(bits & 0x7fffffff) : bits;
}

function compare(name, a, b) {
    const ua = new Uint32Array(a.buffer, a.byteOffset, a.length);
    const ub = new Uint32Array(b.buffer, b.byteOffset, b.length);
    let diff = 0, maxUlp = 0, where = -1;
    for (let k = 0; k < ua.length; k++) {
        if (ua[k] === ub[k])
            continue;
        diff++;
        const u = Math.abs(ordered(ua[k]) - ordered(ub[k]));
        if (u > maxUlp) {
            maxUlp = u;
            where = k;
        }
    }
    return { name, cells: ua.length, diff, maxUlp, where };
}

// An 8-bit RGB or RGBA, non-interlaced PNG (what texfdtd writes) as RGBA
// rows from the top: {w, h, px}.
function readPng(file) {
    const d = fs.readFileSync(file);
    const w = d.readUInt32BE(16), h = d.readUInt32BE(20), depth = d[24], type = d[25];
    if (depth !== 8 || (type !== 2 && type !== 6) || d[28] !== 0)
        throw new Error(`${file}: not an 8-bit RGB(A) non-interlaced PNG`);
    const idat = [];
    for (let o = 8; o < d.length;) {
        const n = d.readUInt32BE(o), t = d.toString('latin1', o + 4, o + 8);
        if (t === 'IDAT')
            idat.push(d.subarray(o + 8, o + 8 + n));
        o += 12 + n;
    }
    const raw = zlib.inflateSync(Buffer.concat(idat));
    const bpp = type === 6 ? 4 : 3, stride = w * bpp;
    const cur = Buffer.alloc(stride), prev = Buffer.alloc(stride);
    const px = new Uint8Array(4 * w * h);
    for (let y = 0; y < h; y++) {
        const f = raw[y * (stride + 1)], row = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
        for (let x = 0; x < stride; x++) {
            const a = x >= bpp ? cur[x - bpp] : 0, b = prev[x], c = x >= bpp ? prev[x - bpp] : 0;
            const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
            const pred = f === 0 ? 0 : f === 1 ? a : f === 2 ? b : f === 3 ? (a + b) >> 1
                : pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
            cur[x] = (row[x] + pred) & 255;
        }
        for (let x = 0; x < w; x++)
            for (let k = 0; k < 4; k++)
                px[4 * (y * w + x) + k] = k < bpp ? cur[x * bpp + k] : 255;
        cur.copy(prev);
    }
    return { w, h, px };
}

function fromB64(s) {
    const buf = Buffer.from(s, 'base64');
    return new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4);
}

// The cases: --set lines for both the page and the command, engine options
// of the page, and whether a difference fails the test (report: only say it).
const CASES = [
    { label: 'CPML', sets: [] },
    { label: 'CPML, denormals flushed in GLSL', sets: [], opts: { emulateFlush: true } },
    { label: 'Mur', sets: ['boundary.type=mur', 'boundary.cells='] },
    { label: 'PEC walls, angle 30', sets: ['boundary.type=pec', 'boundary.cells=', 'source.angle=30'] },
    { label: 'graded CPML (kappa, alpha)', sets: ['boundary.kappa_max=4', 'boundary.alpha_max=0.05', 'boundary.order=4'] },
    { label: 'modulated Gaussian pulse', sets: ['source.waveform=modulated_gaussian', 'source.ramp_periods=', 'source.bandwidth=0.5'] },
    { label: 'no FMA barrier (report only)', sets: [], opts: { fmaBarrier: false }, report: true },
    // a soft point source (model_point_value: libm's sin and exp in C,
    // JavaScript's in the page)
    { label: 'point source, sine, PEC walls', sets: ['source.type=point', 'source.center_x=30',
        'source.center_y=64', 'source.angle=', 'source.front_offset=', 'boundary.type=pec', 'boundary.cells='] },
    { label: 'point source, Gaussian, CPML', sets: ['source.type=point', 'source.center_x=30.5',
        'source.center_y=70', 'source.angle=', 'source.front_offset=', 'source.waveform=gaussian',
        'source.ramp_periods=', 'source.pulse_width=6'] },
    // subpixel smoothing: a material of the table per covered fraction
    { label: 'smoothed dielectric cylinder, dielectric_circle_ka3.ini', scene: 'dielectric_circle_ka3.ini',
        sets: ['monitor.dft.start_step='], steps: 300 },
    // conductivity: the Crank-Nicolson update (LOSSY), smoothed boundary
    // cells of mixed eps and sigma, the lossy incident terms
    { label: 'lossy cylinder, lossy_cylinder.ini', scene: 'lossy_cylinder.ini',
        sets: ['monitor.far.start_step=100', 'monitor.flux.around.start_step=100'], steps: 300 },
    // a PNG material map (decoded by the browser, colours as in the file)
    { label: 'PNG map, photonic_crystal_png.ini', scene: 'photonic_crystal_png.ini',
        sets: ['monitor.dft.start_step=', 'output.snapshots='], steps: 300 },
    // the paper's scene, 1024 x 1024, its front moved onto the square
    { label: 'the paper\'s scene, takada_square.ini', scene: 'takada_square.ini',
        sets: ['source.front_offset=488', 'output.snapshots=', 'output.png=false'], steps: 40 },
];

function cpuRun(sets, k, scene = path.join(ROOT, 'scenes', SCENE), steps = CPU_STEPS) {
    const out = path.join(tmp, `cpu${k}`);
    execFileSync(BIN, ['run', scene, '--engine', 'cpu', '--steps',
        String(steps), '--denormals', 'flush', '--threads', '1', '--out', out, '-q',
        ...sets.flatMap((x) => ['--set', x])], { stdio: 'inherit' });
    const cpu = {};
    for (const f of ['ez', 'hx', 'hy']) {
        const bin = path.join(out, `${f}.bin`);
        execFileSync('h5dump', ['-b', 'LE', '-d', `/${f}`, '-o', bin, path.join(out, 'fields.h5')],
            { stdio: 'ignore' });
        const buf = fs.readFileSync(bin);
        cpu[f] = new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4);
    }
    return cpu;
}

// The page's Ez picture (shaders/colormap.frag, the incident wave in float
// on the GPU) against the cpu engine's ez_total PNG of the same step
// (core/colormap.c, the incident wave in double): the same map, so at most
// one level apart in a few pixels where the two incident values round to
// different levels.
async function pictureCase(cdp, png) {
    const ref = readPng(png);
    const web = Buffer.from(await cdp.eval('window.texfdtd.picture()'), 'base64');
    let diff = 0, max = 0;
    for (let y = 0; y < ref.h; y++)
        for (let x = 0; x < ref.w; x++)
            for (let k = 0; k < 3; k++) {
                // the page's rows from the bottom, the PNG's from the top
                const a = web[4 * ((ref.h - 1 - y) * ref.w + x) + k], b = ref.px[4 * (y * ref.w + x) + k];
                if (a !== b) {
                    diff++;
                    max = Math.max(max, Math.abs(a - b));
                }
            }
    console.log(`web: the page's Ez picture against the cpu engine's ${path.basename(png)}: `
        + `${diff} of ${3 * ref.w * ref.h} colour values differ, by at most ${max} level(s)`);
    return max <= 1 && diff <= ref.w * ref.h / 100;
}

// The controls: Reset, then Run for a moment and Pause; the step counter
// must have moved and the page must show a Mcells/s (its value is the
// browser's, not checked).  Then Single pass twice: H, then E.
async function runButton(cdp) {
    const click = (id) => cdp.eval(`document.getElementById(${JSON.stringify(id)}).click(), true`);
    const text = (id) => cdp.eval(`document.getElementById(${JSON.stringify(id)}).textContent`);
    await click('reset');
    await sleep(300);
    await click('run');
    await sleep(1500);
    await click('pause');
    await sleep(100);
    const n = Number(await text('counter')), rate = await text('speed');
    await click('step');
    const half = await text('counter');
    await click('step');
    const whole = await text('counter');
    const passes = await cdp.eval('[...document.querySelectorAll("#passes tbody tr")]'
        + '.map((r) => [...r.cells].map((c) => c.textContent).join(": ")).join("; ")');
    console.log(`web: Run for 1.5 s: ${n} steps, ${rate} Mcells/s shown (SwiftShader, headless); `
        + `Single pass: '${half}', then '${whole}'; passes: ${passes}`);
    return n > 0 && /^[0-9.]+$/.test(rate) && half === `${n} + H` && whole === `${n + 1}`;
}

// A scene file with the INI forms the parser must take like inih (comments,
// an inline comment, `:`, a continued value) and every 2D shape, rotated.
const SYNTHETIC = `; comment
# another comment
[grid]
nx = 64 ; an inline comment
ny: 48
steps = 10

[source]
angle = 30

[boundary]
type = cpml
cells = 8

[material.glass]
eps_r = 2.25

[object.poly]
shape = polygon
material = glass
vertices = 20 20, 30 22,
    34 30, 22 34
rotation = 15

[object.ell]
shape = ellipse
material = pec
center_x = 40
center_y = 24
radius_x = 6.5
radius_y = 3
rotation = 30

[object.hole]
shape = rectangle
material = vacuum
center_x = 40.5
center_y = 24
width = 4
height = 2
rotation = 90

[object.disc]
shape = circle
material = dielectric
eps_r = 6
center_x = 14.5
center_y = 30
radius = 4.5

[object.over]
shape = ellipse
material = dielectric
eps_r = 3
center_x = 18.25
center_y = 27
radius_x = 4
radius_y = 2.5

[object.slab]
shape = rectangle
material = glass
center_x = 50
center_y = 32
width = 7
height = 3.5
rotation = 20

[object.bar]
shape = rectangle
material = dielectric
eps_r = 1.5
center_x = 41
center_y = 24.3
width = 12.2
height = 2.6
`;

// The JavaScript INI parser and painting against the command's: for each
// scene the page runs (scenes/*.ini and SYNTHETIC), the page's material map
// (kind and eps_r per cell) equals the one `texfdtd run --geometry` paints,
// subpixel smoothing included (conformal_pec off: the page has none).
async function geometryCase(cdp) {
    const names = await cdp.eval('window.texfdtd.scenes()');
    const synth = path.join(tmp, 'synthetic.ini');
    fs.writeFileSync(synth, SYNTHETIC);
    let ok = true, ran = 0;
    const refused = [];
    for (const name of [...names, 'synthetic.ini']) {
        const sets = ['grid.conformal_pec=false'];
        const text = name === 'synthetic.ini' ? JSON.stringify(SYNTHETIC) : 'null';
        const g = await cdp.eval(`window.texfdtd.geometry(${JSON.stringify(name)}, ${JSON.stringify(sets)}, ${text})`);
        if (g.error) {
            refused.push(`${name} (${g.error})`);
            continue;
        }
        const out = path.join(tmp, `geo-${name}`);
        const file = name === 'synthetic.ini' ? synth : path.join(ROOT, 'scenes', name);
        execFileSync(BIN, ['run', file, '--geometry', '--out', out, '-q',
            ...sets.flatMap((x) => ['--set', x])], { stdio: 'inherit' });
        const read = (ds, type) => {
            const bin = path.join(out, ds.replace(/\//g, '_') + '.bin');
            execFileSync('h5dump', ['-b', 'LE', '-d', ds, '-o', bin, path.join(out, 'material.h5')],
                { stdio: 'ignore' });
            const b = fs.readFileSync(bin);
            return new type(b.buffer, b.byteOffset, b.length / type.BYTES_PER_ELEMENT);
        };
        const mat = read('/material', Uint8Array);
        const kind = read('/table/kind', Float64Array), eps = read('/table/eps_r', Float64Array);
        const web = Buffer.from(g.map, 'base64');
        let diff = 0, first = -1;
        for (let c = 0; c < web.length; c++) {
            const a = web[c], b = mat[c];
            // PEC: the command's table holds eps_r 0 for PEC, as the page's
            // (not sigma: --geometry writes 0 for every material's sigma;
            // the lossy scene's fields check it)
            if (g.kinds[a] !== kind[b] || g.eps[a] !== eps[b]) {
                diff++;
                if (first < 0)
                    first = c;
            }
        }
        ran++;
        // and the page builds its passes for it and steps it
        if (name !== 'synthetic.ini') {
            await cdp.eval(`window.texfdtd.load(${JSON.stringify(name)}, [])`);
            const n = await cdp.eval('window.texfdtd.step(2)');
            if (n !== 2) {
                ok = false;
                console.log(`web: ${name}: the page did not step it`);
            }
        }
        if (diff || mat.length !== web.length) {
            ok = false;
            console.log(`web: ${name}: the page paints ${diff} of ${web.length} cells unlike the command`
                + (first >= 0 ? ` (first at i = ${first % g.nx}, j = ${Math.floor(first / g.nx)})` : ''));
        }
    }
    console.log(`web: INI parser and painting: ${ran} scenes paint the command's material map cell for cell (and load and step in the page)`
        + `${ok ? '' : ' (NOT all)'}; the page refuses ${refused.length}: ${refused.map((r) => r.split(' (')[0]).join(', ')}`);
    return ok && ran >= 5;
}

// Painting with the mouse and the export: a PEC stroke and a dielectric
// dab on the Ez picture (DevTools mouse events), the exported scene file
// and PNG run by the command, and its fields against the page's.
async function paintCase(cdp) {
    await cdp.eval(`window.texfdtd.load(${JSON.stringify(SCENE)}, [])`);
    const before = (await cdp.eval('window.texfdtd.info()')).slots;
    const mouse = async (type, i, j) => {
        const p = await cdp.eval(`window.texfdtd.cellPoint(${i}, ${j})`);
        await cdp.send('Input.dispatchMouseEvent', { type, x: p.x, y: p.y, button: 'left',
            buttons: type === 'mouseReleased' ? 0 : 1, clickCount: 1 });
    };
    await cdp.eval('window.texfdtd.setBrush("pec", 2, 1)');
    await mouse('mousePressed', 30, 90);
    for (let k = 1; k <= 10; k++)
        await mouse('mouseMoved', 30 + k, 90 + k);
    await mouse('mouseReleased', 40, 100);
    await cdp.eval('window.texfdtd.setBrush("dielectric", 3, 2.5)');
    await mouse('mousePressed', 100, 95);
    await mouse('mouseReleased', 100, 95);
    const after = (await cdp.eval('window.texfdtd.info()')).slots;
    const f = await cdp.eval('window.texfdtd.exportFiles()');
    const dir = path.join(tmp, 'painted');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, `${f.name}.ini`), f.ini);
    fs.writeFileSync(path.join(dir, `${f.name}.png`), Buffer.from(f.png, 'base64'));
    const cpu = cpuRun([], 'p', path.join(dir, `${f.name}.ini`));
    await cdp.eval(`window.texfdtd.step(${STEPS})`);
    const web = await cdp.eval('window.texfdtd.readFields()');
    const res = ['ez', 'hx', 'hy'].map((g) => compare(g, fromB64(web[g]), cpu[g]));
    const same = res.every((r) => r.diff === 0);
    console.log(`web: painted by mouse (${after - before} cells more with a source slot), exported `
        + `(${f.name}.ini + .png) and run by the command: `
        + (same ? 'bit-identical to the page' : res.map((r) => `${r.name} ${r.diff} cells, max ${r.maxUlp} ulp`).join('; ')));
    if (!(after - before > 40)) {
        console.log('web: the mouse painted too little (expected a stroke and a dab)');
        return false;
    }
    // the exported files opened in the page again (its file input)
    const files = [path.join(dir, `${f.name}.ini`), path.join(dir, `${f.name}.png`)];
    const doc = await cdp.send('DOM.getDocument');
    const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: doc.root.nodeId, selector: '#open' });
    await cdp.send('DOM.setFileInputFiles', { nodeId, files });
    let st = '';
    for (let k = 0; k < 200 && !st.startsWith('opened:'); k++) {
        await sleep(50);
        st = await cdp.eval('document.getElementById("status").textContent');
    }
    const n0 = (await cdp.eval('window.texfdtd.info()')).n;
    await cdp.eval(`window.texfdtd.step(${STEPS})`);
    const again = await cdp.eval('window.texfdtd.readFields()');
    const res2 = ['ez', 'hx', 'hy'].map((g) => compare(g, fromB64(again[g]), cpu[g]));
    const same2 = st.startsWith('opened:') && n0 === 0 && res2.every((r) => r.diff === 0);
    console.log(`web: the export opened in the page again (${st}): `
        + (same2 ? 'bit-identical' : `${st} ${res2.map((r) => `${r.name} ${r.diff} cells`).join('; ')}`));
    return same && same2;
}

async function main() {
    const t0 = Date.now();
    // the page
    const port = await freePort();
    const server = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1'],
        { cwd: ROOT, stdio: 'ignore' });
    children.push(server);
    await waitHttp(`http://127.0.0.1:${port}/web/index.html`, 10000);
    const chrome = spawn(CHROMIUM, ['--headless=new', '--no-sandbox', '--disable-gpu-sandbox',
        '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist',
        '--remote-debugging-pipe', `--user-data-dir=${path.join(tmp, 'profile')}`, '--no-first-run',
        '--window-size=1300,900', 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
    children.push(chrome);
    let chromeErr = '';
    chrome.stderr.on('data', (d) => { chromeErr += d; });
    chrome.on('exit', (code) => {
        if (code)
            console.log(`web: chromium exited with status ${code}: ${chromeErr.slice(-2000)}`);
    });
    const cdp = new Cdp(chrome.stdio[3], chrome.stdio[4]);
    await cdp.openPage(`http://127.0.0.1:${port}/web/index.html?scene=${SCENE}`);
    await cdp.send('Runtime.enable');
    // the page's module may not have run yet
    for (let k = 0; k < 200; k++) {
        if (await cdp.eval('typeof window.texfdtd === "object"'))
            break;
        await sleep(50);
    }
    try {
        await cdp.eval('window.texfdtd.ready');
    } catch (e) {
        console.log(cdp.console.join('\n'));
        throw e;
    }
    const first = await cdp.eval('window.texfdtd.info()');
    if (first.n !== 0)
        throw new Error(`the page has run ${first.n} steps before the test's`);
    console.log(`web: ${first.renderer}; its fragment stage ${first.denormals.flushesResults && first.denormals.flushesInputs ? 'flushes' : 'keeps'} denormals`);
    let ok = true, stepMs = 0;
    for (const [k, c] of CASES.entries()) {
        const scene = c.scene ?? SCENE, steps = c.steps ?? STEPS;
        const cpu = cpuRun(c.sets, k, path.join(ROOT, 'scenes', scene), c.steps ?? CPU_STEPS);
        await cdp.eval(`window.texfdtd.load(${JSON.stringify(scene)}, ${JSON.stringify(c.sets)}, ${JSON.stringify(c.opts ?? {})})`);
        const info = await cdp.eval('window.texfdtd.info()');
        const ts = Date.now();
        await cdp.eval(`window.texfdtd.step(${steps})`);
        stepMs += Date.now() - ts;
        const web = await cdp.eval('window.texfdtd.readFields()');
        const res = ['ez', 'hx', 'hy'].map((f) => compare(f, fromB64(web[f]), cpu[f]));
        const peak = cpu.ez.reduce((a, v) => Math.max(a, Math.abs(v)), 0);
        const same = res.every((r) => r.diff === 0);
        const line = res.map((r) => {
            const at = r.where >= 0 ? ` at (${r.where % info.nx}, ${Math.floor(r.where / info.nx)})` : '';
            return `${r.name} ${r.diff} cells, max ${r.maxUlp} ulp${at}`;
        }).join('; ');
        console.log(`web: ${c.label} (${steps} steps${info.emulateFlush ? ', F() in GLSL' : ''}${info.fmaBarrier ? '' : ', no R()'}): `
            + `${same ? 'bit-identical to the cpu engine' : 'differs from the cpu engine: ' + line}`);
        if (!(peak > 0)) {
            console.log('web: the cpu engine\'s Ez is 0 everywhere: nothing was compared');
            ok = false;
        }
        if (!same && !c.report)
            ok = false;
        if (k === 0)
            ok = await pictureCase(cdp, path.join(tmp, 'cpu0', `ez_total_${String(STEPS).padStart(6, '0')}.png`)) && ok;
    }
    ok = await geometryCase(cdp) && ok;
    ok = await paintCase(cdp) && ok;
    if (SHOT) {
        // the painted scene as the last case left it
        await cdp.eval('window.texfdtd.show()');
        const shot = await cdp.send('Page.captureScreenshot', { format: 'png' });
        fs.mkdirSync(path.dirname(path.resolve(SHOT)), { recursive: true });
        fs.writeFileSync(SHOT, Buffer.from(shot.data, 'base64'));
        console.log(`web: screenshot ${SHOT}`);
    }
    ok = await runButton(cdp) && ok;
    console.log(`web: ${CASES.length} cases, ${stepMs} ms of steps in the browser; whole test ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    return ok;
}

// the whole test in under 3 minutes, or it fails (a browser that hangs
// must not hang make test)
const LIMIT_S = Number(opt('--limit', '170'));
setTimeout(() => {
    console.log(`web: the test did not finish in ${LIMIT_S} s`);
    cleanup().then(() => process.exit(1));
}, LIMIT_S * 1000).unref();

main().then((ok) => cleanup().then(() => process.exit(ok ? 0 : 1)), (e) => {
    console.error(`web: ${e.message}`);
    cleanup().then(() => process.exit(1));
});
