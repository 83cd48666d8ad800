// engine.js - the 2D TMz engine of the page: the gl engine's fragment passes
// (gl/frag2d.c), ping-ponged between pairs of float textures in WebGL2.
//
// One time step n -> n+1 is, as in gl/frag2d.c:
//   CPML only: psi_h passes (shaders/update_psi_h.frag), Ez^n -> new H psi
//   H pass   (shaders/update_h.frag):  H tex A + Ez tex A -> H tex B
//   CPML only: psi_e passes (shaders/update_psi_e.frag), new H -> new E psi
//   E pass   (web/shaders/update_e_es.frag): Ez tex A + H tex B -> Ez tex B
// then A and B swap roles.  Ez is R32F, (Hx, Hy) RG32F: texel (i, j) holds
// Ez(i, j), Hx(i, j+1/2), Hy(i+1/2, j), as the cpu engine's arrays do.  The
// arithmetic of every pass is shaders/update2d.glsl over core/yee.h, the
// same text the C engines compile.

import { buildProgram, UNITS } from './shader.js';
import { slotValues, pointValue, KIND_PEC } from './scene.js';

const SLOT_W = 1024;

export class Engine {
    constructor(gl) {
        this.gl = gl;
        if (!gl.getExtension('EXT_color_buffer_float'))
            throw new Error('this browser cannot render to float textures '
                + '(WebGL2 without EXT_color_buffer_float)');
        this.vao = gl.createVertexArray();
        this.fbos = new Map();
        this.log = [];
    }

    // Whether the fragment stage flushes denormal results and inputs
    // (shaders/probe_denormals.frag, as gl/gl2d.c probes it).
    async probeDenormals(root) {
        const gl = this.gl;
        const prog = await buildProgram(gl, root, 'shaders/probe_denormals.frag', {}, false);
        const t = this.texture(gl.RG32UI, gl.RG_INTEGER, gl.UNSIGNED_INT, 1, 1, null);
        gl.useProgram(prog);
        gl.uniform1f(gl.getUniformLocation(prog, 'a'), 2 ** -126);
        gl.uniform1f(gl.getUniformLocation(prog, 'b'), 0.5);
        gl.uniform1f(gl.getUniformLocation(prog, 'd'), 2 ** -127);
        gl.uniform1f(gl.getUniformLocation(prog, 'z'), 0);
        this.draw(t, 1, 1);
        const px = new Uint32Array(4);
        gl.readPixels(0, 0, 1, 1, gl.RGBA_INTEGER, gl.UNSIGNED_INT, px);
        gl.deleteProgram(prog);
        gl.deleteTexture(t);
        this.denormals = { flushesResults: px[0] === 0, flushesInputs: px[1] === 0 };
        return this.denormals;
    }

    texture(ifmt, fmt, type, w, h, data) {
        const gl = this.gl;
        const t = gl.createTexture();
        gl.bindTexture(gl.TEXTURE_2D, t);
        gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
        gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
        gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
        gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
        gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
        gl.texImage2D(gl.TEXTURE_2D, 0, ifmt, w, h, 0, fmt, type, data);
        t.w = w;
        t.h = h;
        return t;
    }

