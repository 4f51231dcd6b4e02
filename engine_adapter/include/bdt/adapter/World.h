#pragma once

#include <LinearMath/btTransform.h>
#include <bdt/adapter/AttachmentSettings.h>
#include <bdt/adapter/BodySettings.h>
#include <bdt/adapter/DebugDrawSettings.h>
#include <bdt/adapter/StepStats.h>
#include <bdt/adapter/WorldSettings.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/DeformableAsset.h>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

class btDiscreteDynamicsWorld;
class btDynamicsWorld;
class btIDebugDraw;
class btRigidBody;

namespace bdt
{

namespace detail
{
class CoupledContactSolver;
class SurfaceAttachment;
struct CoupledBody;
} // namespace detail

/// Attaches reduced deformable bodies to an existing `btDiscreteDynamicsWorld`, which it does not own: it steps
/// their modes in Bullet's internal tick callbacks (chained with the host's) and solves their contacts and
/// attachments with Bullet's solver. What each step does, in order: docs/ARCHITECTURE.md; the state guard that
/// keeps a host's bad values from spreading: docs/ROBUSTNESS.md.
///
/// The dispatcher must have the BD-Tree algorithms (`registerCollisionAlgorithms` or
/// `bdt::CollisionConfiguration`), and one World per Bullet world: the constructor throws `bdt::Error` otherwise.
/// Destroy the World before the Bullet world, and never delete its bodies yourself: `DestroyBody` them or let
/// `~World` do it. Not thread-safe, as Bullet: call it from the thread that steps the world.
class World
{
public:
    explicit World(btDiscreteDynamicsWorld& ioWorld, const WorldSettings& inSettings = {});
    /// Removes and deletes the bodies it created and its action, and gives the host back its tick callbacks
    /// (each only where the plugin's is still installed). Touches nothing of a Bullet world already destroyed
    /// while it held bodies of this World (see above).
    ~World();
    World(const World&) = delete;
    World& operator=(const World&) = delete;

    /// A body of `inAsset` added to the world; owned by this World (remove it with `DestroyBody`).
    /// Throws `bdt::Error` on a null asset or a description out of range.
    btRigidBody* CreateBody(std::shared_ptr<const DeformableAsset> inAsset, const BodySettings& inDesc);
    /// The same from a `.bdt` file; assets loaded from one path are shared. Throws `bdt::Error` naming the
    /// file if it cannot be loaded.
    btRigidBody* CreateBody(const std::string& inAssetPath, const BodySettings& inDesc);
    /// Removes a body made by `CreateBody` from the world and deletes it, its shape with it. False if it is not
    /// one of ours. Throws `bdt::Error`, changing nothing, while another object of the Bullet world holds the
    /// body's `DeformableShape` (given by `setCollisionShape`, or as a compound's child): a shape holds one
    /// body's state and is not to be shared. O(objects in the Bullet world).
    bool DestroyBody(btRigidBody* inBody);
    /// Bodies made by `CreateBody`, in creation order. A view: `CreateBody` and `DestroyBody` invalidate it
    /// (destroying bodies while iterating over it skips some and reads freed memory); to destroy them all,
    /// copy it first (`std::vector<btRigidBody*>(Bodies().begin(), Bodies().end())`) or destroy from the back.
    std::span<btRigidBody* const> Bodies() const { return mBodyPointers; }

    /// The deformable shape of a body (null if it has none). It holds that body's state: give it to no other
    /// object (`DestroyBody` refuses while one holds it).
    static DeformableShape* Shape(btRigidBody* inBody);

