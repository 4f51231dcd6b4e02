#pragma once

#include <LinearMath/btTransform.h>
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

/// The surface of a body made by `World::CreateBody` (its vibration is `DeformableShapeSettings::modal`).
struct BodyMaterial
{
    float friction = 0.6f;        ///< Coulomb friction coefficient (Bullet multiplies the two bodies').
    float restitution = 0.0f;     ///< Bounciness in [0, 1] (Bullet multiplies the two bodies').
    float rollingFriction = 0.0f; ///< Bullet's rolling friction.
    /// Collision skin, world units (m): around the deformed surface (surface contacts) or the proxy spheres
    /// (proxy contacts); a resting body keeps this gap. 0 by default: the surface contacts need no skin to
    /// rest on a surface (within 2 mm, `bdt-bench resting`); a few millimetres make contacts start earlier.
    float margin = 0.0f;
};

/// How a body is made by `World::CreateBody`: every setting of its shape (`DeformableShapeSettings`: proxy level,
/// contact model, mass, modal settings, narrowphase coherence and budget, contact regions), its placement and its
/// surface. All of them are set here, at creation; the shape's settings can also change live
/// (`DeformableShape::SetSettings`). `mass` (kg) may be 0 here: a static body, which collides and can be deformed
/// by `DeformableShape::SetQ` but whose modes are not integrated (its shape takes 1 kg for the modal masses);
/// otherwise at least `cMinMass`.
struct BodyDesc : DeformableShapeSettings
{
    /// World placement of the mesh as authored: a rest vertex p (model units) starts at `transform * (scale · p)`.
    /// Identity places the model as it was modelled (a chair modelled upright stands upright, its feet where they
    /// were modelled). A rotation (orthonormal basis, determinant 1); the size goes in `scale`. Bullet's
    /// transform of the body is its principal frame instead (`World::MeshTransform`, `MeshFromPrincipal`).
    btTransform transform = btTransform::getIdentity();
    double scale = 1.0; ///< Uniform scale of the model (model units to metres).
    BodyMaterial material;
};

/// The `BodyDesc::transform` (mesh frame) that puts the principal frame of a body of `inAsset` at scale
/// `inScale` (its centre of mass and principal axes: Bullet's transform of the body, `DeformableShape`) at
/// `inPrincipal`: for placing a body by its centre of mass. `inPrincipal`'s basis must be a rotation. O(1).
btTransform MeshFromPrincipal(const DeformableAsset& inAsset, double inScale, const btTransform& inPrincipal);

/// How `World::Attach` holds a point to its target.
struct AttachmentSettings
{
    /// N/m. Infinite (the default): a rigid pin. Finite and > 0: a spring between the two points; a body of mass
    /// m hanging from it stretches it by m·g/stiffness.
    double stiffness = std::numeric_limits<double>::infinity();
    /// N·s/m, finite and >= 0: the spring's damping (a rigid pin has none to set).
    double damping = 0.0;
    /// A rigid pin's share of its position error corrected each step, in (0, 1] (Baumgarte stabilisation, as
    /// Bullet's ERP; 0.2 is Bullet's default). Higher holds tighter and rings more.
    double erp = 0.2;
    /// Whether the two bodies still collide with each other (off: as Bullet's `addConstraint(c, true)`).
    bool collideConnected = false;
};

/// Names an attachment made by `World::Attach`; `None` names none.
enum class AttachmentId : std::uint64_t
{
    None = 0
};