    fbo(tex) {
        const gl = this.gl;
        if (!this.fbos.has(tex)) {
            const f = gl.createFramebuffer();
            gl.bindFramebuffer(gl.FRAMEBUFFER, f);
            gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0);
            const st = gl.checkFramebufferStatus(gl.FRAMEBUFFER);
            if (st !== gl.FRAMEBUFFER_COMPLETE)
                throw new Error(`a render target is incomplete (status 0x${st.toString(16)})`);
            this.fbos.set(tex, f);
        }
        return this.fbos.get(tex);
    }

    // One full-screen pass into `target` (w x h); the program is bound.
    draw(target, w, h) {
        const gl = this.gl;
        gl.bindFramebuffer(gl.FRAMEBUFFER, this.fbo(target));
        gl.viewport(0, 0, w, h);
        gl.bindVertexArray(this.vao);
        gl.drawArrays(gl.TRIANGLES, 0, 3);
    }

    bind(name, tex) {
        const gl = this.gl;
        gl.activeTexture(gl.TEXTURE0 + UNITS[name]);
        gl.bindTexture(gl.TEXTURE_2D, tex);
    }

    // Set up the textures and passes of a model (scene.js buildModel).
    // opts: emulateFlush (true: flush denormals in GLSL even where the
    // browser flushes them itself), fmaBarrier (false: products without the
    // R() of shaders/yee_prelude_es.glsl); both only to test the page.
    async load(root, model, inc, opts = {}) {
        const gl = this.gl;
        this.dispose();
        this.model = model;
        this.inc = inc;
        const { nx, ny, mats, mat, slots, pml } = model;
        if (!this.denormals)
            await this.probeDenormals(root);
        const dn = this.denormals;
        // `flush` (FTZ+DAZ, the cpu engine's default) in hardware, or
        // emulated in GLSL where the stage keeps denormals
        this.emulateFlush = !!opts.emulateFlush || !(dn.flushesResults && dn.flushesInputs);
        this.fmaBarrier = opts.fmaBarrier !== false;
        // the slot-index texture covers the whole grid (SLOT_X0 = SLOT_Y0 =
        // 0), so that painting by hand needs no new program; NMATS leaves
        // room for the materials painting adds
        this.nmats = Math.max(16, mats.length);
        // the coefficient tables are uniform arrays (cezh, ca, kind: a vector
        // each element on many GPUs); WebGL2 promises only 224 vectors
        const vecs = gl.getParameter(gl.MAX_FRAGMENT_UNIFORM_VECTORS);
        if (3 * this.nmats + 32 > vecs)
            throw new Error(`${mats.length} materials need about ${3 * this.nmats + 32} uniform vectors `
                + `in the fragment stage; this browser has ${vecs} (subpixel smoothing makes a `
                + 'material per covered fraction: open the page with ?scene=NAME&set=grid.subpixel=false)');
        const defs = {
            NX: nx, NY: ny, NMATS: this.nmats, SLOT_X0: 0, SLOT_Y0: 0, SLOT_W,
            FLUSH_DENORMALS: this.emulateFlush ? 1 : 0, FMA_BARRIER: this.fmaBarrier ? 1 : 0, CPML: pml ? 1 : 0, PML_N: pml ? pml.n : 0,
            PSI_IN_PLACE: 0, MUR: model.mur ? 1 : 0, POINT_SRC: model.point ? 1 : 0,
            POINT_X: model.point ? model.point.i : 0, POINT_Y: model.point ? model.point.j : 0,
            DFT: 0, CONFORMAL: 0, LOSSY: model.lossy ? 1 : 0, HMAP: 0, DISP: 0, DISP_EDGES: 0, HLOSSY: 0,
            TECUT: 0, HOFF: 0,
        };
        this.defines = defs;
        this.prog = {
            h: await buildProgram(gl, root, 'shaders/update_h.frag', defs, true),
            e: await buildProgram(gl, root, 'web/shaders/update_e_es.frag', defs, true),
            colormap: await buildProgram(gl, root, 'shaders/colormap.frag', defs, false),
            viewH: await buildProgram(gl, root, 'web/shaders/view_h.frag', defs, false),
        };
        if (pml) {
            this.prog.psiH = await buildProgram(gl, root, 'shaders/update_psi_h.frag', defs, true);
            this.prog.psiE = await buildProgram(gl, root, 'shaders/update_psi_e.frag', defs, true);
        }
        for (const p of Object.values(this.prog)) {
            gl.useProgram(p);
            const u = (n) => gl.getUniformLocation(p, n);
            if (u('ch'))
                gl.uniform1f(u('ch'), model.ch_f);
            if (u('mur_k'))
                gl.uniform1f(u('mur_k'), model.mur_k_f);
        }
        const F = gl.FLOAT;
        this.ez = [0, 1].map(() => this.texture(gl.R32F, gl.RED, F, nx, ny, null));
        this.h = [0, 1].map(() => this.texture(gl.RG32F, gl.RG, F, nx, ny, null));
        this.mat = this.texture(gl.R8UI, gl.RED_INTEGER, gl.UNSIGNED_BYTE, nx, ny, mat);
        this.slotIdx = this.texture(gl.R32UI, gl.RED_INTEGER, gl.UNSIGNED_INT, nx, ny, null);
        this.slotVals = null;
        this.setMap(mat, mats);
        if (pml) {
            const w = Math.max(nx, ny), prof = new Float32Array(4 * w * 4);
            [pml.xe, pml.xh, pml.ye, pml.yh].forEach((a, row) => {
                for (let i = 0; i < a.length / 3; i++)
                    prof.set([a[3 * i], a[3 * i + 1], a[3 * i + 2], 0], 4 * (row * w + i));
            });
            this.pmlProf = this.texture(gl.RGBA32F, gl.RGBA, F, w, 4, prof);
            const N = pml.n;
            const pair = (w2, h2) => [0, 1].map(() => this.texture(gl.R32F, gl.RED, F, w2, h2, null));
            this.psi = { hxy: pair(nx, 2 * N), hyx: pair(2 * N, ny), ezy: pair(nx, 2 * N),
                ezx: pair(2 * N, ny) };
        }
        this.picture = this.texture(gl.RGBA8, gl.RGBA, gl.UNSIGNED_BYTE, nx, ny, null);
        this.cur = 0; /* the texture of each pair that holds the present fields */
        this.n = 0; /* completed steps */
        this.half = false; /* true between a step's H pass and its E pass */
        this.passes = [];
    }

    // A new material map (painting by hand): the map, the slots (cells of
    // a non-vacuum material, in cell order, as model_index_cells), their
    // index texture and the material uniforms.  The fields go on as they are.
    setMap(mat, mats) {
        const gl = this.gl, m = this.model, { nx, ny } = m;
        if (mats.length > this.nmats)
            throw new Error(`more than ${this.nmats} materials: reload the scene`);
        m.mat = mat;
        m.mats = mats;
        m.slots = [];
        const sidx = new Uint32Array(nx * ny);
        for (let c = 0; c < nx * ny; c++)
            if (mat[c] !== 0) {
                sidx[c] = m.slots.length;
                m.slots.push(c);
            }
        gl.bindTexture(gl.TEXTURE_2D, this.mat);
        gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
        gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, nx, ny, gl.RED_INTEGER, gl.UNSIGNED_BYTE, mat);
        gl.bindTexture(gl.TEXTURE_2D, this.slotIdx);
        gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, nx, ny, gl.RED_INTEGER, gl.UNSIGNED_INT, sidx);
        const rows = Math.max(1, Math.ceil(m.slots.length / SLOT_W));
        if (!this.slotVals || rows !== this.slotRows) {
            if (this.slotVals)
                gl.deleteTexture(this.slotVals);
            this.slotRows = rows;
            this.slotHost = new Float32Array(SLOT_W * rows);
            this.slotVals = this.texture(gl.R32F, gl.RED, gl.FLOAT, SLOT_W, rows, null);
        }
        // cezh holds cb (= S/eps_r where sigma = 0), as gl2d_set_coefficients
        const kinds = new Uint32Array(this.nmats), cezh = new Float32Array(this.nmats);
        const ca = new Float32Array(this.nmats).fill(1);
        mats.forEach((t, k) => {
            kinds[k] = t.kind;
            cezh[k] = t.cb_f;
            ca[k] = t.ca_f;
        });
        for (const p of Object.values(this.prog)) {
            gl.useProgram(p);
            const u = (n) => gl.getUniformLocation(p, n);
            if (u('cezh[0]'))
                gl.uniform1fv(u('cezh[0]'), cezh);
            if (u('kind[0]'))
                gl.uniform1uiv(u('kind[0]'), kinds);
            if (u('ca[0]'))
                gl.uniform1fv(u('ca[0]'), ca);
        }
    }

    dispose() {
        const gl = this.gl;
        for (const f of this.fbos.values())
            gl.deleteFramebuffer(f);
        this.fbos.clear();
        const texs = [this.ez, this.h, this.mat, this.slotIdx, this.slotVals, this.pmlProf,
            this.picture, ...(this.psi ? Object.values(this.psi) : [])].flat();
        for (const t of texs)
            if (t)
                gl.deleteTexture(t);
        for (const p of Object.values(this.prog || {}))
            gl.deleteProgram(p);
        this.prog = null;
        this.psi = null;
        this.pmlProf = null;
    }

    // psi passes of one kind ('H' or 'E'): both axes, each into the other
    // texture of its pair.
    psiPasses(kind, fieldTex, fieldName) {
        const gl = this.gl, N = this.model.pml.n, { nx, ny } = this.model;
        const p = kind === 'H' ? this.prog.psiH : this.prog.psiE;
        const pairs = kind === 'H' ? [this.psi.hxy, this.psi.hyx] : [this.psi.ezy, this.psi.ezx];
        gl.useProgram(p);
        this.bind(fieldName, fieldTex);
        this.bind('pml_prof', this.pmlProf);
        for (let axis = 0; axis < 2; axis++) {
            const pair = pairs[axis];
            gl.uniform1i(gl.getUniformLocation(p, 'axis'), axis);
            this.bind('psi_old', pair[0]);
            this.draw(pair[1], axis === 0 ? nx : 2 * N, axis === 0 ? 2 * N : ny);
            pair.reverse(); /* [0] is the new psi now */
        }
    }

    // CPML: the profiles and the new psi of two axes for the H or E pass.
    bindPsi(...names) {
        if (!this.psi)
            return;
        this.bind('pml_prof', this.pmlProf);
        for (const p of names)
            this.bind(`psi_${p}_tex`, this.psi[p][0]);
    }

    // The H pass of step n (with its psi passes).
    hPass() {
        const gl = this.gl, { nx, ny } = this.model, a = this.cur, b = 1 - a;
        if (this.psi)
            this.psiPasses('H', this.ez[a], 'ez_tex');
        gl.useProgram(this.prog.h);
        this.bind('h_tex', this.h[a]);
        this.bind('ez_tex', this.ez[a]);
        this.bindPsi('hxy', 'hyx');
        this.draw(this.h[b], nx, ny);
        this.half = true;
        this.passes = [{ pass: 'H', reads: [`H ${'AB'[a]}`, `Ez ${'AB'[a]}`], writes: `H ${'AB'[b]}` }];
    }

    // The E pass of step n (with its psi passes and this step's slot values).
    ePass() {
        const gl = this.gl, { nx, ny } = this.model, a = this.cur, b = 1 - a;
        if (this.psi)
            this.psiPasses('E', this.h[b], 'h_tex');
        const n = this.model.slots.length;
        if (n) {
            slotValues(this.model, this.inc, this.n, this.slotHost);
            gl.bindTexture(gl.TEXTURE_2D, this.slotVals);
            gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, SLOT_W, this.slotRows, gl.RED, gl.FLOAT,
                this.slotHost);
        }
        gl.useProgram(this.prog.e);
        if (this.model.point)
            gl.uniform1f(gl.getUniformLocation(this.prog.e, 'point_v'),
                Math.fround(pointValue(this.model, this.n)));
        this.bind('ez_tex', this.ez[a]);
        this.bind('h_tex', this.h[b]);
        this.bind('mat_tex', this.mat);
        this.bind('slot_tex', this.slotIdx);
        this.bind('slot_values', this.slotVals);
        this.bindPsi('ezy', 'ezx');
        this.draw(this.ez[b], nx, ny);
        this.cur = b;
        this.n++;
        this.half = false;
        this.passes.push({ pass: 'E', reads: [`Ez ${'AB'[a]}`, `H ${'AB'[b]}`], writes: `Ez ${'AB'[b]}` });
    }

    // The next pass: H if a step is not under way, else its E.
    singlePass() {
        if (this.half)
            this.ePass();
        else
            this.hPass();
    }

    step(count = 1) {
        if (this.half)
            this.ePass();
        for (let k = 0; k < count; k++) {
            this.hPass();
            this.ePass();
        }
    }

    finish() {
        const gl = this.gl, px = new Float32Array(4);
        gl.bindFramebuffer(gl.FRAMEBUFFER, this.fbo(this.ez[this.cur]));
        gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.FLOAT, px);
    }

    // The present fields as Float32Arrays [ny][nx] (row j = y): ez, hx, hy
    // (readPixels of the float textures).
    readFields() {
        const gl = this.gl, { nx, ny } = this.model, n = nx * ny;
        const hTex = this.half ? this.h[1 - this.cur] : this.h[this.cur];
        const read = (tex) => {
            const px = new Float32Array(4 * n);
            gl.bindFramebuffer(gl.FRAMEBUFFER, this.fbo(tex));
            gl.readPixels(0, 0, nx, ny, gl.RGBA, gl.FLOAT, px);
            return px;
        };
        const e = read(this.ez[this.cur]), h = read(hTex);
        const ez = new Float32Array(n), hx = new Float32Array(n), hy = new Float32Array(n);
        for (let c = 0; c < n; c++) {
            ez[c] = e[4 * c];
            hx[c] = h[4 * c];
            hy[c] = h[4 * c + 1];
        }
        // texel (nx-1, ny-1) of H holds the step counter (update2d.glsl), not a field
        hx[n - 1] = 0;
        return { ez, hx, hy };
    }

    // The colour-map pass (shaders/colormap.frag: total Ez, the cpu engine's
    // diverging map), or with which = 'h' the (Hx, Hy) picture, as RGBA8
    // pixels [ny][nx] (row 0 = y 0, the bottom).
    render(which = 'ez') {
        const gl = this.gl, m = this.model, { nx, ny } = m;
        const w = m.wave;
        if (which === 'ez') {
            const p = this.prog.colormap;
            gl.useProgram(p);
            const u = (n) => gl.getUniformLocation(p, n);
            // no plane wave (a point source): a step before any front, so
            // that the pass adds no incident field
            gl.uniform1f(u('step_n'), m.point ? -3e38 : this.n);
            gl.uniform1f(u('omega_dt'), w.omega_dt);
            gl.uniform1f(u('cos_t'), w.cos_t);
            gl.uniform1f(u('sin_t'), w.sin_t);
            gl.uniform1f(u('d0'), w.d0);
            gl.uniform1f(u('courant'), m.S);
            gl.uniform1f(u('ramp_steps'), w.ramp_steps);
            gl.uniform1f(u('amplitude'), w.amplitude);
            this.bind('ez_tex', this.ez[this.cur]);
        } else {
            const p = this.prog.viewH;
            gl.useProgram(p);
            gl.uniform1f(gl.getUniformLocation(p, 'amplitude'), w.amplitude);
            this.bind('h_tex', this.half ? this.h[1 - this.cur] : this.h[this.cur]);
        }
        this.bind('mat_tex', this.mat);
        this.draw(this.picture, nx, ny);
        const px = new Uint8Array(4 * nx * ny);
        gl.readPixels(0, 0, nx, ny, gl.RGBA, gl.UNSIGNED_BYTE, px);
        return px;
    }
}

export { KIND_PEC };