    /// Where `inBody`'s mesh frame is: the frame its vertices were modelled in, scaled by `BodySettings::scale`. A
    /// rest vertex p (model units) is at `MeshTransform(body) * (scale · p)` in the world. Bullet's transform of
    /// the body places its principal frame instead (centre of mass, principal axes; `DeformableShape`). Throws
    /// `bdt::Error` for a null body or one this World did not make. O(1) (a nearest-rotation fit, kept while the
    /// body's basis stays the same).
    btTransform MeshTransform(const btRigidBody* inBody) const;
    /// The deformed vertices of `inBody`, p_i + U_i q at its current q, placed by `MeshTransform` (world, m):
    /// x, y, z per vertex in the model's vertex order (that of the baked mesh and of `shaders/deform.vert`'s
    /// vertex buffer) into `outXyz`, which must hold exactly 3·N floats. For renderers that cannot deform on the
    /// GPU, and for game logic. Throws `bdt::Error` for a null or foreign body or a wrong size. O(N·M).
    void DeformedVertices(const btRigidBody* inBody, std::span<float> outXyz) const;
    /// For motion vectors (motion blur, temporal anti-aliasing): `inBody`'s mesh transform and q at the start of
    /// the last internal step, which `MeshTransform` and the body's current q (`DeformableShape::State().Q()`)
    /// moved from. A vertex moved by `VertexMotion` over that step; a renderer that runs `shaders/deform.vert`
    /// gives it both (`uPreviousQ`, attributes 6-8) and gets each vertex's previous world position. With several
    /// internal steps per `stepSimulation`, this is the last one's start, not the last frame's. Before the first
    /// step, the body's creation state; after `LoadState`, the saved world's. A teleport (`PlaceBody`) between
    /// steps shows as motion until the next step. Throw `bdt::Error` for a null or foreign body. O(1).
    btTransform PreviousMeshTransform(const btRigidBody* inBody) const;
    std::span<const float> PreviousQ(const btRigidBody* inBody) const;
    /// How far each deformed vertex of `inBody` moved over the last internal step (world, m): its
    /// `DeformedVertices` position now minus where `PreviousMeshTransform` and `PreviousQ` put it, in the order and
    /// size of `DeformedVertices`; divided by the step, the vertices' velocities. Throws as `DeformedVertices`.
    /// O(N·M).
    void VertexMotion(const btRigidBody* inBody, std::span<float> outXyz) const;
    /// The point of `inBody`'s deformed surface nearest the world point `inWorldPoint`: its triangle in the
    /// input mesh's order and barycentric coordinates (`SurfacePoint`). Throws `bdt::Error` for a null or foreign
    /// body or a non-finite point. A descent of the BD-Tree, O(log T) for a point near the surface.
    SurfacePoint ClosestSurfacePoint(const btRigidBody* inBody, const btVector3& inWorldPoint) const;
    /// Where `inPoint` of `inBody`'s surface is now, deformed and placed (world, m). Throws `bdt::Error` for a null
    /// or foreign body, a triangle outside the mesh, or barycentric coordinates that are not finite, below 0 or
    /// not summing to 1 (within 1e-4). O(M).
    btVector3 SurfacePosition(const btRigidBody* inBody, const SurfacePoint& inPoint) const;