/// Options of `World`.
struct WorldSettings
{
    /// Drive the modes by the frame's acceleration and gravity (`InertialForce`), besides contact impulses.
    bool inertialForcing = true;
    /// While the kinetic energy of a body's modes per kg is above this (J/kg), it is kept awake. The default,
    /// ½·(0.1 m/s)², is a surface vibrating at 10 cm/s rms, an eighth of Bullet's default linear sleeping
    /// threshold (0.8 m/s): Bullet counts frames moving that slowly as at rest, and the residual jitter it
    /// leaves a pile with rings the modes to about a fifth of this, so a much lower threshold keeps awake for
    /// good a pile Bullet would put to sleep. Sleep does not freeze a vibration (a sleeping body's modes ring
    /// down, see `World`), so this only decides when vibration is motion.
    double wakeEnergyPerKg = 5e-3;
    /// The contact's restitution also acts on the normal component of the modes' part of the surface velocity
    /// at each contact that pushed (World's post-tick, after the coupled solve): a model choice (the contact is
    /// inelastic for the whole surface, not for the frame alone). Off by default: the coupled solve
    /// (`coupledSweeps`) already holds each contact at the gap the modes really give at the step's end, frame and
    /// modes together, and a change of q̇ after it is one the prediction did not make.
    bool modalContactConstraint = false;
    /// After Bullet's solve, the normal impulses of the contacts of vibrating bodies are solved once more with
    /// the coupling of the contacts through the modes they share (`detail::CoupledContactSolver`): Bullet's
    /// solver can only see each contact's own modal give, and a body resting on many contacts that load the same
    /// modes would otherwise pump them. The attachments (`World::Attach`) are solved in the same sweeps, three
    /// rows each. At most this many Gauss-Seidel sweeps (0 turns it off), fewer once no gap
    /// changes by more than `coupledTolerance` (m) in a sweep. Costs about (M + 20) flops per point and sweep.
    int coupledSweeps = 16;
    double coupledTolerance = 1e-6;
    /// With a `ParallelDispatcher` of two threads or more, the post-solve read-back walks the manifolds on two
    /// threads at once (the same results, bit for bit) when there are at least this many; below, starting the
    /// thread costs more than it saves. Sensible values are 512 to 4096 (a 100-body pile has a few hundred
    /// manifolds, a 3600-body one tens of thousands).
    int parallelReadBackManifolds = 1024;
    /// Continuous collision detection for fast bodies: a body whose centre of mass moved farther in a step
    /// than `sweepTravelFraction` of its bounding radius has the sphere about its centre of mass that holds
    /// its whole surface (`DeformableShape::SurfaceReach`) swept along the step's path. Where that sphere first
    /// touched something it was moving into (any object that responds to contacts, other deformable bodies at
    /// their contact proxies; not what it already touched at the step's start unless it moves into it by more
    /// than the travel threshold below), the body is put back (no part of it is in what was hit), and the
    /// impact the step skipped is applied: an impulse along the hit's normal through the centres of mass with
    /// the contact's restitution, which stops (or bounces) the approach and keeps momentum; the next steps'
    /// contacts do the rest. Bullet's own CCD clamps convex bodies only. Without it a thrown body crosses a
    /// thin floor or wall in one step: at 60 Hz, a 1 m box at more than 7.5 m/s. The price is the sphere's
    /// approximation of the fast body's side: one that only grazes something may be stopped as if it hit.
    /// Costs one sphere sweep per fast body and step, none at rest.
    bool sweepFastBodies = true;
    /// How far (a fraction of the body's bounding radius) its centre must move in a step to be swept, > 0.
    double sweepTravelFraction = 0.25;
    /// The state guard's speed limits for deformable bodies (m/s, rad/s; finite, > 0), Jolt Physics' defaults:
    /// before Bullet's solver sees a body, a faster linear or angular velocity is scaled down to them, and a
    /// force or torque that would add more than them within the step is scaled down too (`World`, the state
    /// guard). They keep a huge value (1e30) from overflowing the solver's floats in the bodies it touches.
    double maxLinearSpeed = 500.0;
    double maxAngularSpeed = 0.25 * 3.14159265358979323846 * 60.0;
};

