#pragma once

#include <bdt/core/Math.h>
#include <bdt/core/Model.h>

namespace bdt
{

/// Rigid mass properties of a model's rest shape, per unit mass, in model units and the rest frame.
struct MassProperties
{
    /// True when computed from volume integrals of a closed, consistently oriented mesh (a solid of uniform
    /// density); false for the thin-shell fallback (uniform surface density over the triangles), used for
    /// open or non-manifold meshes and for closed meshes of (near) zero volume.
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
    /// Principal moments per unit mass (model units²), each at least 1e-3 of the largest, so that a flat or
    /// needle-like model still gives Bullet a finite angular response.
    Vec3d principalInertia = Vec3d::Ones();

    /// The transform from the rest frame to the principal frame (origin at the centre of mass, axes the
    /// principal axes): `principal = ToPrincipal().Apply(rest)`.
    Pose ToPrincipal() const;
};

/// Mass properties of `inModel`'s rest mesh. For a closed mesh (every edge shared by exactly two triangles
/// with opposite orientations, non-zero enclosed volume): exact volume integrals by the divergence theorem
/// (a sum over triangles of signed-tetrahedron moments, in double, about the centre of the rest bounds),
/// whatever the winding (an inward-wound mesh gives the same result). Otherwise the thin-shell fallback,
/// with `solid = false`: exact triangle moments under a uniform surface density. The closedness test is
/// passed by the triangles' own indices or, failing that, with vertices at bitwise equal positions merged
/// (split vertices of flat shading or UV seams); degenerate triangles (a repeated vertex or zero area) are
/// skipped. "Non-zero volume" is |V| > 1e-8·area^{3/2}; a closed mesh whose parts have inconsistent
/// windings, so that its second moment is not positive semi-definite, also falls back to the shell.
/// Cost O(T log T) (the edge sort). Throws `bdt::Error` if the model has zero area.
MassProperties ComputeMassProperties(const Model& inModel);

} // namespace bdt
