#pragma once

#include <bdt/bullet/ContactFeature.h>
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

class SurfaceCache;
class PieceMemory;

/// How a deformable body's contacts are made once its BD-Tree has culled down to the proxies of level L.
enum class EContactModel : std::uint8_t
{
    /// On the deformed triangles under each proxy that still overlaps: the points, normals and distances of the
    /// deformed surface itself, so a body rests on the surface it touches (within the margins). Only those
    /// triangles' vertices are deformed (p + U q), once a step. The default.
    Surface,
    /// On the proxy spheres themselves (BD-Tree paper §3.4): the sphere's centre moved by the deformation, at
    /// its rest radius. Cheapest, but a sphere around a flat patch stands above it by up to its radius, so a
    /// body resting on a flat face floats and rocks by about that much.
    Proxies,
};

/// The least mass, kg, a deformable body takes (`DeformableShapeSettings::mass`, `BodySettings::mass`): the contacts'
/// modal compliance grows as 1/mass and reaches Bullet's solver as a float (CFM), which a lighter body could
/// overflow (1e-45 kg made every contact's CFM infinite); a milligram is far below any game body.
inline constexpr double cMinMass = 1e-6;

/// Per-body settings of a `DeformableShape`. Every field can be changed live with `SetSettings`.
struct DeformableShapeSettings
{
    /// Traversal depth L (§3.4): the spheres cull down to this level's proxies, where the contacts are made
    /// (`contactModel`).
    std::uint32_t proxyLevel = 10;
    EContactModel contactModel = EContactModel::Surface; ///< Where contacts are made (`EContactModel`).
    /// Body mass in kg, for the modal masses (give the rigid body the same): at least `cMinMass`.
    double mass = 1.0;
    ModalSettings modal;           ///< Vibration: stiffness and damping scales, strain limit.
    EBound bound = EBound::Tight;  ///< Sphere radius bound used by the updates.
    bool temporalCoherence = false; ///< §3.5 temporal coherence of sphere updates.
    /// Contact regions: proxies sharing an ancestor this many levels above L share one persistent manifold
    /// (Bullet keeps at most 4 points in a manifold). ≥ 0; 0 gives one manifold per proxy.
    std::uint32_t regionDepth = 3;
    /// Cap on the region manifolds of one pair; ≥ 1. Past the cap, the kept regions are chosen to cover the
    /// contact area (farthest-point sampling, `AssignRegions`) and the others' contacts join the nearest kept
    /// one: a body resting on a large face keeps points under all of it, or its modes could bend it through
    /// the uncovered part. Each kept region costs a manifold of ≤ 4 solver points.
    std::uint32_t maxManifoldsPerPair = 16;
    /// Temporal coherence of the narrowphase between two deformables (`TraversalFront`): each pair's proxy
    /// descent starts where last step's stopped instead of at the roots, and a front pair that missed by more
    /// than the pair's gap can have closed since (the modes' and the frames' motion, bounded) is carried over
    /// without computing its spheres. Used for a pair only when both bodies allow it. It changes the work, not
    /// the result: the pair's contacts are the same, bit for bit, in the same order (the narrowphase sorts
    /// them), so a world steps identically either way. It pays where bodies touch for many steps (a settling
    /// pile), not where pairs come and go (`bdt-bench chairs --scenes front` measures it). Off by default: the
    /// pair cache (`pairCacheSkin`) saves more in a pile. Takes precedence over `pairCacheSkin` when both bodies
    /// ask for it. 12 bytes per front pair on the heap, plus 4 bytes per mode of each body.
    bool frontTracking = false;
    /// Temporal coherence of the narrowphase between two deformables by a skin (`ProxyPairCache`): each pair
    /// keeps the proxy pairs it found within the contact reach plus a skin, and answers the next steps from
    /// that list while the bodies have not moved relative to each other (rigidly and by their modes) by more
    /// than the skin. The skin is this fraction of the body's rest bounding radius (world units: times the
    /// scale; the smaller of the two bodies'); 0 turns it off for the body's pairs; ≥ 0 and finite. Like
    /// `frontTracking` it changes the work, not the result: the contacts are the same, bit for bit, so a world
    /// steps identically with any skin. Sensible values are 0.01 to 0.04: a thinner skin is outgrown every few
    /// steps, a thicker one keeps too many pairs (`bdt-bench chairs --scenes skin` compares them). The body's
    /// pairs with spheres, boxes, capsules and planes, static or moving, keep such a list too
    /// (`PrimitivePairCache`, this body's skin, following the body in the primitive's frame): a body resting on
    /// the ground, or carrying resting balls and crates, answers from its few kept proxies instead of descending
    /// to each of them every step; where its modes ring by more than the skin, a list answers one step only and
    /// the pairs descend without one (`PrimitivePairCache::cReusesThatPay`). On the
    /// heap, per pair of deformables whose bounding boxes overlap, or of this body and a primitive: a few
    /// hundred bytes, plus 8 bytes a mode and 12 a kept pair (about 30 for two touching chairs of those) or 4
    /// a kept proxy.
    double pairCacheSkin = 0.02;
    /// Interruptible narrowphase between two deformables (Mendoza & O'Sullivan 2006,
    /// `CollideProxiesBudgeted`): at most this many sphere tests per pair and step, 0 for no limit. When a pair's descent
    /// runs out, the overlapping pairs of coarser spheres it had not refined become contacts themselves
    /// (centre-to-centre normals, the spheres' overlap as depth), so the response degrades gracefully to
    /// coarser contacts instead of missing any. The smaller non-zero budget of the two bodies applies, and
    /// takes precedence over `frontTracking`, `pairCacheSkin` and the contact pieces' descent (`pieceTolerance`) for
    /// that pair. A time budget is this test
    /// budget at the cost of a test (tens of nanoseconds in a pile); a test budget keeps the world
    /// deterministic.
    std::uint32_t traversalBudget = 0;
    /// The bound type of the narrowphase between two deformables: false culls with the BD-Tree's spheres, true
    /// with BD-AABB boxes (§3.5, `DeformableAsset::Boxes`, built on first use: 32(M + 1) bytes a node per
    /// asset) beside them. Used for a pair when both bodies ask for it (and no `traversalBudget`); it then takes
    /// precedence over `frontTracking` and `pairCacheSkin`. The contacts are the same, bit for bit: the boxes are
    /// grown to hold the proxies' spheres (`CollideProxiesWithBoxes`). It rarely pays: the grown boxes cull
    /// little that the spheres do not, and a box test costs about ten sphere tests (`bdt-bench bounds`). Off by
    /// default.
    bool boxCulling = false;
    /// Surface model: how far (m, world) the deformed surface may bend away from a *contact piece*'s box (a
    /// flat patch, an edge or corner of a boxy part, whose triangles are the outside of a box) for the piece to
    /// collide as that box, moved by the modes, instead of as its triangles (about 20 times cheaper). A piece is
    /// taken up while its BD-AABB growth (§3.5) is within half this, and kept while it is within all of it and
    /// the piece made a contact the step before (a hysteresis: no piece and its triangles taking turns). Each
    /// contact stands where the body's own surface is at that point (its modal displacement, not the box's), so
    /// the tolerance trades the contacts' normals and spread, not the bodies' gap. 0 turns pieces off (every
    /// contact on the triangles); ≥ 0 and finite. Below about 1 mm soft bodies resting on each other flip
    /// between pieces and triangles and take thousands of tiny pieces. With pieces, a pair of two such bodies,
    /// and a body's pair with a plane, a box or a sphere no larger than it, descends to its contact cut by the
    /// BD-AABB boxes, not by the spheres: `frontTracking`, `pairCacheSkin` and `boxCulling`, which speed the
    /// sphere descent up, do not apply to those pairs (`traversalBudget` does, and takes precedence).
    double pieceTolerance = 0.002;
};

