#pragma once

#include <LinearMath/btTransform.h>
#include <bdt/adapter/AttachmentSettings.h>
#include <bdt/adapter/BodySettings.h>
#include <bdt/adapter/DebugDrawSettings.h>
#include <bdt/adapter/StepStats.h>
#include <bdt/adapter/WorldSettings.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/asset/DeformableAsset.h>
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
class btRaycastVehicle;
class btRigidBody;
class btTypedConstraint;

namespace bdt
{

namespace detail
{
class CoupledContactSolver;
class SolverConvergence;
class SurfaceAttachment;
class WheelPress;
struct CoupledBody;
} // namespace detail

/// Attaches reduced deformable bodies to an existing `btDiscreteDynamicsWorld`, which it does not own: it steps
/// their modes in Bullet's tick callbacks (chained with the host's) and solves their contacts and attachments
/// with Bullet's solver. The step in order: docs/ARCHITECTURE.md; the state guard: docs/ROBUSTNESS.md;
/// snapshots, replays and attachments: docs/TUNING.md#world.
///
/// The dispatcher must have the BD-Tree algorithms (`registerCollisionAlgorithms` or
/// `bdt::CollisionConfiguration`), and one World per Bullet world: the constructor throws `bdt::Error`
/// otherwise. Destroy the World before the Bullet world, and never delete its bodies yourself: `DestroyBody`
/// them or let `~World` do it. Not thread-safe, as Bullet: call it from the thread that steps the world.
class World
{
public:
    explicit World(btDiscreteDynamicsWorld& ioWorld, const WorldSettings& inSettings = {});
    /// Removes and deletes its bodies and its action, and gives the host back its tick callbacks (where the
    /// plugin's are still installed). Touches nothing of a Bullet world destroyed while it held bodies.
    ~World();
    World(const World&) = delete;
    World& operator=(const World&) = delete;

    /// A body of `inAsset` added to the world; owned by this World (remove it with `DestroyBody`).
    /// Throws `bdt::Error` on a null asset or a description out of range.
    btRigidBody* CreateBody(std::shared_ptr<const DeformableAsset> inAsset, const BodySettings& inDesc);
    /// The same from a `.bdt` file; assets loaded from one path are shared. Throws `bdt::Error` naming the
    /// file if it cannot be loaded.
    btRigidBody* CreateBody(const std::string& inAssetPath, const BodySettings& inDesc);
    /// Removes and deletes a body made by `CreateBody`, its shape with it; false if it is not ours. Throws
    /// `bdt::Error`, changing nothing, while another object holds the body's shape. O(objects in the world).
    bool DestroyBody(btRigidBody* inBody);
    /// Bodies made by `CreateBody`, in creation order. `CreateBody` and `DestroyBody` invalidate the view: to
    /// destroy them all, copy it first or destroy from the back.
    std::span<btRigidBody* const> Bodies() const { return mBodyPointers; }

    /// The deformable shape of a body (null if it has none). It holds that body's state: give it to no other
    /// object (`DestroyBody` refuses while one holds it).
    static DeformableShape* Shape(btRigidBody* inBody);

