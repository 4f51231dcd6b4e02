#pragma once

#include <bdt/core/base/Math.h>
#include <bdt/core/model/Model.h>

#include <span>
#include <vector>

namespace bdt
{

/// Per-mode integrals of a basis per unit body mass, for generalised forces and kinetic energy. Vertex i
/// weighs w_i, a third of its triangles' area over the total (1/N if none); r_i = p_i − centre of mass.
/// The modes are taken as decoupled: exact for mass-orthogonal modes, an approximation otherwise.
struct ModalProperties
{
    std::vector<double> modalMass;       ///< μ_j / m = Σ_i w_i |U_ij|², M entries (model units² per q_j²).
    std::vector<Vec3d> meanDisplacement; ///< s_j = Σ_i w_i U_ij, M entries (rest axes, model units per q_j).
    std::vector<Mat3d> firstMoment;      ///< A_j = Σ_i w_i U_ij r_iᵀ, M entries (rest axes, units² per q_j).
    std::vector<double> maxDisplacement; ///< max_i |U_ij|, M entries (model units per unit q_j).
};

/// The integrals above for `inModel`, with moments about `inCenterOfMass` (rest frame). Cost O(N·M + T).
ModalProperties ComputeModalProperties(const Model& inModel, const Vec3d& inCenterOfMass);

/// Takes each mode's nearest rigid motion out of its coupling to the frame (`ioProperties` from
/// `ComputeModalProperties(inModel, inCenterOfMass)`): s_j = 0 and A_j symmetric, so only the frame's angular
/// velocity loads the modes (centrifugally). `modalMass` and `maxDisplacement` are left as they are. O(N·M + T).
void RemoveRigidCoupling(ModalProperties& ioProperties, const Model& inModel, const Vec3d& inCenterOfMass);

/// Generalised inertial force (§ "frame forcing", N·model unit) on the modes of a body whose frame accelerates:
/// f_j = m·s·(s_j · Rᵀ(g − a) − s·⟨B, A_j⟩_F), B = [Rᵀα]× + [Rᵀω]×², m kg, s the scale, world units and axes.
/// `outForce` must have exactly M entries (throws `bdt::Error` otherwise). About 20M flops.
void InertialForce(const ModalProperties& inProperties, double inMass, double inScale,
                   const Mat3d& inRotation, const Vec3d& inLinearAcceleration, const Vec3d& inGravity,
                   const Vec3d& inAngularVelocity, const Vec3d& inAngularAcceleration,
                   std::span<double> outForce);

} // namespace bdt