/// How a proxy of a deformable body will move over the coming step, along a direction, as the contact solver
/// must see it (`DeformableShape::ProxyResponse`).
struct ProxyStepResponse
{
    /// World units: the proxy's motion along the direction over the step if the contacts keep the impulses
    /// the step holds (`StepPrediction::heldImpulse`) and the frame its inertial force.
    double displacement = 0.0;
    /// World units per N·s: how much further the proxy moves along the direction per unit change of the
    /// impulse this step's solve applies there along it (the modes' response to the change, kicked at the
    /// step's start, and to the frame acceleration it causes, held over the step). Normally ≥ 0.
    double compliance = 0.0;
};

/// How the coming step will treat a body's modes and its contacts, for `DeformableShape::PredictStep`.
struct StepPrediction
{
    double timeStep = 1.0 / 60.0; ///< s, > 0: the step the modes will be advanced by (`ModalDynamics::Step`).
    /// The step adds the inertial force of the frame's acceleration (`InertialForce`), as `bdt::World` does
    /// with `WorldSettings::inertialForcing`.
    bool inertialForcing = true;
    /// The solver's Baumgarte factor for penetrating contacts (btContactSolverInfo::m_erp2), in (0, 1]: the
    /// predicted motion is handed to the solver in full, not scaled by it.
    double contactErp = 0.2;
    /// The generalised impulse of the contacts the modal step holds as a constant force over the step, M
    /// entries (N·s·model unit; empty: none): `bdt::World` holds the last solve's, and kicks the change this
    /// solve makes to it at the step's start, as the frame takes it (`ModalDynamics::StepParts`). Read by
    /// `PredictStep` only (not kept).
    std::span<const double> heldImpulse = {};
    /// The other generalised force the step holds, M entries (N·model unit; empty: none): the frame's inertial
    /// force as last computed. Read by `PredictStep` only.
    std::span<const double> heldForce = {};
    /// q before the modal step just taken, M entries (empty: unknown): a mode that stayed at its strain limit
    /// through it is held there by a steady load, not carried there by a passing one. Read by `PredictStep` only.
    std::span<const float> previousQ = {};
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
    /// deformed vertex (the spheres are conservative), placed by `inTransform` or by `QueryView(inTransform)`.
    /// O(M) once per step, then O(1).
    void getAabb(const btTransform& inTransform, btVector3& outMin, btVector3& outMax) const override;
    /// The root sphere at the current q grown by the margin, local frame: a bounding sphere of the deformed
    /// surface, as tight as the tree's (Bullet's generic version takes the sphere around `getAabb`, √3
    /// larger). Bullet derives the contact breaking threshold from it (`getAngularMotionDisc`: centre
    /// distance + radius, times gContactBreakingThreshold), for every pair every step: cached until q, scale,
    /// margin or settings change. O(1) when cached.
    void getBoundingSphere(btVector3& outCenter, btScalar& outRadius) const override;
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
    /// Collision margin: a skin (world units) around the surface in contacts (around the deformed triangles in
    /// the surface model, the proxy spheres in the proxies model), as Bullet's margins: a body resting on
    /// another keeps this much between their surfaces. Default 0 (`bdt::World` gives its bodies
    /// `BodyMaterial::margin`). A negative or non-finite margin throws `bdt::Error`.
    void setMargin(btScalar inMargin) override;
    btScalar getMargin() const override { return mMargin; }