    /// Where `inBody`'s mesh frame is: a rest vertex p (model units) is at `MeshTransform(body) * (scale · p)`
    /// (`BodySettings::scale`); Bullet's transform is the principal frame. Throws `bdt::Error` for a null or
    /// foreign body. O(1).
    btTransform MeshTransform(const btRigidBody* inBody) const;
    /// The deformed vertices p_i + U_i q of `inBody`, placed by `MeshTransform` (world, m), x, y, z per vertex
    /// in the baked mesh's order, into `outXyz` of exactly 3·N floats. Throws `bdt::Error` for a null or
    /// foreign body or a wrong size. O(N·M).
    void DeformedVertices(const btRigidBody* inBody, std::span<float> outXyz) const;
    /// For motion vectors: `inBody`'s mesh transform and q at the start of the last internal step (before the
    /// first step, its creation state; after `LoadState`, the saved one), as `shaders/deform.vert` takes them
    /// (`uPreviousQ`). Throw `bdt::Error` for a null or foreign body. O(1).
    btTransform PreviousMeshTransform(const btRigidBody* inBody) const;
    std::span<const float> PreviousQ(const btRigidBody* inBody) const;
    /// How far each deformed vertex of `inBody` moved over the last internal step (world, m), in the order and
    /// size of `DeformedVertices`. Throws as `DeformedVertices`. O(N·M).
    void VertexMotion(const btRigidBody* inBody, std::span<float> outXyz) const;
    /// The point of `inBody`'s deformed surface nearest `inWorldPoint` (`SurfacePoint`: input-mesh triangle and
    /// barycentrics). Throws `bdt::Error` for a null or foreign body or a non-finite point. O(log T) near it.
    SurfacePoint ClosestSurfacePoint(const btRigidBody* inBody, const btVector3& inWorldPoint) const;
    /// Where `inPoint` of `inBody`'s surface is now (world, m). Throws `bdt::Error` for a null or foreign body,
    /// a triangle outside the mesh, or barycentrics not finite, below 0 or not summing to 1 (±1e-4). O(M).
    btVector3 SurfacePosition(const btRigidBody* inBody, const SurfacePoint& inPoint) const;

    /// An impulse (N·s, world) on `inBody` at `inWorldPoint` that deforms it: the frame takes it as Bullet's
    /// `applyImpulse`, the modes at the nearest surface point at once. Wakes the body. False, changing nothing,
    /// for a null, foreign or static body or a non-finite point or impulse. O(log T + M).
    bool ApplyImpulse(btRigidBody* inBody, const btVector3& inWorldPoint, const btVector3& inImpulse);
    /// A force (N, world) at `inWorldPoint` that deforms `inBody`: the frame takes it as Bullet's `applyForce`,
    /// the modes over the next internal step only, and the body's contacts and attachments are solved knowing
    /// it (a pinned plank sags under it as under a weight hung there). Wakes the body. False as `ApplyImpulse`.
    /// O(log T + M).
    bool ApplyForce(btRigidBody* inBody, const btVector3& inWorldPoint, const btVector3& inForce);
    /// Holds surface point `inPoint` of the deformable `inBody`, frame and modes together, to `inTargetPoint`
    /// of `inTarget` (its frame; the world's if null): rigid or a spring (`AttachmentSettings`). `inTarget`
    /// stays in this World's Bullet world until detached; a deformable target is held by its frame. Throws
    /// `bdt::Error` for a null or foreign body, a point outside its mesh, a target not in the world or equal
    /// to `inBody`, a non-finite point or settings out of range. O(M) per solver iteration; Bullet's solver keeps
    /// iterating over a group of islands (up to its `m_numIterations`) while an attachment in it has not converged.
    AttachmentId Attach(btRigidBody* inBody, const SurfacePoint& inPoint, btRigidBody* inTarget,
                        const btVector3& inTargetPoint, const AttachmentSettings& inSettings = {});
    /// Holds surface point `inPoint` of `inBody` to surface point `inOtherPoint` of `inOther`, two deformables
    /// of this World, both deformed. Throws as the other overload, for either body and point.
    AttachmentId Attach(btRigidBody* inBody, const SurfacePoint& inPoint, btRigidBody* inOther,
                        const SurfacePoint& inOtherPoint, const AttachmentSettings& inSettings = {});
    /// Removes an attachment. False if `inId` names none (`DestroyBody` detaches what holds the body).
    bool Detach(AttachmentId inId);
    /// The impulse (N·s, world) attachment `inId` applied to its deformable in the last solve (its target took
    /// the opposite). Throws `bdt::Error` if `inId` names none.
    btVector3 AttachmentImpulse(AttachmentId inId) const;
    /// How far apart the two points attachment `inId` holds are now (m, world): its error. Throws
    /// `bdt::Error` if `inId` names none. O(M).
    double AttachmentGap(AttachmentId inId) const;
    /// Attachments in place.
    std::size_t AttachmentCount() const { return mAttachments.size(); }