    /// An impulse `inImpulse` (N·s, world) on `inBody` at the world point `inWorldPoint` that deforms it: the frame
    /// takes it as Bullet's `applyImpulse` does (linear momentum changes by the impulse, angular momentum about
    /// the centre of mass by r × impulse), and the modes take its generalised impulse at the surface point nearest
    /// `inWorldPoint` at once (q̇_j jumps by s·U_j(x)ᵀRᵀJ/μ_j, within the modes' speed limits). Wakes the body.
    /// False, and nothing changed, for a null body, one this World did not make, a static one, or a non-finite
    /// point or impulse. O(log T + M).
    bool ApplyImpulse(btRigidBody* inBody, const btVector3& inWorldPoint, const btVector3& inImpulse);
    /// A force `inForce` (N, world) at `inWorldPoint` that deforms `inBody`: the frame takes it as Bullet's
    /// `applyForce` (held until Bullet clears the forces at the end of `stepSimulation`), and the modes its
    /// generalised force at the nearest surface point, held over the next internal step (with several internal
    /// steps per `stepSimulation`, apply it before each). Wakes the body. False, and nothing changed, as
    /// `ApplyImpulse`. O(log T + M).
    bool ApplyForce(btRigidBody* inBody, const btVector3& inWorldPoint, const btVector3& inForce);
    /// Holds the surface point `inPoint` of the deformable `inBody` to `inTargetPoint` of `inTarget`: a point in
    /// its frame (Bullet's transform of it), or, with `inTarget` null, a point of the world (m). The deformed
    /// point is held, frame and modes together: the attachment is a Bullet constraint solved in each of the
    /// solver's iterations on the point's velocity with the modes' part in it, and its impulses change the
    /// frame's velocities and the modes' q̇ at once (a ball joint; `SurfaceAttachment.h` has the equations).
    /// After Bullet's solve it is solved once more together with the contacts of the bodies whose modes it loads
    /// (`WorldSettings::coupledSweeps`), so that a soft body held by attachments and loaded by contacts comes to
    /// rest. Rigid, or a spring (`AttachmentSettings`). While attachments are in place, the solver runs all of its
    /// `m_numIterations` (the plugin sets `btContactSolverInfo::m_leastSquaresResidualThreshold` to −1 where it is
    /// Bullet's default 0, and back once none is left; a threshold the host set stops Bullet's iterations without
    /// counting the attachments). `inTarget` must be in this World's Bullet world and stay there
    /// until the attachment is detached (as any Bullet constraint); a deformable target given so is held by its
    /// frame (use the other overload for its surface). Throws `bdt::Error` for a null or foreign `inBody`, a
    /// surface point outside its mesh (`SurfacePosition`), a target not in the world or equal to `inBody`, a
    /// non-finite target point, or settings out of range. O(M) per solver iteration.
    AttachmentId Attach(btRigidBody* inBody, const SurfacePoint& inPoint, btRigidBody* inTarget,
                        const btVector3& inTargetPoint, const AttachmentSettings& inSettings = {});
    /// Holds surface point `inPoint` of the deformable `inBody` to surface point `inOtherPoint` of the deformable
    /// `inOther` (both made by this World, not the same body), both deformed, both bodies' frames and modes
    /// taking the impulses. Throws as the other overload, for either body and point.
    AttachmentId Attach(btRigidBody* inBody, const SurfacePoint& inPoint, btRigidBody* inOther,
                        const SurfacePoint& inOtherPoint, const AttachmentSettings& inSettings = {});
    /// Removes an attachment. False if `inId` names none (already detached, or removed with its body:
    /// `DestroyBody` detaches what holds the body).
    bool Detach(AttachmentId inId);
    /// The impulse (N·s, world) that attachment `inId` applied to its deformable in the last solve (its target
    /// took the opposite): its load is that over the step's length. Throws `bdt::Error` if `inId` names none.
    btVector3 AttachmentImpulse(AttachmentId inId) const;
    /// How far apart the two points attachment `inId` holds are now (m, deformed, world): its error. Throws
    /// `bdt::Error` if `inId` names none. O(M).
    double AttachmentGap(AttachmentId inId) const;
    /// Attachments in place.
    std::size_t AttachmentCount() const { return mAttachments.size(); }

    /// Unit normals of the deformed surface at its vertices, world frame, in the order and size of
    /// `DeformedVertices`: the sum of each vertex's deformed triangles' normals weighted by their areas, from the
    /// deformed positions (exact for any basis; the model's optional normal basis is the shader's first-order
    /// shortcut). A vertex whose triangles have no area gets (0, 0, 0). Throws as `DeformedVertices`. O(N·M + T).
    void DeformedNormals(const btRigidBody* inBody, std::span<float> outXyz) const;

    /// Forces q = 0 and skips the modal step for every body: the rigid reference of the benchmarks.
    void SetRigid(bool inRigid);
    bool Rigid() const { return mRigid; }

    const WorldSettings& Settings() const { return mSettings; }
    /// Throws `bdt::Error` on settings out of range (as the constructor).
    void SetSettings(const WorldSettings& inSettings);
    const StepStats& Stats() const { return mStats; }
    btDiscreteDynamicsWorld& DynamicsWorld() { return mWorld; }

    /// Draws through `ioDrawer` (Bullet's debug-draw interface).
    void DebugDraw(btIDebugDraw& ioDrawer, const DebugDrawSettings& inOptions = {}) const;

    /// Puts `ioBody` at `inTransform` between steps (a teleport, a restore): its world and interpolation
    /// transforms and its motion state's, so that rendering and the next step agree. Velocities unchanged.
    static void PlaceBody(btRigidBody& ioBody, const btTransform& inTransform);

