#pragma once

// Writing a step's contacts into Bullet persistent manifolds. The deformable's manifolds are regenerated
// every step (Bullet's refreshContactPoints assumes rigid local points, which a deforming surface breaks),
// so persistence is carried by identifiers instead: a new point whose (m_partId0, m_index0, m_partId1, m_index1)
// match a point of the previous step (the nearest of those that do, in the surface model where a triangle has
// several) inherits its solver warm start. Private to plugin/bullet.

#include "PairContact.h"

#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
#include <array>
#include <span>
#include <vector>

class btCollisionObject;
struct btCollisionObjectWrapper;

namespace bdt
{

/// Bullet's identifiers of a manifold point: A's (m_partId0, m_index0) and B's (m_partId1, m_index1), as
/// `IdentifiersA` and `IdentifiersB` give them (B's those of a compound's child when it has none).
struct PointIds
{
    int partId0 = -1;
    int index0 = -1;
    int partId1 = -1;
    int index1 = -1;

    bool operator==(const PointIds&) const = default;
};

/// The identifiers of `inPoint`.
inline PointIds IdsOf(const btManifoldPoint& inPoint)
{
    return {inPoint.m_partId0, inPoint.m_index0, inPoint.m_partId1, inPoint.m_index1};
}

/// A manifold point for `inContact` between objects A (manifold body 0, the deformable) and B, filled as
/// `btManifoldResult::addContactPoint` does: world and local points (local to the collision objects' world
/// transforms, which Bullet's refreshContactPoints and btManifoldResult use), distance, combined friction,
/// restitution, rolling and spinning friction (Bullet's gCalculateCombined*Callback, by default
/// btManifoldResult's calculateCombined* functions), contact stiffness and damping when either object has
/// CF_HAS_CONTACT_STIFFNESS_DAMPING, the friction-anchor flag, friction directions from btPlaneSpace1.
/// Identifiers: `inIds`.
/// The point's distance is the solver's gap of `SetSolverGap` (before any warm start). A contact with a
/// `compliance` > 0 (a vibrating surface, `PredictContacts`) gets it as Bullet's per-point
/// constraint force mixing (BT_CONTACT_FLAG_HAS_CONTACT_CFM, m_contactCFM = compliance: the solver then
/// reaches J·v·h + compliance·λ = −gap), in series with the contact stiffness and damping if either object
/// has them (converted to CFM and ERP over `inTimeStep` seconds as Bullet's solver does, and the point's
/// stiffness-damping flag cleared: the CFM and ERP share its storage); such a point no longer sees the
/// solver's global CFM (btContactSolverInfo::m_globalCfm, 0 by default).
btManifoldPoint MakeManifoldPoint(const PairContact& inContact, const PointIds& inIds,
                                  const btCollisionObject& inA, const btCollisionObject& inB,
                                  double inTimeStep);

/// What `MakeManifoldPoint` combines from a pair's two objects (the same for all its points): friction,
/// restitution, rolling and spinning friction, contact damping and stiffness (when either object has
/// them), the friction anchor.
struct PairMaterial
{
    btScalar friction = 0, restitution = 0, rollingFriction = 0, spinningFriction = 0;
    btScalar contactDamping = 0, contactStiffness = 0;
    bool stiffnessDamping = false;
    bool frictionAnchor = false;
};

/// The material of the pair (A, B), through Bullet's global combine callbacks where set (the narrowphase
/// calls them once per pair and step, where Bullet's algorithms call them per point).
PairMaterial CombineMaterial(const btCollisionObject& inA, const btCollisionObject& inB);

/// `MakeManifoldPoint` with the pair's material combined once for all its points.
btManifoldPoint MakeManifoldPoint(const PairContact& inContact, const PointIds& inIds,
                                  const btCollisionObject& inA, const btCollisionObject& inB,
                                  double inTimeStep, const PairMaterial& inMaterial);

/// A point as the narrowphase last wrote it into a manifold: its identifiers, where it was on A (its local
/// point, which tells apart a triangle's several points) and its lifetime. Bullet's refreshContactPoints, which
/// btCompoundCollisionAlgorithm runs on its children's manifolds every step, counts m_lifeTime up too (and may
/// drop points), so the lifetime is kept here rather than read back.
struct WrittenPoint
{
    PointIds ids;
    btVector3 localA{0, 0, 0};
    int lifeTime = 0;
};
using WrittenPoints = std::array<WrittenPoint, MANIFOLD_CACHE_SIZE>;

/// For a contact with a prediction (`PredictContacts`; nothing otherwise), sets the distance Bullet's solver
/// gets so that it drives the gap the surface will really have at the end of the step to zero: the
/// geometric distance d (in full when apart, its Baumgarte share erp·d when penetrating, as Bullet would),
/// plus in full the modes' motion with last step's force held (stepMotion), less compliance × the point's
/// warm-start impulse λ° (`m_appliedImpulse`: call it after the warm start), which that motion already
/// holds and Bullet's CFM counts again; so a contact resting under a steady load keeps no gap, whatever its
/// compliance. erp is the point's own (BT_CONTACT_FLAG_HAS_CONTACT_ERP) or the prediction's. Split impulse
/// (btContactSolverInfo::m_splitImpulse) still takes a distance below its threshold (−4 cm by default) out
/// of the velocities, the predicted motion with it.
void SetSolverGap(btManifoldPoint& ioPoint, const PairContact& inContact);

/// The identifiers and lifetimes of `inPoints` (at most MANIFOLD_CACHE_SIZE), for the next step.
WrittenPoints RecordWritten(std::span<const btManifoldPoint> inPoints);

/// The points of a pair's manifolds at the start of a step, kept for warm starting the new ones.
class PreviousPoints
{
public:
    /// Copies every point of `inManifolds` and takes over their user persistent data (the manifolds' slots
    /// are left without it, so releasing or overwriting them destroys nothing twice). `inWritten[m]` is
    /// what was written into `inManifolds[m]` last step: the points' lifetimes come from there.
    void Capture(std::span<btPersistentManifold* const> inManifolds,
                 std::span<const WrittenPoints> inWritten);

    /// Gives `ioPoint` the warm start of the previous point with the same identifiers (`PointIds`), the one
    /// nearest on A (local point) where several have them, if any and not yet given: applied impulse, lateral impulses, previous RHS, lifetime + 1, the user
    /// persistent data, and the friction directions (with their flag) when they had been initialised.
    /// Returns whether a previous point matched.
    bool WarmStart(btManifoldPoint& ioPoint);

    /// Destroys the user persistent data (gContactDestroyedCallback) of the previous points that no new
    /// point took over, then forgets them all.
    void Finish();

    std::size_t Size() const { return mPoints.size(); }

private:
    std::vector<btManifoldPoint> mPoints;
    std::vector<int> mLifeTimes;
    std::vector<bool> mUsed;
};

/// Replaces the points of `ioManifold` by `inPoints` (at most MANIFOLD_CACHE_SIZE), with Bullet's
/// callbacks as btManifoldResult and btPersistentManifold would call them: gContactStartedCallback when the
/// manifold goes from empty to not, gContactEndedCallback the other way, gContactAddedCallback for each
/// point when either object has CF_CUSTOM_MATERIAL_CALLBACK. The points' user data must already be owned
/// by them (see `PreviousPoints`).
void WriteManifold(btPersistentManifold& ioManifold, std::span<const btManifoldPoint> inPoints,
                   const btCollisionObjectWrapper& inA, const btCollisionObjectWrapper& inB);

} // namespace bdt