    /// Has each wheel of `inVehicle` in contact with a body of this World press it, frame and modes, with its
    /// suspension force and friction at its contact point, from the next step on (Bullet's btRaycastVehicle gives
    /// the ground nothing). Not owned; throws `bdt::Error` for null. One ray a wheel in contact each step.
    void WatchVehicle(btRaycastVehicle* inVehicle);
    /// Stops watching; false if `inVehicle` was not watched. Call before the vehicle is deleted.
    bool UnwatchVehicle(btRaycastVehicle* inVehicle);

    /// Area-weighted unit normals of the deformed surface at the vertices (world), in the order and size of
    /// `DeformedVertices`; (0, 0, 0) where no area. Throws as `DeformedVertices`. O(N·M + T).
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

    /// A snapshot of every body this World made (Bullet's state of it and the plugin's), attachment, and load its
    /// joints and watched wheels hold, in creation order; not Bullet's bodies, constraints, manifolds, settings.
    /// Versioned, checksummed, doubles (float and double builds load each other's). O(bodies · (M + loads)).
    std::vector<std::uint8_t> SaveState() const;
    /// Restores a `SaveState` snapshot into bodies and attachments made alike, in the same order (the same
    /// vertex, triangle and mode counts): the same `StateHash`, manifolds emptied. Throws `bdt::Error`,
    /// changing nothing, on a truncated or corrupt snapshot, an unknown version or another world's. O(bodies · M).
    void LoadState(std::span<const std::uint8_t> inSnapshot);

    /// FNV-1a 64 over the bits of each body's transform, velocities, q and q̇, in creation order: equal hashes
    /// mean bit-identical states (replays, lockstep, determinism tests). O(bodies · M).
    std::uint64_t StateHash() const;
    /// The same fingerprint of one body's state alone: where two runs' `StateHash` differ, which body did.
    /// Throws `bdt::Error` for a null body or one this World did not make. O(M).
    std::uint64_t BodyStateHash(const btRigidBody* inBody) const;

    /// Bytes held by the bodies' per-body state (q, caches, shapes), not counting shared assets or Bullet.
    std::size_t BodyMemoryBytes() const;

private:
    struct Body;
    struct JointWatch;
    class TickWatch;
    struct SnapshotLoad; // WorldState.cpp: a snapshot read and checked, then restored (`LoadState`)
    static void PreTick(btDynamicsWorld* inWorld, btScalar inTimeStep);
    /// The body of ours that `inBody` is; throws `bdt::Error` naming `inCaller` for null or a foreign body.
    const Body& OwnBody(const btRigidBody* inBody, const char* inCaller) const;
    /// The body of ours that `inBody` is, or null.
    Body* FindBody(const btRigidBody* inBody);
    /// `ApplyImpulse` (`inImpulse`) or `ApplyForce` (not): `inLoad` at `inWorldPoint`.
    bool ApplyAtPoint(btRigidBody* inBody, const btVector3& inWorldPoint, const btVector3& inLoad, bool inImpulse);
    /// The coupling u (M entries, into `outCoupling`) of the surface point nearest `inWorldPoint` of a dynamic
    /// body along `inDirection` (unit, world): what `ApplyImpulse` and `ApplyForce` give the modes per N·s or
    /// N.
    void PointCoupling(const Body& inBody, const btVector3& inWorldPoint, const Vec3d& inDirection,
                       std::vector<double>& outCoupling) const;
    /// Deformed vertex positions of a body, world frame, double (`DeformedVertices`), now or at the last step's
    /// start (`inPrevious`), into `outVertices`.
    void WorldVertices(const Body& inBody, bool inPrevious, std::vector<Vec3d>& outVertices) const;
    /// Throws naming `inCaller` unless `outXyz` holds 3 floats per vertex of `inBody`.
    static void CheckVertexOutput(const Body& inBody, std::span<float> outXyz, const char* inCaller);
    /// The state guard's pre-tick check of one body (docs/ROBUSTNESS.md).
    void GuardState(Body& ioBody, double inTimeStep);
    /// Puts a body back at its last good transform, at rest, modes reset, manifolds emptied, reactivated.
    void RestoreBody(Body& ioBody);
    /// The `TickWatch` action's check: the plugin's tick callbacks back where the host replaced them.
    void WatchTickCallbacks();
    static void PostTick(btDynamicsWorld* inWorld, btScalar inTimeStep);
    void OnPreTick(double inTimeStep);
    void OnPostTick(double inTimeStep);
    /// Every body's modal step by the loads of the solve just made (post-tick), and its surface to match.
    void StepAllModes(double inTimeStep);
    void StepModes(Body& ioBody, double inTimeStep);
    /// `WorldSettings::sweepFastBodies` for one body after Bullet's integration (post-tick).
    void SweepFastBody(Body& ioBody, double inTimeStep);
    void ReadImpulses();
    /// Before Bullet's solve: each enabled Bullet joint that holds one of our bodies stood in for by a solve with
    /// the modes, its frames there moved and turned with the surface they hold (WorldJoints.cpp).
    void WatchJoints();
    /// After it: the stand-ins out, the joints back as the host set them, and (`inTimeStep` > 0) their impulses
    /// into the modes and the host's feedback.
    void ReleaseJoints(double inTimeStep);
    /// The watch of Bullet joint `ioJoint` if it holds one of our bodies (else false), its anchors and solve taken
    /// from `ioPrevious` (last step's watch of it, or null) where they still hold.
    bool MakeWatch(btTypedConstraint& ioJoint, JointWatch* ioPrevious, JointWatch& outWatch);
    /// After Bullet's step (its vehicles updated): the wheel loads the frames took in this solve into the modes,
    /// then each watched vehicle's new ones into `mWheelLoads`, which `PushWheelLoads` (pre-tick) has the next
    /// solve give the frames.
    void LoadWheels(double inTimeStep);
    void PushWheelLoads();
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

