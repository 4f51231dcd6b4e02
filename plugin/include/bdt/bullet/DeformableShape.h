#pragma once

#include <bdt/core/Contact.h>
#include <bdt/core/DeformableAsset.h>
#include <bdt/core/ModalDynamics.h>
#include <bdt/core/TreeQueries.h>
#include <bdt/core/TreeState.h>

#include <BulletCollision/CollisionShapes/btConcaveShape.h>

#include <memory>
#include <span>
#include <vector>

namespace bdt
{

/// Per-body settings of a `DeformableShape`. Every field can be changed live with `SetSettings`.
struct DeformableShapeSettings
{
    std::uint32_t proxyLevel = 10; ///< Traversal depth L (§3.4): contacts are made at this level's proxies.
    double mass = 1.0;             ///< Body mass in kg, for the modal masses (give the rigid body the same).
    ModalSettings modal;           ///< Vibration: stiffness and damping scales, strain limit.
    EBound bound = EBound::Tight;  ///< Sphere radius bound used by the updates.
    bool temporalCoherence = false; ///< §3.5 temporal coherence of sphere updates.
    /// Contact regions: proxies sharing an ancestor this many levels above L share one persistent manifold
    /// (Bullet keeps at most 4 points in a manifold). ≥ 0; 0 gives one manifold per proxy.
    std::uint32_t regionDepth = 3;
    std::uint32_t maxManifoldsPerPair = 8; ///< Cap on the region manifolds of one pair; ≥ 1.
};

/// A reduced deformable body's collision shape for Bullet: a `btConcaveShape` of type
/// `CUSTOM_CONCAVE_SHAPE_TYPE` whose surface is p + U q (BD-Tree paper eq. 1), held as a BD-Tree.
///
/// One shape per body: it refers to the shared `DeformableAsset` (model, tree, proxies) and owns the body's
/// state: q and q̇ (`ModalDynamics`) and the lazily updated sphere cache (`TreeState`).
///
/// Frames. The shape's local frame (the one Bullet's transforms place) is the rest shape's principal frame,
/// origin at the centre of mass, axes the principal axes (so a `btRigidBody` with this shape has its centre
/// of mass at its origin and a diagonal inertia), times the uniform local scaling s:
/// `local = s · Mass().ToPrincipal().Apply(rest)`.
///
/// Collision with other shapes is done by the algorithms of `registerCollisionAlgorithms`, which must be
/// registered on the world's dispatcher. `processAllTriangles` reports deformed triangles found by a BD-Tree
/// query, so Bullet's `rayTest`, `convexSweepTest`, `contactTest` and debug drawing work unchanged.
///
/// Not thread-safe: queries update the (mutable) sphere cache, as Bullet calls them one at a time.
ATTRIBUTE_ALIGNED16(class) DeformableShape : public btConcaveShape
{
public:
    BT_DECLARE_ALIGNED_ALLOCATOR();

    /// A body of `inAsset` at rest (q = 0). Throws `bdt::Error` if the asset is null or the settings are
    /// out of range (non-positive or non-finite mass, maxManifoldsPerPair 0, modal settings as
    /// `ModalDynamics`).
    DeformableShape(std::shared_ptr<const DeformableAsset> inAsset, const DeformableShapeSettings& inSettings = {});
    ~DeformableShape() override;

    // --- btCollisionShape / btConcaveShape ---

    /// The root sphere at the current q in the frame `inTransform` places, grown by the margin, as a box
    /// (world units; the exact box of the ball under Bullet's float basis, rounded outwards). Contains every
    /// deformed vertex (the spheres are conservative), placed by `inTransform` or by `Body(inTransform)`.
    /// O(M) once per step, then O(1).
    void getAabb(const btTransform& inTransform, btVector3& outMin, btVector3& outMax) const override;
    /// Exactly the deformed triangles (local frame, current q) whose axis-aligned box overlaps the closed box
    /// [inMin, inMax] (local frame), each once; partId 0, triangleIndex the triangle's index in tree order.
    /// Found by a traversal in the local frame pruned by the cubes of the node spheres (not `QueryTriangles`
    /// on the box's rest-frame bounds, which would lose triangles whose box overlaps only once rotated). An
    /// inverted or NaN box reports nothing; huge and infinite bounds are fine. Cost output-sensitive: 8M
    /// flops per node visited, 18M + 60 per triangle tested.
    void processAllTriangles(btTriangleCallback* ioCallback, const btVector3& inMin,
                             const btVector3& inMax) const override;
    /// mass · s² · principal moments of the rest shape (`MassProperties`: volume integrals for a closed
    /// mesh, thin shell otherwise).
    void calculateLocalInertia(btScalar inMass, btVector3& outInertia) const override;
    /// Uniform scaling only: throws `bdt::Error` (and changes nothing) for unequal, non-positive or
    /// non-finite components. Rescales the modal masses (μ ∝ s²): new dynamics carrying q and q̇ over (their
    /// guard counters restart).
    void setLocalScaling(const btVector3& inScaling) override;
    const btVector3& getLocalScaling() const override { return mLocalScaling; }
    const char* getName() const override { return "BDTDeformable"; }
    /// Collision margin: a skin (world units) added around the proxy spheres in contacts. Default 0. A
    /// negative or non-finite margin throws `bdt::Error`.
    void setMargin(btScalar inMargin) override;
    btScalar getMargin() const override { return mMargin; }

    // --- The body's deformation ---

    const DeformableAsset& Asset() const { return *mAsset; }
    const std::shared_ptr<const DeformableAsset>& AssetPtr() const { return mAsset; }
    const DeformableShapeSettings& Settings() const { return mSettings; }
    /// Applies new settings live: a new proxy level swaps the proxies (O(nodes above L), no rebuild), new
    /// modal settings keep q and q̇ (a new mass rebuilds the dynamics, whose guard counters then restart).
    /// Throws `bdt::Error` (and changes nothing) on settings out of range.
    void SetSettings(const DeformableShapeSettings& inSettings);

    ModalDynamics& Dynamics() { return mDynamics; }
    const ModalDynamics& Dynamics() const { return mDynamics; }
    /// The sphere cache (mutable: queries on a const shape update it).
    TreeState& State() const { return mState; }

    /// Starts a collision step: gives the tree state the dynamics' current q (a new update stamp). Returns
    /// false if that q was rejected (non-finite or huge); the dynamics are then reset to rest and the state
    /// set to q = 0, so no bad value reaches a query. (A guard: `ModalDynamics` keeps q finite and within
    /// 1e9, which the tree state accepts.)
    bool BeginStep();
    /// Sets q directly (kinematic or animated bodies), q̇ = 0, and starts a step; like the dynamics, it keeps
    /// each |q_j| within its strain limit (`ModalDynamics::StrainLimit`), so the state and the dynamics hold
    /// the same q. False, nothing changed, on wrong size or non-finite / huge (> `TreeState::cMaxAbsQ`)
    /// values.
    [[nodiscard]] bool SetQ(std::span<const float> inQ);

    /// The query view of this body placed by `inWorldFromLocal` (a Bullet world transform of the shape):
    /// pose = world · principal, scale = s, inflate = `inInflate` (world units). The basis of
    /// `inWorldFromLocal`, orthonormal only to float precision, is replaced by its nearest rotation, as `Pose`
    /// requires.
    DeformedBody Body(const btTransform& inWorldFromLocal, double inInflate = 0.0) const;

    /// Adds the generalised impulse of a world impulse `inImpulse` (N·s, acting on this body) applied at
    /// proxy `inNode`: g_j += s · Ū_jᵀ Rᵀ J, R the rest-to-world rotation of `Body(inWorldFromLocal)`, Ū_j the
    /// node's centre velocity in the current proxy rows. Accumulated until `FlushImpulses`. Non-finite
    /// impulses are ignored and counted by the dynamics (`GuardStats().rejectedImpulses`); a node outside the
    /// tree is ignored. About 6M flops, plus the rotation of `Body` (a nearest-rotation fit).
    void AddContactImpulse(std::uint32_t inNode, const btVector3& inImpulse, const btTransform& inWorldFromLocal);
    /// The same with R given: `inRestToWorld` = `Body(transform).pose.rotation`, computed once for several
    /// impulses on one body. About 6M flops.
    void AddContactImpulse(std::uint32_t inNode, const btVector3& inImpulse, const Mat3d& inRestToWorld);
    /// Applies the accumulated generalised impulse to the dynamics (q̇ jumps) and clears it.
    void FlushImpulses();
    /// The generalised impulse accumulated since the last flush or clear (M entries, N·s·model unit).
    std::span<const double> PendingImpulse() const { return mPendingImpulse; }
    /// Forgets the accumulated impulse without applying it (`bdt::World` applies it instead as a constant
    /// force over the next step, so a steady contact load gives a steady deflection, not a kick a step).
    void ClearImpulses();

    /// Work counters of the queries run on this body (the narrowphase adds to them); reset by the caller.
    QueryStats& Stats() const { return mStats; }

private:
    void ApplySettings(const DeformableShapeSettings& inSettings);
    double Scale() const; // the uniform local scaling s

    std::shared_ptr<const DeformableAsset> mAsset;
    DeformableShapeSettings mSettings;
    btVector3 mLocalScaling{1, 1, 1};
    btScalar mMargin = 0;
    mutable TreeState mState;
    ModalDynamics mDynamics;
    std::vector<double> mPendingImpulse; // generalised impulse accumulated this step (M entries)
    mutable QueryStats mStats;
};

/// The shape of `inShape` as a `DeformableShape`, or null (checks the type and the name, no RTTI cost).
const DeformableShape* AsDeformable(const btCollisionShape* inShape);
DeformableShape* AsDeformable(btCollisionShape* inShape);

} // namespace bdt
