/* view_h.frag - the page's picture of the (Hx, Hy) texture: Hx in red, Hy in
 * green, each over [-A, A] (A the amplitude, so that the incident wave would
 * fill the range), on black; PEC cells grey.  The fields themselves never
 * pass through this shader. */
uniform sampler2D h_tex;   /* (Hx, Hy), RG32F */
uniform usampler2D mat_tex;
uniform uint kind[NMATS];
uniform float amplitude;

out vec4 color;

void main()
{
    const ivec2 p = ivec2(gl_FragCoord.xy);
    if (kind[texelFetch(mat_tex, p, 0).r] == 1u) {
        color = vec4(0.35, 0.35, 0.35, 1.0);
        return;
    }
    const vec2 h = texelFetch(h_tex, p, 0).rg / amplitude;
    color = vec4(clamp(0.5 + 0.5 * h.x, 0.0, 1.0), clamp(0.5 + 0.5 * h.y, 0.0, 1.0), 0.5, 1.0);
}