    // --- The body: its asset, settings and deformation, where it is, what reaches its modes ---

    /// The shared, immutable asset (model, tree, proxies) this body is made of; `AssetPtr` shares it.
    const DeformableAsset& Asset() const { return *mAsset; }
    const std::shared_ptr<const DeformableAsset>& AssetPtr() const { return mAsset; }
    /// The settings in force (those given at creation or by the last `SetSettings`).
    const DeformableShapeSettings& Settings() const { return mSettings; }
    /// Applies new settings live: a new proxy level swaps the proxies (O(nodes above L), no rebuild), new
    /// modal settings keep q and q̇ (a new mass rebuilds the dynamics, whose guard counters then restart).
    /// Throws `bdt::Error` (and changes nothing) on settings out of range.
    void SetSettings(const DeformableShapeSettings& inSettings);

    /// The body's modes: q, q̇, their oscillators and guard (`ModalDynamics`).
    ModalDynamics& Dynamics() { return mDynamics; }
    const ModalDynamics& Dynamics() const { return mDynamics; }
    /// The sphere cache (mutable: queries on a const shape update it).
    TreeState& State() const { return mState; }
    /// The index of tree-order triangle `inTree` in the mesh the asset was made from, and back; cNoIndex
    /// outside the mesh.
    std::uint32_t InputTriangle(std::uint32_t inTree) const;
    std::uint32_t TreeTriangle(std::uint32_t inInput) const;

