#version 330 core
// Shading of the deformed meshes and the debug spheres: a key light, a sky/ground hemisphere fill and a soft
// specular highlight, with the instance colour's alpha for the translucent sphere views.

in vec3 vWorldPosition;
in vec3 vWorldNormal;
in vec4 vColor;

uniform vec3 uEye;           // camera position, world
uniform vec3 uLightDirection; // unit, towards the light, world

out vec4 fragColor;

void main()
{
    vec3 n = normalize(vWorldNormal);
    vec3 view = normalize(uEye - vWorldPosition);
    if (dot(n, view) < 0.0) // back faces of open meshes (the curtain) are lit from their own side
        n = -n;
    float diffuse = max(dot(n, uLightDirection), 0.0);
    float hemisphere = 0.5 + 0.5 * n.y;
    vec3 ambient = mix(vec3(0.22, 0.20, 0.18), vec3(0.40, 0.45, 0.55), hemisphere);
    vec3 halfway = normalize(uLightDirection + view);
    float specular = pow(max(dot(n, halfway), 0.0), 48.0) * 0.25;
    vec3 colour = vColor.rgb * (ambient + 0.85 * diffuse) + vec3(specular);
    fragColor = vec4(pow(colour, vec3(1.0 / 2.2)), vColor.a);
}
