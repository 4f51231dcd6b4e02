#pragma once

// The narrowphase's geometry: the contacts of a deformable body's proxy spheres (BD-Tree paper §3.4) with the
// shape on the other side of a pair, one per proxy (per proxy pair for two deformables), before they are
// grouped into regions and reduced to Bullet's four points a manifold. The narrowphase's dispatcher: it calls
// the files that make one kind of pair's contacts (`ConvexProxyContacts.h`, `ConcaveProxyContacts.h`,
// `SurfacePieces.h`, `PieceDescent.h`), which include only what lies below them (`PairContact.h`,
// `SurfacePatches.h`), never this header. Private to plugin/bullet.

#include "bullet/manifold/PairContact.h"

#include "core/contacts/SurfaceCache.h"

#include <bdt/bullet/ContactFeature.h>
#include <bdt/core/geometry/Contact.h>
#include <bdt/core/base/Math.h>
#include <bdt/core/geometry/Primitives.h>
#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

class btCollisionShape;
class btStaticPlaneShape;
class btTransform;
struct btCollisionObjectWrapper;

namespace bdt
{

class TraversalFront;
class ProxyPairCache;
class PrimitivePairCache;
struct DeformedBody;

/// How the narrowphase treats the shape on the other side of a deformable.
enum class EOtherShape : std::uint8_t
{
    Deformable,  ///< Another `DeformableShape`: proxy tree against proxy tree.
    Sphere,      ///< `btSphereShape`: the core's analytic sphere query.
    Box,         ///< `btBoxShape`: analytic, the surface at `getHalfExtentsWithMargin`.
    Capsule,     ///< `btCapsuleShape` (any up axis): analytic.
    Plane,       ///< `btStaticPlaneShape`: analytic half-space, solid where n·x ≤ constant.
    Convex,      ///< Any other convex shape: proxies culled by its box, then GJK per proxy sphere.
    Concave,     ///< Any other concave shape: proxies culled by its box, then the nearest triangle per proxy.
    Compound,    ///< `btCompoundShape`: handled by Bullet's compound algorithm, child by child.
    Unsupported, ///< Anything else (soft bodies, empty shapes): left to the configuration's algorithm.
};

/// The treatment of `inShape` when it is not itself deformable (see `EOtherShape`).
EOtherShape ClassifyOther(const btCollisionShape* inShape);

/// Whether `inOther` is an analytic primitive (sphere, box, capsule, plane): the core queries test it
/// exactly, this plugin's code only.
constexpr bool IsAnalyticPrimitive(EOtherShape inOther)
{
    return inOther == EOtherShape::Sphere || inOther == EOtherShape::Box || inOther == EOtherShape::Capsule ||
           inOther == EOtherShape::Plane;
}

/// `inPlane` placed by `inTransform`: the world half-space n·x ≤ offset the narrowphase collides with
/// (Bullet's plane constant along the normal, no margin).
Plane WorldPlane(const btStaticPlaneShape& inPlane, const btTransform& inTransform);

class DeformableShape;

/// When `GenerateContacts` names the surface points of contacts made on contact pieces.
enum class EPieceNames : std::uint8_t
{
    Now,   ///< Every contact leaves named (closest-point queries, tests).
    /// Left unnamed (`PairContact::Unnamed`) for `PieceNamer`: the narrowphase names what it keeps. The
    /// search distance cut their lower bound, so a named one may lie beyond it by up to its slack.
    Later,
};

/// Bullet's identifiers (partId, index) of A's side of `inContact`: the proxy node and the triangle in the
/// input mesh's order, −1 for a proxy contact (`FeatureOf` reads them back).
std::pair<int, int> IdentifiersA(const PairContact& inContact, const DeformableShape& inA);
/// B's: the same for a deformable `inB`; a concave B's part and triangle; else (−1, −1).
std::pair<int, int> IdentifiersB(const PairContact& inContact, const DeformableShape* inB);

/// Whether the pair of deformable `inA` and `inB` (any shape) makes surface contacts: A uses the surface
/// model and, if B is deformable, so does B (a pair with a body of the proxies model makes proxy contacts).
bool UsesSurface(const DeformableShape& inA, const btCollisionShape* inB);

/// Appends the contacts of the deformable A (`inA`'s shape must be a `DeformableShape`) with `inB` whose
/// distance is at most `inMaxDistance` (≥ 0). A's proxies are found with its spheres inflated by A's margin +
/// `inMaxDistance`, B's (if deformable) by B's margin, so every contact within `inMaxDistance` is found. In
/// the surface model (`UsesSurface`) the contacts are those of the deformed triangles under the proxies found
/// (`SurfaceContacts.h`: closest feature pairs, against B's exact surface; for a convex B per triangle by
/// GJK, for a concave B against its triangles near each proxy); an interrupted descent's contacts above the
/// proxies stay sphere contacts. In the proxies model: one per proxy of A (sphere, box, capsule, plane,
/// convex: the proxy's closest point on B; concave: on B's nearest triangle), one per overlapping proxy pair
/// for two deformables. Uses the wrappers' world transforms and shapes (a compound's child has its own).
/// Nothing for `Compound` and `Unsupported`. The core queries' work counters are added to `ioStats`.
///
/// Two deformables: the contacts come in ascending (A's proxy, B's proxy) order (of their proxy pairs in the
/// surface model). With `ioFront` (the pair's own, kept from its last query: `TraversalFront`, its roles A
/// and B unchanged) the proxy descent starts from the front and moves it; the contacts are the same, bit for
/// bit and in the same order, as without it, only the number of sphere tests in `ioStats` differs. `ioCache`
/// (the pair's own, `ProxyPairCache`) likewise answers the proxy query from the pair's list while the bodies
/// have not moved by more than its skin; the front, when both are given, wins. Both are ignored for other
/// shapes. `ioPrimitiveCache` (the pair's own, `PrimitivePairCache`) does the same for a sphere, box, capsule
/// or plane B that stays where it is (the world's static geometry), bit for bit too; ignored for other
/// shapes.
///
/// `inSurfaceReach`: in the surface model, two deformables' proxy pairs whose spheres are further apart than
/// this (a pair searching beyond its contact breaking threshold as it closes fast, `SpeculativeReach`) keep
/// their sphere contacts, speculative contacts that stop the approach where the proxies meet: their surfaces,
/// inside the spheres, are further apart still, and the sphere contact costs a test where the surface's costs
/// hundreds. The surface contacts take over when the spheres come within it.
///
/// With `ioStages`, the time of the descent and of the surface model's placement and feature tests is added
/// to its stage times (`NarrowphaseStats`; its counters are left to `ioStats`).
///
/// `inPieceNames` Later leaves the contacts made on contact pieces unnamed (`PairContact::Unnamed`): naming a
/// point searches the body's tree for its triangle, and the region reduction keeps only a few of the points a
/// pair finds.
void GenerateContacts(const btCollisionObjectWrapper& inA, const btCollisionObjectWrapper& inB,
                      double inMaxDistance, std::vector<PairContact>& outContacts, QueryStats& ioStats,
                      TraversalFront* ioFront = nullptr, ProxyPairCache* ioCache = nullptr,
                      PrimitivePairCache* ioPrimitiveCache = nullptr,
                      double inSurfaceReach = std::numeric_limits<double>::infinity(),
                      NarrowphaseStats* ioStages = nullptr, EPieceNames inPieceNames = EPieceNames::Now);




/// What `PredictContacts` needs of a pair beyond its contacts: which sides have a prediction
/// (`ShapeSolver::Predicting`), its Baumgarte factor, and each predicting side's rest-to-world rotation
/// (`DeformableShape::RestToWorld`, a nearest-rotation fit: computed once per pair, not once per region).
struct PairPrediction
{
    bool predictA = false;
    bool predictB = false;
    double erp = 0.0;
    Mat3d rotationA = Mat3d::Identity();
    Mat3d rotationB = Mat3d::Identity();
};

/// The pair part of `PredictContacts` for these wrappers, valid while their transforms and the bodies'
/// predictions do not change (one narrowphase call).
PairPrediction PreparePrediction(const btCollisionObjectWrapper& inA, const btCollisionObjectWrapper& inB);

/// Makes `ioContacts` (from `GenerateContacts` for the same wrappers, `inPrediction` their
/// `PreparePrediction`; the narrowphase passes the points it
/// keeps for the manifolds) what the solver must see of a vibrating surface over the coming step
/// (`ShapeSolver::PredictStep`): `stepMotion` is set to the motion of A's proxy along the normal if its
/// modes keep last step's force, plus B's (two deformables) away from A (the distance itself stays the
/// geometry's), `compliance` to the sum of both sides' give per unit impulse
/// (`ShapeSolver::ProxyResponse`, with the frame acceleration of each side's rigid body) and
/// `predictionErp` to the prediction's. A body without a prediction contributes nothing. `SetSolverGap` makes
/// the solver's gap of them. Why: the solver treats the surfaces as rigid bodies' surfaces, while the modes
/// move them over the step; without this the position-dependent part of the contact impulse (Baumgarte,
/// speculative contacts) acts on the modes as a stiff spring delayed by one step, which pumps energy into
/// them (the smaller the step, the stiffer). About 40M flops a contact.
void PredictContacts(const btCollisionObjectWrapper& inA, const btCollisionObjectWrapper& inB,
                     const PairPrediction& inPrediction, std::span<PairContact> ioContacts);

/// The contacts of the proxies' conservative (updated) spheres, before `GenerateContacts` takes each proxy
/// back to its rest radius about its moved centre (the radius growth ΔRᵀ|q| is a bound for culling, not a
/// surface to push against). Same conventions as `GenerateContacts`, its caches included.
void GenerateSphereContacts(const btCollisionObjectWrapper& inA, const btCollisionObjectWrapper& inB,
                            double inMaxDistance, std::vector<PairContact>& outContacts, QueryStats& ioStats,
                            TraversalFront* ioFront = nullptr, ProxyPairCache* ioCache = nullptr,
                            PrimitivePairCache* ioPrimitiveCache = nullptr);

} // namespace bdt
