#version 330 core
// A 1 m grid on a neutral ground, fading into the background colour with distance.

in vec3 vWorldPosition;

uniform vec3 uEye;
uniform vec3 uBackground; // linear

out vec4 fragColor;

void main()
{
    vec2 cell = vWorldPosition.xz;
    vec2 width = fwidth(cell);
    vec2 distanceToLine = abs(fract(cell - 0.5) - 0.5) / max(width, vec2(1e-6));
    float line = 1.0 - clamp(min(distanceToLine.x, distanceToLine.y), 0.0, 1.0);
    vec3 colour = mix(vec3(0.30, 0.31, 0.30), vec3(0.18, 0.19, 0.19), line);
    float fade = clamp(length(vWorldPosition - uEye) / 120.0, 0.0, 1.0);
    colour = mix(colour, uBackground, fade * fade);
    fragColor = vec4(pow(colour, vec3(1.0 / 2.2)), 1.0);
}