    /// Sets q directly (kinematic or animated bodies), q̇ = 0, and starts a step; like the dynamics, it keeps
    /// each |q_j| within its strain limit (`ModalDynamics::StrainLimit`), so the state and the dynamics hold
    /// the same q. False, nothing changed, on wrong size or non-finite / huge (> `TreeState::cMaxAbsQ`)
    /// values.
    [[nodiscard]] bool SetQ(std::span<const float> inQ);

    /// How far from the shape's local origin (the centre of mass) any point of the deformed surface, margin
    /// included, can be at the current q: s·(|c'| + R') + margin for the root sphere (c', R') of the current
    /// update (the sphere `getAabb` uses), in world units. What a rotation of the frame at ω moves the surface
    /// by, at most ω times this, per second. Updates the root sphere if the step has not yet (8M flops).
    double SurfaceReach() const;
    /// An upper bound, m/s, on the speed the modes alone give any point of the surface: s·‖U_i q̇‖ ≤
    /// s·max_i‖U_i‖₂·‖q̇‖₂, with max_i‖U_i‖₂ the root's spectral bound from the tree rows (the one of eq. 11).
    /// Frame-independent. O(M).
    double ModalSurfaceSpeed() const;

    /// The body as the core's queries (`TreeQueries.h`) see it, placed by `inWorldFromLocal` (a Bullet world
    /// transform of the shape):
    /// pose = world · principal, scale = s, inflate = `inInflate` (world units). The basis of
    /// `inWorldFromLocal`, orthonormal only to float precision, is replaced by its nearest rotation, as `Pose`
    /// requires. The fit is kept for the last basis asked for (by `QueryView` or `RestToWorld`): asking again for
    /// the same basis, element for element, costs a compare of 9 scalars, not a fit.
    DeformedBody QueryView(const btTransform& inWorldFromLocal, double inInflate = 0.0) const;
    /// R, the rotation of `QueryView(inWorldFromLocal).pose` alone (rest frame to world; the same matrix, bit for
    /// bit): what the per-proxy functions below take, computed once for several proxies of one body. A
    /// nearest-rotation fit and a 3×3 product, kept as `QueryView`'s is.
    Mat3d RestToWorld(const btTransform& inWorldFromLocal) const;

    /// The world velocity of proxy `inNode`'s centre due to the modes, s·R·Σ_j Ū_j q̇_j (m/s; R as in
    /// `AddContactImpulse`). Zero for a node outside the tree. About 6M flops.
    Vec3d ProxyModalVelocity(std::uint32_t inNode, const btTransform& inWorldFromLocal) const;
    /// The same with R given (`RestToWorld(transform)`, computed once for several proxies).
    Vec3d ProxyModalVelocity(std::uint32_t inNode, const Mat3d& inRestToWorld) const;
    /// The modes' mobility at proxy `inNode`: the change of `ProxyModalVelocity` per unit world impulse
    /// applied there (`ApplyProxyImpulse`), Σ_j (s·R·Ū_j)(s·R·Ū_j)ᵀ/μ_j (m/s per N·s, symmetric positive
    /// semi-definite). Zero for a node outside the tree. About 15M flops.
    Mat3d ProxyModalMobility(std::uint32_t inNode, const btTransform& inWorldFromLocal) const;
    /// The same with R given (`RestToWorld(transform)`, computed once for several proxies).
    Mat3d ProxyModalMobility(std::uint32_t inNode, const Mat3d& inRestToWorld) const;
    /// Applies the world impulse `inImpulse` (N·s) at proxy `inNode` to the modes at once (q̇ jumps by
    /// g_j/μ_j with g_j = s·Ū_jᵀRᵀJ, `ModalDynamics::ApplyImpulse`), not to the pending impulse. Ignored for
    /// a node outside the tree; counted as rejected by the dynamics if not finite. About 6M flops.
    void ApplyProxyImpulse(std::uint32_t inNode, const Vec3d& inImpulse, const btTransform& inWorldFromLocal);
    /// The same with R given (`RestToWorld(transform)`, computed once for several proxies).
    void ApplyProxyImpulse(std::uint32_t inNode, const Vec3d& inImpulse, const Mat3d& inRestToWorld);

