#pragma once

#include <bdt/bullet/ContactFeature.h>
#include <bdt/bullet/DeformableShapeSettings.h>
#include <bdt/core/geometry/Contact.h>
#include <bdt/core/asset/DeformableAsset.h>
#include <bdt/core/dynamics/ModalDynamics.h>
#include <bdt/core/queries/TreeQueries.h>
#include <bdt/core/bounds/TreeState.h>

#include <BulletCollision/CollisionShapes/btConcaveShape.h>

#include <memory>
#include <span>
#include <vector>

namespace bdt
{

class ShapeSolver;
class SurfaceCache;
class PieceMemory;

/// A reduced deformable body's collision shape for Bullet (`CUSTOM_CONCAVE_SHAPE_TYPE`): the surface p + U q
/// (BD-Tree paper eq. 1) as a BD-Tree. Shares an immutable `DeformableAsset`; owns q, q̇ (`ModalDynamics`) and
/// the sphere cache (`TreeState`). Local frame: the rest shape's principal frame times the uniform scaling s.
/// Contacts need `registerCollisionAlgorithms`; ray tests, sweeps and debug drawing work through
/// `processAllTriangles`. Without `bdt::World`: `BeginStep` after stepping q, `ApplyImpulse` for loads.
/// Not thread-safe: queries update the sphere cache.
ATTRIBUTE_ALIGNED16(class) DeformableShape : public btConcaveShape
{
public:
    BT_DECLARE_ALIGNED_ALLOCATOR();

    /// The thickest skin `setMargin` takes, world units (m): a margin is a few millimetres at most; one of
    /// 1e12 overflows Bullet's float solve and puts NaN into the bodies the shape touches.
    static constexpr float cMaxMargin = 1.0f;

    /// A body of `inAsset` at rest (q = 0). Throws `bdt::Error` for a null asset or settings out of range.
    DeformableShape(std::shared_ptr<const DeformableAsset> inAsset, const DeformableShapeSettings& inSettings = {});
    ~DeformableShape() override;

    // --- btCollisionShape / btConcaveShape ---

    /// The root sphere at the current q, grown by the margin, as a world box rounded outwards: holds every
    /// deformed vertex. O(M) once a step, then O(1).
    void getAabb(const btTransform& inTransform, btVector3& outMin, btVector3& outMax) const override;
    /// The root sphere grown by the margin, local frame (√3 tighter than Bullet's generic sphere around the box),
    /// from which Bullet derives the contact breaking threshold. Cached until q, scale, margin or settings change.
    void getBoundingSphere(btVector3& outCenter, btScalar& outRadius) const override;
    /// Exactly the deformed triangles (local frame, current q) whose box overlaps [inMin, inMax], each once;
    /// partId 0, triangleIndex in tree order. A NaN or inverted box reports nothing. Output-sensitive cost.
    void processAllTriangles(btTriangleCallback* ioCallback, const btVector3& inMin,
                             const btVector3& inMax) const override;
    /// mass · s² · principal moments of the rest shape (volume integrals when closed, thin shell otherwise).
    void calculateLocalInertia(btScalar inMass, btVector3& outInertia) const override;
    /// Uniform scaling only: throws `bdt::Error` (changing nothing) for unequal, non-positive or non-finite
    /// components. Rescales the modal masses (μ ∝ s²), keeping q and q̇.
    void setLocalScaling(const btVector3& inScaling) override;
    const btVector3& getLocalScaling() const override { return mLocalScaling; }
    const char* getName() const override { return "BDTDeformable"; }
    /// Skin around the surface in contacts, world units, as Bullet's margins; default 0 (`bdt::World` gives
    /// `BodyMaterial::margin`). Throws `bdt::Error` for a margin that is negative, not finite or above
    /// `cMaxMargin`.
    void setMargin(btScalar inMargin) override;
    btScalar getMargin() const override { return mMargin; }

    // --- The body: its asset, settings and deformation ---

    /// The shared, immutable asset this body is made of.
    const DeformableAsset& Asset() const { return *mAsset; }
    const std::shared_ptr<const DeformableAsset>& AssetPtr() const { return mAsset; }
    /// The settings in force.
    const DeformableShapeSettings& Settings() const { return mSettings; }
    /// Applies new settings live (a new proxy level swaps the proxies, no rebuild), keeping q and q̇. Throws
    /// `bdt::Error` (changing nothing) on settings out of range.
    void SetSettings(const DeformableShapeSettings& inSettings);

    /// The body's modes: q, q̇, their oscillators and guard.
    ModalDynamics& Dynamics() { return mDynamics; }
    const ModalDynamics& Dynamics() const { return mDynamics; }
    /// The sphere cache of the current q.
    TreeState& State() { return mState; }
    const TreeState& State() const { return mState; }
    /// A tree-order triangle's index in the input mesh, and back; cNoIndex outside the mesh.
    std::uint32_t InputTriangle(std::uint32_t inTree) const;
    std::uint32_t TreeTriangle(std::uint32_t inInput) const;

    /// Sets q (kinematic or animated bodies, each |q_j| kept within its strain limit), q̇ = 0, and starts a step.
    /// False, nothing changed, on a wrong size or non-finite or huge (> `TreeState::cMaxAbsQ`) values.
    [[nodiscard]] bool SetQ(std::span<const float> inQ);
    /// Gives the sphere cache the dynamics' q (after stepping them yourself). False if that q was rejected:
    /// the body is then reset to rest, so no bad value reaches a query.
    bool BeginStep();

    /// The farthest any point of the deformed surface, margin included, can be from the local origin, world
    /// units: s·(|c'| + R') + margin of the root sphere. 8M flops if the step has not updated the root yet.
    double SurfaceReach() const;
    /// An upper bound, m/s, on the speed the modes alone give any surface point (eq. 11's root bound). O(M).
    double ModalSurfaceSpeed() const;

    /// The body as the core's queries (`TreeQueries.h`) see it, placed by a Bullet transform of the shape,
    /// its basis replaced by the nearest rotation (kept for the last basis asked for). Queries update the cache.
    DeformedBody QueryView(const btTransform& inWorldFromLocal, double inInflate = 0.0) const;
    /// R, the rest-to-world rotation of `QueryView`'s pose (bit for bit), for the per-proxy calls below.
    Mat3d RestToWorld(const btTransform& inWorldFromLocal) const;

    /// The world velocity of proxy `inNode`'s centre due to the modes, m/s (R = `RestToWorld`); zero outside
    /// the tree. ~6M flops.
    Vec3d ProxyModalVelocity(std::uint32_t inNode, const Mat3d& inRestToWorld) const;
    /// The change of `ProxyModalVelocity` per unit world impulse at proxy `inNode` (m/s per N·s, symmetric
    /// positive semi-definite); zero outside the tree. ~15M flops.
    Mat3d ProxyModalMobility(std::uint32_t inNode, const Mat3d& inRestToWorld) const;
    /// Applies the world impulse `inImpulse` (N·s) at proxy `inNode` to the modes now: q̇ jumps by g/μ,
    /// g_j = s·Ū_jᵀRᵀJ. Ignored outside the tree; a non-finite one is counted and ignored. ~6M flops.
    void ApplyImpulse(std::uint32_t inNode, const Vec3d& inImpulse, const btTransform& inWorldFromLocal);
    void ApplyImpulse(std::uint32_t inNode, const Vec3d& inImpulse, const Mat3d& inRestToWorld);

    /// Work counters of the queries and the narrowphase on this body since `ResetStats`.
    const QueryStats& Stats() const { return mStats; }
    /// Where the narrowphase's pairs with this body as A spent their work and time, since `ResetStats`.
    const NarrowphaseStats& Narrowphase() const { return mNarrowphase; }
    void ResetStats();

private:
    friend class ShapeSolver; // the step's solver hooks (plugin/bullet/ShapeSolver.h, not installed)

    // The nearest rotation Q of a Bullet basis and Q·principal, the last ones asked for: the narrowphase, the
    // prediction and the impulse read-back ask for the same body's rotation many times a step.
    struct RotationMemo
    {
        btScalar basis[9] = {};
        Mat3d nearest = Mat3d::Identity();
        Mat3d restToWorld = Mat3d::Identity();
        bool valid = false;
    };

    // `getBoundingSphere`'s result and what it was computed for.
    struct BoundingSphereMemo
    {
        std::uint64_t version = 0; // `TreeState::Version`
        btScalar scale = 0;
        btScalar margin = 0;
        btVector3 center{0, 0, 0};
        btScalar radius = 0;
        bool valid = false;
    };

    void ApplySettings(const DeformableShapeSettings& inSettings);
    double Scale() const; // the uniform local scaling s
    // The memo for `inBasis`, refitted unless the basis is the last one, element for element (bit-identical
    // results either way: the fit is a function of the basis alone).
    const RotationMemo& Rotations(const btMatrix3x3& inBasis) const;

    std::shared_ptr<const DeformableAsset> mAsset;
    Pose mPrincipal; // mAsset->Mass().ToPrincipal(), rest frame to principal frame
    mutable BoundingSphereMemo mBoundingSphere;
    mutable RotationMemo mRotations;
    DeformableShapeSettings mSettings;
    btVector3 mLocalScaling{1, 1, 1};
    btScalar mMargin = 0;
    mutable TreeState mState;
    std::shared_ptr<const ProxyPatches> mPatches; // the surface model's, at the state's proxy level
    std::shared_ptr<const BDAabbTree> mSurfaceBoxes; // the surface model's box rows
    std::shared_ptr<const ContactPieces> mPieces;    // the surface model's contact pieces
    std::unique_ptr<SurfaceCache> mSurface; // mutable through the pointer, as the sphere cache
    std::unique_ptr<PieceMemory> mPieceUse; // the pieces in use, last step and this one; with mPieces
    ModalDynamics mDynamics;
    std::unique_ptr<ShapeSolver> mSolver; // the step's prediction and pending impulse; mutable through the pointer
    mutable QueryStats mStats;
    mutable NarrowphaseStats mNarrowphase;
};

/// The shape of `inShape` as a `DeformableShape`, or null (checks the type and the name, no RTTI cost).
const DeformableShape* AsDeformable(const btCollisionShape* inShape);
DeformableShape* AsDeformable(btCollisionShape* inShape);

} // namespace bdt
