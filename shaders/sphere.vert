#version 330 core
// Debug view of BD-Tree spheres: a unit sphere mesh instanced at each sphere's world centre and radius
// (attribute 2: centre xyz, radius w, metres), coloured per instance (attribute 3).

layout(location = 0) in vec3 aUnitPosition;
layout(location = 2) in vec4 aCenterRadius;
layout(location = 3) in vec4 aColor;

uniform mat4 uViewProjection;

out vec3 vWorldPosition;
out vec3 vWorldNormal;
out vec4 vColor;

void main()
{
    vWorldPosition = aCenterRadius.xyz + aCenterRadius.w * aUnitPosition;
    vWorldNormal = aUnitPosition;
    vColor = aColor;
    gl_Position = uViewProjection * vec4(vWorldPosition, 1.0);
}