    /// Work counters of the queries run on this body (the narrowphase adds to them); reset by the caller.
    QueryStats& Stats() const { return mStats; }
    /// Where the narrowphase's pairs with this body as A spent their work and time (`NarrowphaseStats`); reset
    /// by the caller.
    NarrowphaseStats& Narrowphase() const { return mNarrowphase; }

    // --- Internal: the step's solver hooks ---
    // Called by `bdt::World` and the collision algorithms in a fixed order each step: `BeginStep`, `PredictStep`,
    // the narrowphase (patches, surface cache, responses), the coupled solve (couplings, mobilities) and the
    // impulse read-back (pending impulses). A host that uses `bdt::World` never calls them, and a host that
    // drives the shape itself calls them in that order. Not part of the stable API: they change with the solver.

    /// The surface patches of the current proxy level (`DeformableAsset::Patches`), made when the body first
    /// uses the surface model and kept while its level stays; null before.
    const ProxyPatches* Patches() const { return mPatches.get(); }
    /// The tree's BD-AABB box rows (`DeformableAsset::Boxes`), which the surface model culls its proxy pairs
    /// by: loaded with the patches; null before.
    const BDAabbTree* SurfaceBoxes() const { return mSurfaceBoxes.get(); }
    /// The surface model's contact pieces (`DeformableAsset::Pieces`), loaded with the patches; null before.
    const ContactPieces* Pieces() const { return mPieces.get(); }
    /// The deformed vertices of the patches the surface contacts touched this step (mutable, as `State`).
    SurfaceCache& Surface() const { return *mSurface; }
    /// Which contact pieces the narrowphase used last step and uses this one (mutable, thread-safe as
    /// `PieceMemory` says); null without pieces. `BeginStep` moves it on a step.
    PieceMemory* PieceUse() const { return mPieceUse.get(); }
    /// Forgets which contact pieces were in use: the next step chooses them as a new body's would (a restored
    /// snapshot, whose manifolds start cold too).
    void ForgetPieceUse();

    /// Starts a collision step: gives the tree state the dynamics' current q (a new update stamp), and makes
    /// this step's pieces in use last step's (`PieceUse`). Returns
    /// false if that q was rejected (non-finite or huge); the dynamics are then reset to rest and the state
    /// set to q = 0, so no bad value reaches a query. (A guard: `ModalDynamics` keeps q finite and within
    /// 1e9, which the tree state accepts.)
    bool BeginStep();

