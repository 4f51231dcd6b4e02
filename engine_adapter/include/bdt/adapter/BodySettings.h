#pragma once

#include <LinearMath/btTransform.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/asset/DeformableAsset.h>

namespace bdt
{

/// The surface of a body made by `World::CreateBody` (its vibration is `DeformableShapeSettings::modal`).
/// Tuning: docs/TUNING.md#bodymaterial.
struct BodyMaterial
{
    float friction = 0.6f;        ///< Coulomb friction coefficient (Bullet multiplies the two bodies').
    float restitution = 0.0f;     ///< Bounciness in [0, 1] (Bullet multiplies the two bodies').
    float rollingFriction = 0.0f; ///< Bullet's rolling friction.
    /// Collision skin (m, world) around the deformed surface or the proxy spheres; a resting body keeps this
    /// gap. 0 (the default) rests within 2 mm; a few millimetres start contacts earlier. At most
    /// `DeformableShape::cMaxMargin` (1 m).
    float margin = 0.0f;
};

/// How `World::CreateBody` makes a body: its shape's settings (live later through `SetSettings`), placement
/// and surface. `mass` (kg) is at least `cMinMass`, or 0 for a static body: it collides and
/// `DeformableShape::SetQ` deforms it, but its modes are not integrated. Tuning: docs/TUNING.md#bodysettings.
struct BodySettings : DeformableShapeSettings
{
    /// Where the mesh as modelled is placed: a rest vertex p (model units) starts at `transform * (scale · p)`.
    /// A rotation (det 1) and a translation; Bullet's transform is the principal frame (`MeshFromPrincipal`).
    btTransform transform = btTransform::getIdentity();
    double scale = 1.0; ///< Uniform scale of the model (model units to metres).
    BodyMaterial material;
};

/// The `BodySettings::transform` that puts the principal frame (centre of mass, principal axes) of a body of
/// `inAsset` at scale `inScale` at `inPrincipal`, whose basis must be a rotation. O(1).
btTransform MeshFromPrincipal(const DeformableAsset& inAsset, double inScale, const btTransform& inPrincipal);

/// The name `BodySettings` had before 0.2.
using BodyDesc [[deprecated("renamed BodySettings")]] = BodySettings;

} // namespace bdt