    /// A snapshot of every body this World made, in creation order: what Bullet holds of it (transform and
    /// interpolation transform, velocities, total force and torque, gravity, mass properties, activation state and
    /// time) and what the plugin does (q, q̇, the held load's deflection, pending and held impulses, held forces,
    /// the frame's last velocities, the guard's last good state and counters, the last step's start for
    /// `PreviousQ`), and of every attachment (`Attach`) the impulse its next solve starts from: everything a later
    /// step or a motion vector reads. Versioned and checksummed (FNV-1a 64), native byte order, values as doubles
    /// (so a float build's snapshot loads in a double build and back). Not saved: Bullet's own bodies, constraints
    /// and manifolds (see `LoadState`) and the World's settings. O(bodies · M + attachments · bodies).
    std::vector<std::uint8_t> SaveState() const;
    /// Restores a `SaveState` snapshot into this World's bodies, which must be as many, made from assets of the
    /// same vertex, triangle and mode counts, in the same order (the same scene built again, or this one), with
    /// the same attachments in the same order (the same bodies and surface points): the bodies' state afterwards
    /// is the saved one bit for bit (`StateHash` equal). Their contact manifolds are
    /// emptied, so the next step starts cold as in a freshly built world: two worlds built alike and loaded from
    /// one snapshot step alike, bit for bit. The world the snapshot came from keeps its manifolds' warm start,
    /// so it may step differently from them; for a replay that matches it, save where it has no contacts in
    /// its manifolds, or load the snapshot into it too. Throws `bdt::Error`, changing nothing, on a truncated or
    /// corrupt snapshot, an unknown version, or one of another world. O(bodies · M).
    void LoadState(std::span<const std::uint8_t> inSnapshot);

    /// A fingerprint of the attached bodies' state: FNV-1a 64 over the bits of each body's transform, linear and
    /// angular velocity, q and q̇, in creation order. Equal hashes mean (but for a 2^-64 chance) bit-identical
    /// states: what a replay, a lockstep peer or a determinism test compares (`bdt-bench soak` checks that it
    /// does not depend on the run or on the `ParallelDispatcher`'s thread count). O(bodies · M).
    std::uint64_t StateHash() const;
    /// The same fingerprint of one body's state alone: where two runs' `StateHash` differ, which body did.
    /// Throws `bdt::Error` for a null body or one this World did not make. O(M).
    std::uint64_t BodyStateHash(const btRigidBody* inBody) const;

    /// Bytes held by the bodies' per-body state (q, caches, shapes), not counting shared assets or Bullet.
    std::size_t BodyMemoryBytes() const;

private:
    struct Body;
    class TickWatch;
    static void PreTick(btDynamicsWorld* inWorld, btScalar inTimeStep);
    /// The body of ours that `inBody` is; throws `bdt::Error` naming `inCaller` for null or a foreign body.
    const Body& OwnBody(const btRigidBody* inBody, const char* inCaller) const;
    /// The body of ours that `inBody` is, or null.
    Body* FindBody(const btRigidBody* inBody);
    /// `ApplyImpulse` (`inImpulse`) or `ApplyForce` (not): `inLoad` at `inWorldPoint`.
    bool ApplyAtPoint(btRigidBody* inBody, const btVector3& inWorldPoint, const btVector3& inLoad, bool inImpulse);
    /// The coupling u (M entries, into `outCoupling`) of the surface point nearest `inWorldPoint` of a dynamic body
    /// along `inDirection` (unit, world): what `ApplyImpulse` and `ApplyForce` give the modes per N·s or N.
    void PointCoupling(const Body& inBody, const btVector3& inWorldPoint, const Vec3d& inDirection,
                       std::vector<double>& outCoupling) const;
    /// Deformed vertex positions of a body, world frame, double (`DeformedVertices`), now or at the last step's
    /// start (`inPrevious`), into `outVertices`.
    void WorldVertices(const Body& inBody, bool inPrevious, std::vector<Vec3d>& outVertices) const;
    /// Throws naming `inCaller` unless `outXyz` holds 3 floats per vertex of `inBody`.
    static void CheckVertexOutput(const Body& inBody, std::span<float> outXyz, const char* inCaller);
    /// The state guard's pre-tick check of one body (see the class comment).
    void GuardState(Body& ioBody, double inTimeStep);
    /// Puts a body back at its last good transform, at rest, modes reset, manifolds emptied, reactivated.
    void RestoreBody(Body& ioBody);
    /// The `TickWatch` action's check: the plugin's tick callbacks back where the host replaced them.
    void WatchTickCallbacks();
    static void PostTick(btDynamicsWorld* inWorld, btScalar inTimeStep);
    void OnPreTick(double inTimeStep);
    void OnPostTick(double inTimeStep);
    void StepModes(Body& ioBody, double inTimeStep);
    /// `WorldSettings::sweepFastBodies` for one body after Bullet's integration (post-tick).
    void SweepFastBody(Body& ioBody, double inTimeStep);
    void ReadImpulses();
    /// Which part of the post-solve work a walk over the manifolds does (`WalkManifolds`).
    enum class EWalk : std::uint8_t
    {
        Impulses,    ///< The impulses into the bodies' pending generalised impulses, and the counts.
        Constraints, ///< The modal contact constraint (`detail::ConstrainPointModes`).
        Both,
    };
    /// A point's impulse on a body's contact feature, given to the body later (`WalkManifolds`).
    struct DeferredImpulse
    {
        DeformableShape* shape;
        ContactFeature feature;
        btVector3 impulse;
    };
    /// One walk over the dispatcher's manifolds doing `inWalk`'s part. With `outDeferred`, a point's
    /// non-finite impulse is not given to its bodies (whose guards count it) but listed there for later.
    void WalkManifolds(EWalk inWalk, std::vector<DeferredImpulse>* outDeferred);
    /// Whether the world's dispatcher is a `ParallelDispatcher` with two threads or more.
    bool HasHelperThreads() const;
    /// The tree-order triangle and weights of `inPoint` on `inBody`; throws naming `inCaller` if it is outside.
    std::pair<std::uint32_t, Vec3d> TreePoint(const Body& inBody, const SurfacePoint& inPoint,
                                              const char* inCaller) const;
    /// The index of `inBody` among `mBodies`, −1 if it is not one of them. O(bodies).
    std::int32_t BodyIndex(const btRigidBody* inBody) const;
    /// Adds an attachment between the two sides (`Attach`'s checks done).
    AttachmentId AddAttachment(Body& ioBody, const SurfacePoint& inPoint, btRigidBody* inTarget,
                               const btVector3& inTargetPoint, Body* ioOther, const SurfacePoint& inOtherPoint,
                               const AttachmentSettings& inSettings);
    /// The attachment `inId` names; throws `bdt::Error` naming `inCaller` if none.
    const detail::SurfaceAttachment& OwnAttachment(AttachmentId inId, const char* inCaller) const;
    /// Removes from the Bullet world and deletes every attachment that holds `inBody`.
    void DetachAll(const btRigidBody* inBody);
    /// While attachments are in place, Bullet's solver runs all its iterations (see World.cpp).
    void KeepSolverIterating();
    static constexpr btScalar cEveryIteration = -1; // a residual threshold no residual meets

