#pragma once

#include <LinearMath/btTransform.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/DeformableAsset.h>

namespace bdt
{

/// The surface of a body made by `World::CreateBody` (its vibration is `DeformableShapeSettings::modal`).
struct BodyMaterial
{
    float friction = 0.6f;        ///< Coulomb friction coefficient (Bullet multiplies the two bodies').
    float restitution = 0.0f;     ///< Bounciness in [0, 1] (Bullet multiplies the two bodies').
    float rollingFriction = 0.0f; ///< Bullet's rolling friction.
    /// Collision skin, world units (m): around the deformed surface (surface contacts) or the proxy spheres
    /// (proxy contacts); a resting body keeps this gap. 0 by default: the surface contacts need no skin to
    /// rest on a surface (within 2 mm, `bdt-bench resting`); a few millimetres make contacts start earlier.
    float margin = 0.0f;
};

/// How a body is made by `World::CreateBody`: every setting of its shape (`DeformableShapeSettings`: proxy level,
/// contact model, mass, modal settings, narrowphase coherence and budget, contact regions), its placement and its
/// surface. All of them are set here, at creation; the shape's settings can also change live
/// (`DeformableShape::SetSettings`). `mass` (kg) may be 0 here: a static body, which collides and can be deformed
/// by `DeformableShape::SetQ` but whose modes are not integrated (its shape takes 1 kg for the modal masses);
/// otherwise at least `cMinMass`.
struct BodySettings : DeformableShapeSettings
{
    /// World placement of the mesh as authored: a rest vertex p (model units) starts at `transform * (scale · p)`.
    /// Identity places the model as it was modelled (a chair modelled upright stands upright, its feet where they
    /// were modelled). A rotation (orthonormal basis, determinant 1); the size goes in `scale`. Bullet's
    /// transform of the body is its principal frame instead (`World::MeshTransform`, `MeshFromPrincipal`).
    btTransform transform = btTransform::getIdentity();
    double scale = 1.0; ///< Uniform scale of the model (model units to metres).
    BodyMaterial material;
};

/// The `BodySettings::transform` (mesh frame) that puts the principal frame of a body of `inAsset` at scale
/// `inScale` (its centre of mass and principal axes: Bullet's transform of the body, `DeformableShape`) at
/// `inPrincipal`: for placing a body by its centre of mass. `inPrincipal`'s basis must be a rotation. O(1).
btTransform MeshFromPrincipal(const DeformableAsset& inAsset, double inScale, const btTransform& inPrincipal);

/// The name `BodySettings` had before 0.2.
using BodyDesc [[deprecated("renamed BodySettings")]] = BodySettings;

} // namespace bdt