    /// Tells the narrowphase that this body's modes will be stepped over the coming `timeStep` by
    /// `ModalDynamics::Step` as `bdt::World` does: the held contact impulse as a constant force, the change this
    /// step's solve makes to it kicked at the start, plus, with `inertialForcing`, the inertial force of the
    /// frame, so that its contacts carry that motion to the solver (`ProxyResponse`, `PredictContacts`). Keeps
    /// the parts of `ModalDynamics::StepParts` for the current state; a mode that stayed at its strain limit
    /// through the last modal step (`previousQ`) and that the held loads press further out is predicted to stay
    /// there and to take no share of a change of them. Call it after the modal step
    /// and `BeginStep`, before collision detection. A non-positive or non-finite step, or an erp outside
    /// (0, 1], clears the prediction. O(M).
    void PredictStep(const StepPrediction& inPrediction);
    /// Forgets the prediction: the solver sees the surface where q puts it, rigid (bodies whose modes are not
    /// stepped: static, asleep, or under `SetQ`). `SetQ`, `SetSettings` and `setLocalScaling` clear it too.
    void ClearPrediction();
    /// Whether `PredictStep` set a prediction that is still in force, and the one it set.
    bool Predicting() const { return mPredicting; }
    const StepPrediction& Prediction() const { return mPrediction; }
    /// The predicted motion of proxy `inNode` along the world unit vector `inDirection` over the step, for a
    /// body whose rest-to-world rotation is `inRestToWorld` (`RestToWorld`). With
    /// u_j = s·(Rᵀd)·Ū_j the proxy's motion along d per unit q_j (its mean-displacement row, as in
    /// `AddContactImpulse`): displacement Σ_j u_j Δq_j (Δq the step's motion with the held impulse and force),
    /// and compliance Σ_j u_j (K_j u_j + c_j (w_j − u_j)) (clamped at 0), how far the proxy moves along d per
    /// unit change of the impulse along d there (`StepChangeCompliance` K, `StepHeldCompliance` c), where w_j is the
    /// generalised impulse that impulse gives mode j: u_j less, with inertial forcing, the inertial impulse of
    /// the frame acceleration it causes, s·s_j·Rᵀd + m·s²·(Rᵀα)·a_j (α = `inFrameAngularPerImpulse`, world
    /// rad/s per N·s, I⁻¹(r × d) of the rigid body with r from its centre of mass to the proxy, null if the
    /// solver does not move the body; a_j the axial vector of A_j's antisymmetric part, `ModalProperties`).
    /// That is the diagonal of the contacts' compliance matrix, all a solver row can hold: how one contact's
    /// impulse moves the body's other contacts through the shared modes is what `bdt::World`'s coupled solve
    /// after Bullet's adds. Zero without a prediction or for a node outside the tree. About 16M flops.
    ProxyStepResponse ProxyResponse(std::uint32_t inNode, const Vec3d& inDirection,
                                    const Mat3d& inRestToWorld,
                                    const Vec3d* inFrameAngularPerImpulse = nullptr) const;
    /// `ProxyResponse` at a contact feature: through the surface point's own row of U (Σ_k b_k U_{v_k} over its
    /// triangle's vertices) for a surface contact, through the proxy's Ū for a proxy contact. About 22M flops for
    /// a surface point.
    ProxyStepResponse Response(const ContactFeature& inFeature, const Vec3d& inDirection, const Mat3d& inRestToWorld,
                               const Vec3d* inFrameAngularPerImpulse = nullptr) const;

    /// The two rows of `Response` for one contact, each M entries: `outMotion` u_j = s·(Rᵀd)·U_j(x), the
    /// point's world motion along d per unit q_j, and `outImpulse` w_j, the generalised impulse mode j takes
    /// over the coming step per unit impulse along d at the point (u_j less, with inertial forcing, the inertial
    /// impulse of the frame acceleration it causes). A change δλ of this impulse moves the body's contact points
    /// i along their directions by u_i·(K⊙u + c⊙(w − u))·δλ over the step (`StepChangeCompliance` K,
    /// `StepHeldCompliance` c): what a solver coupling the contacts through the shared modes needs. False
    /// (nothing written) without a prediction, or outside the tree. About 14M flops.
    bool ResponseRows(const ContactFeature& inFeature, const Vec3d& inDirection, const Mat3d& inRestToWorld,
                      const Vec3d* inFrameAngularPerImpulse, std::span<double> outMotion,
                      std::span<double> outImpulse) const;
    /// With a prediction, b_j = a_j + (c_j − K_j)·H_j (`ModalDynamics::StepParts` a, c; H the held contact
    /// impulse; K below): the coming step moves mode j by b_j + c_j·F_j + K_j·G_j for a generalised impulse G of
    /// this solve's contacts and F of the frame's inertial force over the step (`StepPrediction`). M entries
    /// (empty without a prediction).
    std::span<const double> StepBase() const { return Predicted(mStepBase); }
    /// With a prediction, c_j of `ModalDynamics::StepParts`: displacement per unit generalised impulse held over
    /// the step. M entries (empty without one).
    std::span<const double> StepHeldCompliance() const { return Predicted(mStepHeld); }
    /// With a prediction, K_j = α_j k_j + (1 − α_j) c_j: displacement per unit change of the contacts' generalised
    /// impulse, its share α_j (`ModalDynamics::KickedShare`) kicked in at the step's start, the rest held.
    /// M entries (empty without one).
    std::span<const double> StepChangeCompliance() const { return Predicted(mStepChange); }