    btDiscreteDynamicsWorld& mWorld;
    WorldSettings mSettings;
    bool mRigid = false;
    std::vector<std::unique_ptr<Body>> mBodies;
    std::vector<btRigidBody*> mBodyPointers;
    std::unordered_map<const btRigidBody*, Body*> mBodyLookup; // OwnBody and FindBody in O(1)
    std::vector<std::pair<std::string, std::shared_ptr<const DeformableAsset>>> mAssetsByPath;
    std::vector<std::pair<AttachmentId, std::unique_ptr<detail::SurfaceAttachment>>> mAttachments;
    std::vector<JointWatch> mJoints; // the joints holding our bodies (`WatchJoints`)
    bool mJointsWatched = false;     // their frames moved and stand-ins added, until `ReleaseJoints`
    std::vector<btRaycastVehicle*> mVehicles; // `WatchVehicle`
    struct WheelLoad { btRigidBody* body; btVector3 point, impulse; }; // world
    std::vector<WheelLoad> mWheelLoads; // the last step's, for the next solve (`LoadWheels`, `PushWheelLoads`)
    std::vector<std::unique_ptr<detail::WheelPress>> mWheelPresses; // in the world over a solve
    std::uint64_t mNextAttachment = 1;
    std::unique_ptr<detail::SolverConvergence> mConvergence; // keeps the solver iterating over attachments' groups
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
    /// `WorldSettings::coupledSweeps`'s solve after Bullet's, before the read-back; `AddFixedImpulses` gives it
    /// the joints' and wheels' impulses of Bullet's solve, held fixed.
    void SolveCoupledContacts(double inTimeStep);
    void AddFixedImpulses();
    /// The inertial force of the frame's motion over the step (`InertialForce`) on `ioBody`'s modes into
    /// `outForce`.
    void FrameInertialForce(const Body& inBody, double inTimeStep, std::vector<double>& outForce) const;
    std::unique_ptr<detail::CoupledContactSolver> mCoupled;
    std::vector<detail::CoupledBody> mCoupledBodies;
    std::vector<std::vector<double>> mCoupledImpulses;
    // The joints' and wheels' fixed impulse and its inertial counterpart, per entry of mCoupledBodies.
    std::vector<std::pair<std::vector<double>, std::vector<double>>> mCoupledFixed;
    std::vector<detail::SurfaceAttachment*> mCoupledAttachments;
};

} // namespace bdt
