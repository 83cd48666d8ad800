// shader.js - the page's fragment passes, built at load time from the same
// files as the C engine's (gl/shader.c): shaders/update2d.glsl with its two
// #include lines replaced by shaders/yee_prelude.glsl followed by
// shaders/yee_prelude_es.glsl, and by core/yee.h; the pass files of
// shaders/, a #version line and the #defines of the scene.
//
// What WebGL2 (GLSL ES 3.00) lacks, and what the page does instead:
//  - `precise`: dropped; products go through R() of
//    shaders/yee_prelude_es.glsl (an XOR with a uniform 0) instead, so that
//    no product is fused into an add (the denormal probe has no add after
//    its product).
//  - `const` locals with run-time initialisers (desktop GLSL 4.20+): ES wants
//    a constant expression after `const`, so the keyword is removed
//    everywhere (no value changes; the compiler loses only a check).
//  - layout(binding = N) on samplers (GLSL 4.20): removed; the page sets
//    each sampler's texture unit with uniform1i by name (UNITS below).
//  - samplerBuffer (texture buffers): the slot values come in a 2D R32F
//    texture instead (web/shaders/update_e_es.frag, the one pass of its own).
//  - compute shaders: none, so this is the fragment engine (gl), not
//    gl-compute.  Integer textures (R8UI, R32UI, RG32UI) WebGL2 has.
//  - double precision (packDouble2x32 of the exact-bits literal rewrite):
//    none; the incident values are computed by the page in JavaScript
//    numbers, which are IEEE doubles (web/incident.js).
// Line numbers follow gl/shader.c: the pass from 1, the library from 100001,
// its k-th include from (k + 2) * 100000 + 1, so a compile error names the
// file and line (firstError).

export const LINE_BASE = 100000;

// texture unit of each sampler name (any program)
export const UNITS = {
    h_tex: 0, ez_tex: 1, mat_tex: 2, slot_tex: 3, slot_values: 4, pml_prof: 5,
    psi_hxy_tex: 6, psi_hyx_tex: 7, psi_ezy_tex: 8, psi_ezx_tex: 9, psi_old: 10,
};

const HEADER = '#version 300 es\nprecision highp float;\nprecision highp int;\n'
    + 'precision highp sampler2D;\nprecision highp usampler2D;\n';

const cache = new Map();
async function text(url) {
    if (!cache.has(url)) {
        cache.set(url, fetch(url).then((r) => {
            if (!r.ok)
                throw new Error(`cannot fetch ${url}: ${r.status}`);
            return r.text();
        }));
    }
    return cache.get(url);
}

// The GLSL ES rewrites above; non-ASCII characters (in comments) become '?'
// (GLSL ES allows only ASCII in source).
export function esRewrite(src) {
    return src.replace(/layout\s*\(\s*binding\s*=\s*\d+\s*\)\s*/g, '')
        .replace(/\bconst\s+/g, '')
        .replace(/\bprecise\s+/g, '')
        .replace(/[^\x00-\x7f]/g, '?');
}

// The files an include of shaders/update2d.glsl stands for in the page.
const INCLUDE_URLS = {
    'yee_prelude.glsl': ['shaders/yee_prelude.glsl', 'shaders/yee_prelude_es.glsl'],
    'yee.h': ['core/yee.h'],
};

// The library text with its includes spliced in; files[k] the file of
// #line source number k + 1.
export async function loadLibrary(root, name) {
    const files = [`shaders/${name}`];
    const raw = await text(root + files[0]);
    const out = [];
    const lines = raw.split('\n');
    for (let ln = 1; ln <= lines.length; ln++) {
        const m = /^#include "([^"]+)"/.exec(lines[ln - 1]);
        if (!m) {
            out.push(lines[ln - 1]);
            continue;
        }
        const urls = INCLUDE_URLS[m[1]];
        if (!urls)
            throw new Error(`${files[0]}:${ln}: the page has no file for #include "${m[1]}"`);
        for (const url of urls) {
            files.push(url);
            const k = files.length; /* source-string number */
            out.push(`#line ${k * LINE_BASE + 1} ${k}`);
            out.push(await text(root + url));
        }
        out.push(`#line ${LINE_BASE + ln + 1} 1`);
    }
    return { text: esRewrite(out.join('\n')), files };
}

// First error of a compile log as file:line: message (ANGLE's log:
// "ERROR: 0:12: ...").
function firstError(log, lib, pass) {
    for (const line of log.split('\n')) {
        const m = /^ERROR:\s*(\d+):(\d+):\s*(.*)$/.exec(line);
        if (!m)
            continue;
        const ln = Number(m[2]);
        const f = Math.floor((ln - 1) / LINE_BASE);
        if (lib && f >= 1 && f <= lib.files.length)
            return `${lib.files[f - 1]}:${ln - f * LINE_BASE}: ${m[3]}`;
        return `${pass}:${ln}: ${m[3]}`;
    }
    return `${pass}: ${log.trim() || 'compile failed'}`;
}

function compile(gl, stage, src, lib, pass) {
    const sh = gl.createShader(stage);
    gl.shaderSource(sh, src);
    gl.compileShader(sh);
    if (!gl.getShaderParameter(sh, gl.COMPILE_STATUS)) {
        const msg = firstError(gl.getShaderInfoLog(sh) || '', lib, pass);
        gl.deleteShader(sh);
        throw new Error(msg);
    }
    return sh;
}

// A program of the full-screen vertex stage and the fragment pass `frag`
// (a path under the root: shaders/... or web/shaders/...), with the library
// update2d.glsl where `withLib`, and `defines` ({NAME: value}).
export async function buildProgram(gl, root, frag, defines, withLib) {
    const lib = withLib ? await loadLibrary(root, 'update2d.glsl') : null;
    const vsrc = esRewrite(await text(root + 'shaders/fullscreen.vert'));
    const fsrc = esRewrite(await text(root + frag));
    const defs = Object.entries(defines).map(([k, v]) => `#define ${k} ${v}\n`).join('');
    const fs = HEADER + defs
        + (lib ? `#line ${LINE_BASE + 1} 1\n${lib.text}\n#line 1 0\n` : '#line 1 0\n') + fsrc;
    const vs = compile(gl, gl.VERTEX_SHADER, HEADER + '#line 1 0\n' + vsrc, null,
        'shaders/fullscreen.vert');
    const f = compile(gl, gl.FRAGMENT_SHADER, fs, lib, frag);
    const prog = gl.createProgram();
    gl.attachShader(prog, vs);
    gl.attachShader(prog, f);
    gl.linkProgram(prog);
    gl.deleteShader(vs);
    gl.deleteShader(f);
    if (!gl.getProgramParameter(prog, gl.LINK_STATUS))
        throw new Error(`${frag}: link failed: ${gl.getProgramInfoLog(prog)}`);
    gl.useProgram(prog);
    for (const [name, unit] of Object.entries(UNITS)) {
        const loc = gl.getUniformLocation(prog, name);
        if (loc)
            gl.uniform1i(loc, unit);
    }
    const yz = gl.getUniformLocation(prog, 'y_zero');
    if (yz)
        gl.uniform1ui(yz, 0);
    return prog;
}