    /// Adds the generalised impulse of a world impulse `inImpulse` (N·s, acting on this body) applied at
    /// proxy `inNode`: g_j += s · Ū_jᵀ Rᵀ J, R the rest-to-world rotation of `QueryView(inWorldFromLocal)`, Ū_j the
    /// node's centre velocity in the current proxy rows. Accumulated until `FlushImpulses`. Non-finite
    /// impulses are ignored and counted by the dynamics (`GuardStats().rejectedImpulses`); a node outside the
    /// tree is ignored. About 6M flops, plus the rotation of `QueryView` (a nearest-rotation fit).
    void AddContactImpulse(std::uint32_t inNode, const btVector3& inImpulse, const btTransform& inWorldFromLocal);
    /// The same with R given: `inRestToWorld` = `RestToWorld(transform)`, computed once for several
    /// impulses on one body. About 6M flops.
    void AddContactImpulse(std::uint32_t inNode, const btVector3& inImpulse, const Mat3d& inRestToWorld);
    /// The coupling of the modes with proxy `inNode` along the world unit vector `inDirection`: writes
    /// u_j = s·(Rᵀd)·Ū_j to `outCoupling` (M entries; R = `inRestToWorld`), the proxy's velocity along d per
    /// unit q̇_j and the generalised impulse mode j takes per unit impulse along d there. With it the modal
    /// velocity along d is `ModalVelocityAlong(u)` = Σ u_j q̇_j, the mobility along d
    /// `ModalMobilityAlong(u)` = Σ u_j²/μ_j, and an impulse p along d `ApplyModalImpulse(u, p)`: the
    /// components along d of `ProxyModalVelocity`, `ProxyModalMobility` and `ApplyProxyImpulse`, for about
    /// 3M flops each instead of 40M in all. False (u = 0) for a node outside the tree.
    bool ProxyCoupling(std::uint32_t inNode, const Vec3d& inDirection, const Mat3d& inRestToWorld,
                       std::span<double> outCoupling) const;
    /// `ProxyCoupling` at a contact feature: u_j = s·(Rᵀd)·U_j(x) with the surface point's own row for a surface
    /// contact (the proxy's Ū for a proxy contact). False (u = 0) for a node or triangle outside the tree.
    bool Coupling(const ContactFeature& inFeature, const Vec3d& inDirection, const Mat3d& inRestToWorld,
                  std::span<double> outCoupling) const;
    /// The world velocity of the feature's point due to the modes, s·R·Σ_j U_j(x) q̇_j (m/s): the surface point's
    /// own row, or the proxy's centre for a proxy contact (`ProxyModalVelocity`). Zero outside the tree.
    Vec3d ModalVelocity(const ContactFeature& inFeature, const Mat3d& inRestToWorld) const;
    /// `AddContactImpulse` at a contact feature: g_j += s·U_j(x)ᵀRᵀJ through the point's own row.
    void AddContactImpulse(const ContactFeature& inFeature, const btVector3& inImpulse, const Mat3d& inRestToWorld);
    /// Σ_j u_j q̇_j (m/s) for a coupling u of `ProxyCoupling`.
    double ModalVelocityAlong(std::span<const double> inCoupling) const;
    /// Σ_j u_j²/μ_j (m/s per N·s) for a coupling u of `ProxyCoupling` (modes without mass add nothing).
    double ModalMobilityAlong(std::span<const double> inCoupling) const;
    /// Adds to the pending generalised impulse (`AddContactImpulse`) that of the world impulse `inImpulse`
    /// (N·s) along the direction a coupling of `ProxyCoupling` was made for, at its proxy: g_j += p·u_j, what
    /// `AddContactImpulse` adds for the impulse p·d (to rounding) without projecting it again. A non-finite
    /// impulse is ignored and counted as `AddContactImpulse` counts it; a coupling shorter than M leaves the
    /// other modes alone. M flops.
    void AddCouplingImpulse(std::span<const double> inCoupling, double inImpulse);
    /// Applies the impulse `inImpulse` (N·s) along the coupling's direction at its proxy to the modes at once:
    /// q̇_j jumps by p·u_j/μ_j (`ModalDynamics::ApplyImpulseAlong`: a non-finite one is counted and ignored;
    /// a coupling shorter than M leaves the other modes alone).
    void ApplyModalImpulse(std::span<const double> inCoupling, double inImpulse);