/// What the last simulation step did, summed over the attached bodies.
struct StepStats
{
    std::uint64_t steps = 0;          ///< Internal steps since attaching.
    std::uint64_t spheresUpdated = 0; ///< BD-Tree sphere updates (8M flops each) in the last step.
    std::uint64_t overlapTests = 0;   ///< Sphere overlap tests of the narrowphase in the last step.
    std::uint64_t contacts = 0;       ///< Contact points in manifolds of deformable bodies after the solve.
    std::uint64_t manifolds = 0;      ///< Those manifolds.
    double vibrationEnergy = 0.0;     ///< Σ modal energy (J) after the step.
    /// Guards (totals since attaching): strain- and speed-limit clamps of the modes, ignored non-finite impulses
    /// or forces on them, and modal resets (`ModalGuardStats`, summed over the bodies).
    std::uint64_t clamped = 0, rejected = 0, modalResets = 0;
    /// The state guard (totals since attaching; see `World`): bodies put back at their last good transform
    /// (a non-finite transform, or a basis far from a rotation), and values brought back in range on a body
    /// left where it was (a velocity, force, torque, gravity or mass property not finite or beyond the speed
    /// limits, a basis slightly off a rotation).
    std::uint64_t transformResets = 0, stateRepairs = 0;
    /// Times the plugin found that the host had replaced one of its tick callbacks and put its own back, now
    /// chaining the host's (see `World`).
    std::uint64_t callbackRepairs = 0;
    /// Fast bodies swept in the last step (`WorldSettings::sweepFastBodies`), and the total since attaching put
    /// back where their core hit something.
    std::uint64_t sweeps = 0, sweepStops = 0;
    /// Milliseconds in the last step: the modal pre-tick, Bullet's collision detection (broadphase and
    /// narrowphase), its solver, and the post-solve impulse read-back. Bullet's phases are timed through
    /// its profile-zone hooks, so they read 0 if another profiler replaced the hooks.
    double preTickMs = 0.0, collisionMs = 0.0, solverMs = 0.0, postSolveMs = 0.0;
    /// Of `collisionMs`, Bullet's pass over the overlapping pairs (the narrowphase, threads included); the rest
    /// is the broadphase and the bounding boxes.
    double narrowphaseMs = 0.0;
    /// The last step's narrowphase of the deformable bodies, stage by stage (its times are processor time
    /// summed over the narrowphase's threads).
    NarrowphaseStats narrowphase;
};

/// What `World::DebugDraw` draws.
struct DebugDrawOptions
{
    bool spheres = false; ///< Updated spheres of the tree level `sphereLevel`.
    std::uint32_t sphereLevel = 3;
    bool proxies = true;  ///< The contact proxies touched this step (spheres at level L in contact).
    bool contacts = true; ///< Contact points and normals of deformable bodies.
};

