#version 330 core
// The ground plane y = uHeight as one large quad (four corners from gl_VertexID, drawn as a triangle strip).

uniform mat4 uViewProjection;
uniform float uHeight;
uniform float uHalfSize;

out vec3 vWorldPosition;

void main()
{
    vec2 corner = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1)) * 2.0 - 1.0;
    vWorldPosition = vec3(corner.x * uHalfSize, uHeight, corner.y * uHalfSize);
    gl_Position = uViewProjection * vec4(vWorldPosition, 1.0);
}
