/* colormap.frag - the picture pass: total field Ez = scattered (the Ez
 * texture) + incident, coloured with the diverging map of core/colormap.c into
 * an RGBA8 target, so that a snapshot costs one small readback.
 *
 *   v = (Ez_scat + Ez_inc) / (2 A), clamped to [-1, 1]
 *   v < 0: LOW + (MID - LOW)(v + 1);  v >= 0: MID + (HIGH - MID) v
 *   PEC cells black, dielectric cells darkened to 3/4 (integer, as in C).
 * The incident wave is evaluated here in float (core/model.c does it in
 * double), so a few pixels can differ by one level from the host colouring;
 * the fields themselves never pass through this shader. */
uniform sampler2D ez_tex;   /* scattered Ez */
uniform usampler2D mat_tex; /* material index */
uniform uint kind[NMATS];   /* 0 vacuum, 1 PEC, 2 dielectric */
uniform float step_n;       /* time step n of the field */
uniform float omega_dt, cos_t, sin_t, d0, courant, ramp_steps, amplitude;

out vec4 color;

const vec3 LOW = vec3(59.0, 76.0, 192.0);
const vec3 MID = vec3(242.0, 242.0, 242.0);
const vec3 HIGH = vec3(180.0, 4.0, 38.0);

/* core/model.c model_incident() */
float incident(vec2 ij)
{
    const float tau = (ij.x * cos_t + ij.y * sin_t - d0) / courant;
    const float s = step_n - tau;
    if (s <= 0.0)
        return 0.0;
    const float r = (ramp_steps > 0.0 && s < ramp_steps) ? s / ramp_steps : 1.0;
    return amplitude * r * sin(omega_dt * s);
}

void main()
{
    const ivec2 p = ivec2(gl_FragCoord.xy);
    const uint k = kind[texelFetch(mat_tex, p, 0).r];
    if (k == 1u) {
        color = vec4(0.0, 0.0, 0.0, 1.0);
        return;
    }
    float v = (texelFetch(ez_tex, p, 0).r + incident(vec2(p))) / (2.0 * amplitude);
    if (!(v >= -1.0)) /* also NaN, as in C */
        v = -1.0;
    v = min(v, 1.0);
    const vec3 rgb = v < 0.0 ? LOW + (MID - LOW) * (v + 1.0) : MID + (HIGH - MID) * v;
    uvec3 c = uvec3(floor(rgb + 0.5));
    if (k == 2u)
        c = c * 3u / 4u;
    color = vec4(vec3(c) / 255.0, 1.0);
}
