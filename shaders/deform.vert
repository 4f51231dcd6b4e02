#version 330 core
// Reduced deformable surface for display (BD-Tree paper §2, eq. 1): p' = p + Σ_j U_j q_j and, to first order,
// n' = n + Σ_j N_j q_j, evaluated per vertex on the GPU. Many bodies sharing one model are drawn instanced:
// each instance brings its model-to-world transform as vertex attributes and its q as M consecutive floats of
// uQ, at gl_InstanceID · M. The CPU never deforms a vertex for display.
//
// Buffers (see demo/render/DeformedMeshRenderer.h):
// - attributes 0, 1: rest position p and rest unit normal n, model units, the model's rest frame;
// - uBasis (RGBA32F texture buffer): texel 2(iM + j) holds U_ij (xyz), texel 2(iM + j) + 1 holds N_ij;
// - uQ (R32F texture buffer): q of the instance, M floats per instance, in draw order;
// - attributes 2-4: rows of the instance's affine model-to-world transform (rotation · uniform scale |
//   translation), metres; attribute 5: its colour;
// - for motion vectors, where the instance was a step earlier: attributes 6-8, the rows of its model-to-world
//   transform then, and uPreviousQ (R32F texture buffer), its q then, laid out as uQ (bdt::World's
//   PreviousMeshTransform and PreviousQ). vPreviousWorldPosition is the vertex there; a renderer projects it
//   with the previous frame's view-projection for screen-space motion vectors.
// With M = 0 the mesh is drawn rigid (primitives share this shader).
//
// uDisplacementRange > 0 colours deformable bodies by how far each vertex has moved, |U_i q| in metres: dark
// blue at rest through green and yellow to dark red at uDisplacementRange and beyond (the palette of the
// sphere view's tightness colours). uMotionRange > 0 colours every body by how far each vertex moved over the
// last step, |vWorldPosition - vPreviousWorldPosition| in metres, on the same scale (it wins over
// uDisplacementRange). 0 for both keeps the instance colour.

layout(location = 0) in vec3 aRestPosition;
layout(location = 1) in vec3 aRestNormal;
layout(location = 2) in vec4 aModelRow0;
layout(location = 3) in vec4 aModelRow1;
layout(location = 4) in vec4 aModelRow2;
layout(location = 5) in vec4 aColor;
layout(location = 6) in vec4 aPreviousRow0;
layout(location = 7) in vec4 aPreviousRow1;
layout(location = 8) in vec4 aPreviousRow2;

uniform samplerBuffer uBasis;
uniform samplerBuffer uQ;
uniform samplerBuffer uPreviousQ;
uniform int uModeCount;
uniform mat4 uViewProjection;
uniform float uDisplacementRange; // metres; 0: off
uniform float uMotionRange;       // metres over the last step; 0: off

// The sphere view's palette (demo/app/SceneView.cpp, TightnessColor), sRGB stops, t in [0, 1].
vec3 Heat(float t)
{
    const vec3 stops[6] = vec3[6](vec3(0.10, 0.25, 0.95), vec3(0.10, 0.80, 0.90), vec3(0.20, 0.80, 0.25),
                                  vec3(0.95, 0.90, 0.15), vec3(0.95, 0.20, 0.10), vec3(0.45, 0.02, 0.02));
    float x = clamp(t, 0.0, 1.0) * 5.0;
    int i = min(int(x), 4);
    return mix(stops[i], stops[i + 1], x - float(i));
}

out vec3 vWorldPosition;
out vec3 vWorldNormal;
out vec4 vColor;
out vec3 vPreviousWorldPosition;

void main()
{
    vec3 position = aRestPosition;
    vec3 previous = aRestPosition;
    vec3 normal = aRestNormal;
    int basisTexel = 2 * gl_VertexID * uModeCount;
    int qTexel = gl_InstanceID * uModeCount;
    for (int j = 0; j < uModeCount; ++j)
    {
        float q = texelFetch(uQ, qTexel + j).r;
        vec3 u = texelFetch(uBasis, basisTexel + 2 * j).xyz;
        position += q * u;
        previous += texelFetch(uPreviousQ, qTexel + j).r * u;
        normal += q * texelFetch(uBasis, basisTexel + 2 * j + 1).xyz;
    }
    vec4 p = vec4(position, 1.0);
    vWorldPosition = vec3(dot(aModelRow0, p), dot(aModelRow1, p), dot(aModelRow2, p));
    vec4 p0 = vec4(previous, 1.0);
    vPreviousWorldPosition = vec3(dot(aPreviousRow0, p0), dot(aPreviousRow1, p0), dot(aPreviousRow2, p0));
    // Rotation times a uniform scale: the normal goes through the same linear part, then is renormalised.
    vec3 n = vec3(dot(aModelRow0.xyz, normal), dot(aModelRow1.xyz, normal), dot(aModelRow2.xyz, normal));
    float length2 = dot(n, n);
    vWorldNormal = length2 > 0.0 ? n * inversesqrt(length2) : vec3(0.0, 1.0, 0.0);
    vColor = aColor;
    if (uMotionRange > 0.0)
        vColor = vec4(pow(Heat(length(vWorldPosition - vPreviousWorldPosition) / uMotionRange), vec3(2.2)), aColor.a);
    else if (uDisplacementRange > 0.0 && uModeCount > 0)
    {
        vec3 moved = position - aRestPosition;
        vec3 world = vec3(dot(aModelRow0.xyz, moved), dot(aModelRow1.xyz, moved), dot(aModelRow2.xyz, moved));
        vColor = vec4(pow(Heat(length(world) / uDisplacementRange), vec3(2.2)), aColor.a);
    }
    gl_Position = uViewProjection * vec4(vWorldPosition, 1.0);
}
