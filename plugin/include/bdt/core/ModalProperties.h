#pragma once

#include <bdt/core/Math.h>
#include <bdt/core/Model.h>

#include <span>
#include <vector>

namespace bdt
{

/// Per-mode integrals of a displacement basis under a lumped mass distribution, per unit body mass, used to
/// turn contact impulses and frame accelerations into generalised forces on q, and q̇ into kinetic energy.
///
/// Vertex i carries the mass fraction w_i (Σ w_i = 1): one third of the area of each triangle around it over
/// the total area (uniform 1/N if the area is zero). With U_ij the basis vector of vertex i and mode j and
/// r_i = p_i − centre of mass:
///
///     modalMass[j]        = Σ_i w_i |U_ij|²          (μ_j / m; the diagonal of Uᵀ M U / m)
///     meanDisplacement[j] = Σ_i w_i U_ij             (s_j; zero for a basis mass-orthogonal to translations)
///     firstMoment[j]      = Σ_i w_i U_ij r_iᵀ         (A_j, 3×3; couples the mode to rotations of the frame)
///     maxDisplacement[j]  = max_i |U_ij|
///
/// The modal dynamics treat the modes as decoupled (mass-orthogonal), as modal analysis gives them; for other
/// bases this diagonal is an approximation of the coupled mass matrix.
struct ModalProperties
{
    std::vector<double> modalMass;       ///< μ_j / m, M entries (model units² per unit q_j²).
    std::vector<Vec3d> meanDisplacement; ///< s_j, M entries (rest-frame axes, model units per unit q_j).
    std::vector<Mat3d> firstMoment;      ///< A_j, M entries (rest-frame axes, model units² per unit q_j).
    std::vector<double> maxDisplacement; ///< max_i |U_ij|, M entries (model units per unit q_j).
};

/// The integrals above for `inModel`, with moments about `inCenterOfMass` (rest frame). Cost O(N·M + T).
ModalProperties ComputeModalProperties(const Model& inModel, const Vec3d& inCenterOfMass);

/// Takes the rigid part out of each mode's coupling to the frame in `ioProperties` (made by
/// `ComputeModalProperties(inModel, inCenterOfMass)`): s_j and A_j become those of U_ij − t_j − ω_j × r_i, the
/// mode less the rigid motion (t_j, ω_j) that is nearest to it under the lumped mass (its translation and
/// rotation about the mass centre). So s_j = 0 and A_j is left symmetric: a frame's uniform acceleration,
/// gravity and angular acceleration no longer load the mode (they move a free body without deforming it), its
/// rotation still does, centrifugally. A basis that modal analysis made mass-orthogonal to the rigid motions has
/// that part at the level of the lumped surface mass's mismatch with the volume mass it was made with (about 1%
/// for a baked slab), which is no motion but a one-way path: the frame's motion would drive the modes, which
/// never push the frame back, and a body resting on its contacts would ring for good. `modalMass` and
/// `maxDisplacement` are left as they are. O(N·M + T).
void RemoveRigidCoupling(ModalProperties& ioProperties, const Model& inModel, const Vec3d& inCenterOfMass);

/// Generalised inertial force on each mode of a body whose frame accelerates (§ "frame forcing"): every
/// point of the body feels g − a_i in the frame, a_i = a + α × x_i + ω × (ω × x_i) the acceleration of the
/// frame point x_i = s·R·r_i. With B = [α_b]× + [ω_b]×² in body axes (α_b = Rᵀα, ω_b = Rᵀω):
///
///     f_j = m·s·( s_j · Rᵀ(g − a) − s·⟨B, A_j⟩_F )
///
/// `inRotation` body-to-world, all vectors in world units and axes; `inMass` kg; `inScale` the uniform
/// scale s. Writes M values to `outForce` (generalised force, N·model unit), which must have exactly M
/// entries (M = `inProperties.modalMass.size()`); throws `bdt::Error` otherwise. Cost about 20M flops.
void InertialForce(const ModalProperties& inProperties, double inMass, double inScale,
                   const Mat3d& inRotation, const Vec3d& inLinearAcceleration, const Vec3d& inGravity,
                   const Vec3d& inAngularVelocity, const Vec3d& inAngularAcceleration,
                   std::span<double> outForce);

} // namespace bdt