    btDiscreteDynamicsWorld& mWorld;
    WorldSettings mSettings;
    bool mRigid = false;
    std::vector<std::unique_ptr<Body>> mBodies;
    std::vector<btRigidBody*> mBodyPointers;
    std::unordered_map<const btRigidBody*, Body*> mBodyLookup; // OwnBody and FindBody in O(1)
    std::vector<std::pair<std::string, std::shared_ptr<const DeformableAsset>>> mAssetsByPath;
    std::vector<std::pair<AttachmentId, std::unique_ptr<detail::SurfaceAttachment>>> mAttachments;
    std::uint64_t mNextAttachment = 1;
    StepStats mStats;
    std::uint64_t mStateResets = 0; // q rejected by DeformableShape::BeginStep (counted in modalResets)
    std::uint64_t mSweeps = 0;      // fast bodies swept in this post-tick
    // The host's callbacks, chained.
    void (*mHostPreTick)(btDynamicsWorld*, btScalar) = nullptr;
    void (*mHostPostTick)(btDynamicsWorld*, btScalar) = nullptr;
    std::unique_ptr<TickWatch> mTickWatch; // in the world's actions while attached
    mutable std::vector<Vec3d> mVertexScratch, mNormalScratch; // DeformedVertices, DeformedNormals, VertexMotion
    bool mPreTickRan = false;              // since the last TickWatch run
    std::vector<double> mForce, mInertial, mKick; // scratch: generalised forces and impulses of one body
    /// `WorldSettings::coupledSweeps`'s solve after Bullet's, before the read-back.
    void SolveCoupledContacts(double inTimeStep);
    /// The inertial force of the frame's motion over the step (`InertialForce`) on `ioBody`'s modes into `outForce`.
    void FrameInertialForce(const Body& inBody, double inTimeStep, std::vector<double>& outForce) const;
    std::unique_ptr<detail::CoupledContactSolver> mCoupled;
    std::vector<detail::CoupledBody> mCoupledBodies;
    std::vector<std::vector<double>> mCoupledImpulses;
    std::vector<detail::SurfaceAttachment*> mCoupledAttachments;
};

} // namespace bdt