    /// Applies the accumulated generalised impulse to the dynamics (q̇ jumps) and clears it.
    void FlushImpulses();
    /// The generalised impulse accumulated since the last flush or clear (M entries, N·s·model unit).
    std::span<const double> PendingImpulse() const { return mPendingImpulse; }
    /// Replaces the accumulated generalised impulse (M finite entries), as a snapshot restores it. False, and
    /// nothing changed, otherwise.
    [[nodiscard]] bool SetPendingImpulse(std::span<const double> inImpulse);
    /// Forgets the accumulated impulse without applying it (`bdt::World` applies it instead as a constant
    /// force over the next step, so a steady contact load gives a steady deflection, not a kick a step).
    void ClearImpulses();

    /// Asks the processor to bring this shape's state (q, the root's cached sphere, the step's prediction)
    /// into its cache ahead of a query: a hint for loops over many pairs, no effect on any result. Reads the
    /// shape object itself (bring that in first). A few dozen prefetch instructions.
    void Prefetch() const;

private:
    // The nearest rotation Q of a Bullet basis and Q·principal, the last ones asked for: the narrowphase, the
    // prediction and the impulse read-back ask for the same body's rotation many times a step.
    struct RotationMemo
    {
        btScalar basis[9] = {};
        Mat3d nearest = Mat3d::Identity();
        Mat3d restToWorld = Mat3d::Identity();
        bool valid = false;
    };

    void ApplySettings(const DeformableShapeSettings& inSettings);
    /// The displacement of the feature's point per unit q_j, rest frame, model units, M × 3 doubles into
    /// `outRow`; false (and nothing written) outside the tree.
    bool ModeRow(const ContactFeature& inFeature, std::span<double> outRow) const;
    void CountRejectedImpulse(); // a non-finite contact impulse: ignored, counted by the dynamics' guard
    double Scale() const; // the uniform local scaling s
    // The memo for `inBasis`, refitted unless the basis is the last one, element for element (bit-identical
    // results either way: the fit is a function of the basis alone).
    const RotationMemo& Rotations(const btMatrix3x3& inBasis) const;

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
    std::vector<double> mPendingImpulse; // generalised impulse accumulated this step (M entries)
    // The coming step's motion if the contacts keep the held impulse H and the frame its inertial force F°,
    // a + c⊙(H + h·F°), c of `ModalDynamics::StepParts`, the change compliance K and b = a + (c − K)⊙H, M entries
    // each (`PredictStep`).
    std::vector<double> mStepDisplacement, mStepHeld, mStepChange, mStepBase;
    std::span<const double> Predicted(const std::vector<double>& inValues) const
    {
        return mPredicting ? std::span<const double>(inValues) : std::span<const double>();
    }
    std::vector<double> mScratch; // one generalised impulse (M entries)
    bool mPredicting = false;
    StepPrediction mPrediction;
    mutable QueryStats mStats;
    mutable NarrowphaseStats mNarrowphase;
};

/// The shape of `inShape` as a `DeformableShape`, or null (checks the type and the name, no RTTI cost).
const DeformableShape* AsDeformable(const btCollisionShape* inShape);
DeformableShape* AsDeformable(btCollisionShape* inShape);

} // namespace bdt
