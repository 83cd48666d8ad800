// incident.js - the incident plane wave of core/incident.h, in JavaScript,
// made at load time from that very file (not a copy).
//
// core/incident.h is written in the common subset of C, CUDA and GLSL with
// only +, -, *, floor and exact scalings by powers of two (its sine and
// exponential are written out), so that every engine gets the same bits.
// JavaScript numbers are IEEE doubles and its +, -, * round to nearest
// (never fused), so the same statements give the same doubles here.  The
// page turns the file's functions into JavaScript with a few textual
// rewrites (translate below): `INC_FN double f(T a, ...)` becomes
// `function f(a, ...)`, I_LET `const`, I_VAR `let`, I_K(x) the literal x
// (ECMAScript converts a 17-digit decimal literal correctly rounded, as
// strtod does), and the I_ macros functions: I_ADD a + b, I_SUB a - b,
// I_MUL a * b, I_FLOOR Math.floor, I_LDEXP a times the exact power 2^k.

// 2^k exactly, for a normal power (-1022 <= k <= 1023), from its bits.
function pow2(k) {
    if (!(k >= -1022 && k <= 1023))
        throw new Error(`I_LDEXP: 2^${k} is not a normal double`);
    const v = new DataView(new ArrayBuffer(8));
    v.setUint32(0, (k + 1023) << 20);
    v.setUint32(4, 0);
    return v.getFloat64(0);
}

// The JavaScript text of incident.h's part after its C/CUDA prelude.
export function translate(src) {
    const a = src.indexOf('#define INC_NONE');
    const b = src.lastIndexOf('#endif');
    if (a < 0 || b < a)
        throw new Error('core/incident.h: the definitions after the prelude were not found');
    let body = src.slice(a, b);
    body = body.replace(/struct inc_wave \{[\s\S]*?\};/, '');
    body = body.replace(/^#define (\w+) (\S+).*$/gm, 'const $1 = $2;');
    body = body.replace(/INC_FN double (\w+)\(([^)]*)\)/g, (m, name, args) => {
        const names = args.split(',').map((s) => s.trim().split(/\s+/).pop());
        return `function ${name}(${names.join(', ')})`;
    });
    body = body.replace(/\bI_LET\b/g, 'const').replace(/\bI_VAR\b/g, 'let');
    body = body.replace(/\bI_K\(([^()]*)\)/g, '($1)');
    if (/\b(I_K|INC_FN|INC_WAVE|double|int)\b/.test(body.replace(/\/\*[\s\S]*?\*\//g, '')))
        throw new Error('core/incident.h: a construct the page does not translate');
    return body;
}

// The functions and constants of incident.h: {inc_sin, inc_exp,
// inc_waveform, inc_at, inc_hnode, inc_slot, inc_eslot_value, ...,
// INC_PLANE, ...}.
export function fromSource(src) {
    const body = translate(src);
    const names = [...body.matchAll(/^(?:function (\w+)\(|const (\w+) =)/gm)]
        .map((m) => m[1] || m[2]);
    const make = new Function('I_ADD', 'I_SUB', 'I_MUL', 'I_FLOOR', 'I_LDEXP',
        `"use strict";\n${body}\nreturn {${names.join(', ')}};`);
    return make((x, y) => x + y, (x, y) => x - y, (x, y) => x * y, Math.floor,
        (x, k) => x * pow2(k));
}

export async function load(root) {
    const r = await fetch(root + 'core/incident.h');
    if (!r.ok)
        throw new Error(`cannot fetch core/incident.h: ${r.status}`);
    return fromSource(await r.text());
}