/// Attaches reduced deformable bodies to an existing `btDiscreteDynamicsWorld`, which it does not own.
///
/// Per internal step of the host world (through its internal tick callbacks, chained with any the host had
/// set — the world user info is left untouched):
/// - pre-tick: each awake body's modes advance by the step (`ModalDynamics::Step`, exact), driven by the
///   last solve's contact impulses (their generalised impulse held as a constant force over the step, the
///   change since the step before kicked in at its start for the modes the step resolves,
///   `ModalDynamics::KickedShare`: a steady load gives a steady deflection, and a change of it moves the
///   surface as it moves the frame) and by the inertial force of the frame's motion; then
///   `DeformableShape::BeginStep` stamps the new q, and `DeformableShape::PredictStep` tells the narrowphase
///   how the modes will move over this step. The modes of a sleeping body ring down under the force they last
///   held (`ModalDynamics::StepHeld`): sleep stops the frame, not the vibration;
/// - Bullet: broadphase on the root spheres, our narrowphase to the proxies (and, in the surface model, their
///   triangles), the solver. Each contact of an awake body carries its surface's predicted motion over the step
///   and its own modal compliance (`PredictContacts`, as distance and CFM);
/// - post-tick: the normal impulses of every contact of a predicting body, and its attachments, are solved once
///   more with the coupling through the modes they share, frames and modes together (`detail::CoupledContactSolver`,
///   `WorldSettings::coupledSweeps`): Bullet's rows hold each contact's own modal give only, and a body resting
///   on many contacts that load the same modes would otherwise be pumped by the difference a step later. Then
///   every contact impulse on a deformable body is projected on its contact point (Uᵀ Rᵀ J through the point's
///   row, or the proxy's Ū in the proxies model) and accumulated for the next modal step: the normal impulse
///   always, the friction impulse only where the contact slides (static friction is statically indeterminate
///   for a rigid body: the solver's choice of it follows warm starting and iteration order, no load the modes
///   could take; kinetic friction, μ·λ along the slip, is determinate). Then, with
///   `WorldSettings::modalContactConstraint`, each contact that pushed also stops the normal component of the
///   modes' part of its surface velocity (inelastic); non-finite transforms are restored and counted. With a
///   `ParallelDispatcher` of two threads or more and at least `WorldSettings::parallelReadBackManifolds`
///   manifolds, the two walks run at once, one on a helper thread that only reads Bullet's manifolds and bodies
///   (the same results, bit for bit).
///
/// The state guard keeps what a host puts into a deformable body's state from reaching other bodies
/// (docs/ROBUSTNESS.md):
/// - pre-tick, before Bullet's solver sees the body: a non-finite transform, or a basis far from a rotation,
///   puts the body back at its last good transform, at rest (see below). A basis slightly off a rotation is made
///   one. A non-finite velocity is zeroed and one beyond `WorldSettings::maxLinearSpeed` or `maxAngularSpeed`
///   scaled down to it; a non-finite total force or torque is dropped, and one that would add more than those
///   speeds within the step scaled down; a non-finite or huge gravity goes back to the world's; non-finite or
///   negative mass properties go back to the last good ones; a non-finite q or q̇ resets the modes;
/// - post-tick, after Bullet's integration: a body whose transform or velocities became non-finite anyway
///   (e.g. from a plain Bullet body that was already non-finite) is put back.
/// A body put back is placed at its last good transform at rest, its modes reset, its contact manifolds
/// emptied (`cleanProxyFromPairs`, so no stale impulse warm-starts the next solve) and reactivated, even if
/// Bullet had removed it from the simulation for an overflowing box. Each is counted in `StepStats`.
///
/// The dispatcher must have the BD-Tree algorithms (`registerCollisionAlgorithms` or
/// `bdt::CollisionConfiguration`); the constructor throws `bdt::Error` if it has not, or if another World is
/// attached to the same Bullet world. The World also adds a `btActionInterface` to the world, which Bullet runs
/// in each internal step between its integration and the post-tick: where the host has replaced one of the
/// plugin's tick callbacks since the last step (`setInternalTickCallback` after attaching), it puts the
/// plugin's back, chaining the host's new one, and counts it (`StepStats::callbackRepairs`). A replaced
/// post-tick is thus never missed; a replaced pre-tick misses the modal step of that one step. It also sets
/// Bullet's `m_deterministicOverlappingPairs`: pairs are collided in the order of their bodies, whatever the
/// broadphase's history, so that two worlds built alike and loaded from one snapshot step alike.
///
/// Destroy the World before the `btDiscreteDynamicsWorld` (as Bullet wants constraints and actions removed
/// before their world goes). Where the Bullet world is destroyed first while it still holds the World's bodies,
/// `~World` notices (Bullet's destructor has taken the bodies' broadphase handles but left them in its object
/// list) and touches nothing of it; with no body left it cannot tell, and the order is required. Never delete
/// the World's bodies yourself (the loop of Bullet's examples that deletes every object in the world would):
/// `DestroyBody` them or let `~World` do it.
/// Not thread-safe, as Bullet: call it from the thread that steps the world.
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
    btRigidBody* CreateBody(std::shared_ptr<const DeformableAsset> inAsset, const BodyDesc& inDesc);
    /// The same from a `.bdt` file; assets loaded from one path are shared. Throws `bdt::Error` naming the
    /// file if it cannot be loaded.
    btRigidBody* CreateBody(const std::string& inAssetPath, const BodyDesc& inDesc);
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

    /// Where `inBody`'s mesh frame is: the frame its vertices were modelled in, scaled by `BodyDesc::scale`. A
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
    void DebugDraw(btIDebugDraw& ioDrawer, const DebugDrawOptions& inOptions = {}) const;

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
