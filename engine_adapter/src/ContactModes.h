#pragma once

// The modes' side of the contacts after Bullet's solve, private to the engine adapter: which friction
// impulses load the modes, and the contact constraint on the normal component of the modes' part of the
// surface velocity.

#include <bdt/core/base/Math.h>
#include <span>

class btCollisionObject;
class btManifoldPoint;
class btPersistentManifold;
struct btContactSolverInfo;

namespace bdt
{
class DeformableShape;
}

namespace bdt::detail
{

/// Whether the contact slides after the solve: its friction impulse saturates the Coulomb cone (μ·λ, to 0.1%)
/// and the surfaces' rigid velocities at the point slip faster than `inInfo.m_restitutionVelocityThreshold`
/// (Bullet's speed below which a contact counts as resting). Only then is the friction impulse determined by
/// the contact alone (μ·λ against the slip); a sticking contact's is one of many a rigid body could take.
bool Slides(const btManifoldPoint& inPoint, const btCollisionObject& inObject0,
            const btCollisionObject& inObject1, const btContactSolverInfo& inInfo);

/// For every point of `inManifold` that pushed (m_appliedImpulse > 0) and touches the modes of a deformable
/// body with a prediction (`ShapeSolver::Predicting`: its modes are stepped this step), the contact
/// constraint applied to the normal component of the modes' part of the relative surface velocity at the
/// proxies: it is stopped (or reversed by the point's restitution above Bullet's restitution velocity
/// threshold), never pulling more than the solver pushed (λ + p ≥ 0). The impulse is that of the modes'
/// exact mobility there (`DeformableShape::ProxyModalMobility`), applied at once to both sides' modes
/// (`DeformableShape::ApplyImpulse`); called for every manifold in turn, it is one Gauss-Seidel sweep over the points:
/// each projection only removes kinetic energy of the modes. Tangentially the modes see the contact as they
/// see its friction (`Slides`): only a sliding contact's friction is a load on them; a sticking one's is the
/// rigid solve's business. (Holding their tangential slip as well damps a pile more, but keeps it awake
/// longer, and rests on no firmer ground.) The frames are
/// not touched: the modes carry no momentum (s_j ≈ 0), so neither does the impulse. `inShapes` are the
/// manifold's bodies' shapes, null where not deformable or not predicting; `inRestToWorld` their
/// `RestToWorld`. About 8M flops a side per point, along the normal only (`ShapeSolver::ProxyCoupling`).
void ConstrainManifoldModes(const btPersistentManifold& inManifold, DeformableShape* const (&inShapes)[2],
                            const Mat3d (&inRestToWorld)[2], const btContactSolverInfo& inInfo);

/// `ConstrainManifoldModes` at one point, with each side's coupling along the point's normal made by the
/// caller (`ShapeSolver::ProxyCoupling` at the side's proxy, `RestToWorld` rotation and the point's
/// `m_normalWorldOnB`): `inCouplings[side]` empty where that side takes no part (not deformable, not
/// predicting, no proxy, or a node outside its tree). For a walk that also needs the couplings for the
/// points' impulses (`DeformableShape::AccumulateImpulse`). About 4M flops a side.
void ConstrainPointModes(const btManifoldPoint& inPoint, DeformableShape* const (&inShapes)[2],
                         const std::span<const double> (&inCouplings)[2], const btContactSolverInfo& inInfo);

} // namespace bdt::detail
