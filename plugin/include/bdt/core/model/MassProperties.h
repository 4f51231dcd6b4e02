#pragma once

#include <bdt/core/base/Math.h>
#include <bdt/core/model/Model.h>

namespace bdt
{

/// Rigid mass properties of a model's rest shape, per unit mass, in model units and the rest frame.
struct MassProperties
{
    /// True for a uniform solid (a closed mesh with volume); false for the thin-shell fallback (uniform
    /// surface density) of open, non-manifold or flat meshes.
    bool solid = false;
    double volume = 0.0;                ///< Enclosed volume (model units³); 0 for the shell fallback.
    double area = 0.0;                  ///< Total triangle area (model units²).
    Vec3d centerOfMass = Vec3d::Zero(); ///< Rest frame.
    /// Inertia tensor per unit mass about the centre of mass, rest-frame axes (model units²). Multiply by the
    /// body mass (and the square of any uniform scale) for kg·m².
    Mat3d inertia = Mat3d::Identity();
    /// Principal axes: columns are unit axes in the rest frame, right-handed (det +1), sorted by the
    /// principal moments in increasing order.
    Mat3d principalAxes = Mat3d::Identity();
    /// Principal moments per unit mass (model units²), each at least 1e-3 of the largest (finite for Bullet).
    Vec3d principalInertia = Vec3d::Ones();

    /// The transform from the rest frame to the principal frame (origin at the centre of mass, axes the
    /// principal axes): `principal = ToPrincipal().Apply(rest)`.
    Pose ToPrincipal() const;
};

/// Mass properties of `inModel`'s rest mesh: exact volume integrals for a closed mesh (vertices at equal
/// positions merged, either winding, |V| > 1e-8·area^{3/2}), else the thin shell (`solid` false).
/// O(T log T). Throws `bdt::Error` if the model has zero area.
MassProperties ComputeMassProperties(const Model& inModel);

} // namespace bdt
