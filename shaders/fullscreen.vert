/* fullscreen.vert - one triangle that covers the viewport, so that every
 * texel of the render target gets exactly one fragment (gl_FragCoord.xy =
 * texel centre).  No vertex buffers: positions come from gl_VertexID. */
void main()
{
    const vec2 p = vec2(float((gl_VertexID & 1) * 4 - 1), float((gl_VertexID & 2) * 2 - 1));
    gl_Position = vec4(p, 0.0, 1.0);
}
