#pragma once

#include <bdt/core/geometry/Contact.h>
#include <bdt/core/geometry/Primitives.h>
#include <bdt/core/contacts/ProxyPatches.h>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace bdt
{

// The surface contact model (`EContactModel::Surface`): contacts made on the deformed triangles under a proxy
// that the BD-Tree's culling left overlapping, as pairs of closest features.
//
// The surfaces are polyhedral, so the closest points of two of them (or of one and a convex primitive) are
// realised by a pair of features: a vertex of one against a face, an edge or a vertex of the other, or an
// edge against an edge. Each such pair is tested once, with the exact distance of the two features in double,
// and kept when it is *valid*: when the line joining the two points leaves each feature within its normal
// cone (the directions in which that feature is the closest part of its body: a face's normal, the wedge
// between an edge's two face normals, the cone of a vertex's ring), up to `cConeSlack`. A valid pair is a
// local minimum of the distance between the surfaces, so a resting body gets its contacts where it really
// touches, with the surface's normals: under a box lying on a flat deformed patch the patch's vertices (box
// face normal), the box's corners (the patch's face normals) and crossing edges, never the slanted normals of
// a vertex facing a box edge it is not closest to. Every vertex, edge and face is tested under the proxy that
// owns it
// (`ProxyPatches`), so a contact is made once.
//
// Frames: every input and output is in one frame (the narrowphase's world). Distances are signed: positive
// apart, negative penetrating, measured between the surfaces grown by their margins. Faces of a closed
// surface
// (`ProxyPatches::Closed`) have an outside: a feature behind one, up to `PatchView::depthLimit`, penetrates.
// An open surface's faces are two-sided sheets.

/// How far (the sine of an angle) a contact's direction may leave a feature's normal cone and still count: a
/// deformed, nearly flat patch has vertices and edges whose cones are slivers around its normal, which the
/// contacts under a resting body must not flicker in and out of as the modes ring. 0.05: about 3 degrees.
inline constexpr double cConeSlack = 0.05;

/// One proxy's patch of a deformed surface, placed: what the surface contact functions collide. Made by the
/// caller (`SurfaceCache` deforms the vertices); the spans must hold `Vertices(proxy)` and `Triangles(proxy)`
/// entries.
struct PatchView
{
    const ProxyPatches* patches = nullptr;
    std::uint32_t proxy = cNoIndex;
    std::span<const Vec3d> vertices; ///< The patch's deformed vertices (`ProxyPatches::Vertices` order).
    /// Its triangles' unit normals, outward for a closed surface (`ProxyPatches::Triangles` order); zero for
    /// a degenerate triangle, which then makes no face contact.
    std::span<const Vec3d> normals;
    Sphere bound; ///< The proxy's updated sphere.
    /// The box of the patch's own triangles' vertices, and of each own triangle (`OwnTriangleCount` of them):
    /// what the other side's features are culled by. Made by `PlacePatch`.
    Aabb box;
    std::span<const Aabb> faceBoxes;
    /// A separating axis candidate: the unit area-weighted normal of the patch's own triangles (zero when
    /// they cancel), and the interval the patch's own vertices span along it. A deformed patch is nearly
    /// flat, so another patch whose vertices all lie beyond that thin interval, by more than the reach, is
    /// apart from it.
    Vec3d axis = Vec3d::Zero();
    double axisLow = 0.0, axisHigh = 0.0;
    double margin = 0.0; ///< The surface's margin (collision skin), ≥ 0.
    /// How deep a feature of the other side may be behind one of this patch's faces and still count as
    /// penetrating it rather than being on the far side of a thin part. The narrowphase gives the proxy's
    /// radius.
    double depthLimit = 0.0;
    /// The patch's body's centre of mass, world, where the caller knows it (NaN otherwise): a box the patch's
    /// vertices are deep in pushes them out on the side of it the body is on (the one the centre lies beyond
    /// most, in units of the box's half extents), not through its far side.
    Vec3d bodyCentre = Vec3d::Constant(std::numeric_limits<double>::quiet_NaN());
    /// Where the contact functions count their work (`QueryStats::patchPairs`, `featureTests`,
    /// `surfaceContacts`) when not null. Not owned.
    QueryStats* stats = nullptr;
};

/// A surface contact, Bullet's conventions: A is the deformable patch, B the other side.
struct SurfaceContact
{
    Vec3d pointOnB = Vec3d::Zero(); ///< On B's surface grown by B's margin.
    Vec3d normal = Vec3d::UnitY();  ///< Unit, from B to A: moving A along it separates them.
    /// Signed distance between the margin-grown surfaces; A's point is `pointOnB + normal * distance`.
    double distance = 0.0;
    std::uint32_t proxyA = cNoIndex;    ///< A's proxy (the patch).
    std::uint32_t triangleA = cNoIndex; ///< A's triangle holding the point (tree order).
    Vec3d barycentricA = Vec3d::Zero(); ///< The point on that triangle (before the margin), barycentric.
    std::uint32_t proxyB = cNoIndex;    ///< B's proxy for a deformable B, else cNoIndex.
    /// B's triangle: tree order for a deformable B, the triangle's position in the list for triangles (the
    /// caller maps it to its own ids), cNoIndex for a primitive.
    std::uint32_t triangleB = cNoIndex;
    Vec3d barycentricB = Vec3d::Zero(); ///< The point on B's triangle (before the margin), barycentric.
};

/// A triangle of another mesh (a static level: `btBvhTriangleMeshShape`, a heightfield), two-sided.
struct SoupTriangle
{
    Vec3d vertices[3];
};

/// Appends the contacts of patch `inA` with a primitive within `inMaxDistance` (≥ 0): with a half-space, the
/// patch's vertices; with a sphere, capsule or box, also its faces against the primitive's corners (a
/// sphere's centre, a capsule's ends, a box's corners) and its edges against the primitive's corners and
/// edges. The primitive has no margin of its own (its geometry is its surface). About 100 flops a feature
/// pair tested; the primitive's corners and edges are culled by `inA.bound` first. Returns the feature pairs
/// dropped as deeper than the patch's depth limit, and the vertices inside the primitive by more than a
/// quarter of it that face none of its ways out: where the patch makes no contact but some of those, the
/// primitive has passed through the surface there (the narrowphase then keeps the proxy's contact).
std::size_t PatchContacts(const PatchView& inA, const Plane& inPlane, double inMaxDistance,
                          std::vector<SurfaceContact>& outContacts);
std::size_t PatchContacts(const PatchView& inA, const Sphere& inSphere, double inMaxDistance,
                          std::vector<SurfaceContact>& outContacts);
std::size_t PatchContacts(const PatchView& inA, const Capsule& inCapsule, double inMaxDistance,
                          std::vector<SurfaceContact>& outContacts);
std::size_t PatchContacts(const PatchView& inA, const OrientedBox& inBox, double inMaxDistance,
                          std::vector<SurfaceContact>& outContacts);
/// Two deformable patches (proxy pair of two bodies, or of one body with itself for distinct proxies): A's
/// vertices against B's faces, edges and vertices, B's vertices against A's faces and edges, and A's edges
/// against B's; each side's features culled by the other's bound. Returns how many feature pairs within the
/// band were dropped as deeper in each other than the depth limits (`PatchView::depthLimit`): where the
/// patches make no contact but some of those, they are deep inside each other rather than apart (the
/// narrowphase then keeps their proxy contact, which pushes them out). With `outCrossings`, adds to it the
/// vertices well behind a face (a quarter of its depth limit or more, less than all of it) whose normal cone
/// does not face it: where the two surfaces cross (bodies pressed far into each other make no contact
/// otherwise).
std::size_t PatchContacts(const PatchView& inA, const PatchView& inB, double inMaxDistance,
                          std::vector<SurfaceContact>& outContacts, std::size_t* outCrossings = nullptr);
/// A patch against triangles of a static mesh with margin `inMarginB`, two-sided: each triangle faces against
/// the patch's outside (its faces' area-weighted normal, for a closed surface), so a body resting on a floor
/// is pushed back up out of it even when it sank into it; towards the mean of the patch's vertices for an
/// open sheet. Shared vertices and edges (equal coordinates) are tested once. `triangleB` is the index into
/// `inTriangles`. Returns the feature pairs dropped as deeper than the depth limits (not the crossings two
/// patches count).
std::size_t PatchContacts(const PatchView& inA, std::span<const SoupTriangle> inTriangles, double inMarginB,
                          double inMaxDistance, std::vector<SurfaceContact>& outContacts);

/// True when an own triangle of patch `inA` and one of `inTriangles` share a point (`TrianglesIntersect`,
/// exact): the deformed surface crosses the static mesh there. What the narrowphase asks of a patch that made
/// no contact against a soup: a closed body sliced by a terrain sheet has no pair of closest features that
/// faces the other across the cut (its side faces' cones point along the sheet), yet it is in the sheet.
/// Boxes first; about 250 flops a pair of triangles whose boxes meet.
bool PatchCrossesSoup(const PatchView& inA, std::span<const SoupTriangle> inTriangles);

/// True when an own triangle of patch `inA` shares a point with the solid primitive (`TriangleSphereContact`,
/// `TriangleOverlapsBox`, a segment's closest approach within the capsule's radius): the surfaces cross or
/// the primitive reaches inside the patch's faces. What the narrowphase asks of a patch that made no contact
/// with a primitive: one that cuts through a face between its vertices, no vertex of the body inside it and
/// none of its corners inside the body, has no pair of closest features facing each other. Boxes first.
bool PatchMeets(const PatchView& inA, const Sphere& inSphere);
bool PatchMeets(const PatchView& inA, const OrientedBox& inBox);
bool PatchMeets(const PatchView& inA, const Capsule& inCapsule);

/// Points of a convex body (a hull's vertices) rounded by `inRadius` (the hull's collision margin, m: Bullet's
/// surface of a hull is its vertices' hull grown by it) against the faces and edges of patch `inA`: the
/// corners of a hull lying on the patch, which per-triangle closest points alone would give one of. The
/// points' own cones are unknown: each point within reach counts where it projects onto a face or an edge
/// interior.
void PatchContacts(const PatchView& inA, std::span<const Vec3d> inPoints, double inRadius, double inMaxDistance,
                   std::vector<SurfaceContact>& outContacts);

/// For closest points found per triangle (GJK against a general convex): whether the point `inPoint` of own
/// triangle `inTriangle` (a local index, < `OwnTriangleCount`) of patch `inA` is a contact this patch makes
/// along `inU` (unit, from A towards B). The point's feature is classified from its barycentric coordinates
/// (a vertex or an edge within 1e-9 of one): a face's always; an edge's or a vertex's only from the triangle
/// naming it in the patch that owns it (so the triangles sharing it report it once), and only when `inU` lies
/// in its normal cone (`cConeSlack`). `outBarycentric` gets the point's coordinates on `inTriangle`.
bool AcceptsTriangleContact(const PatchView& inA, std::uint32_t inTriangle, const Vec3d& inPoint,
                            const Vec3d& inU, Vec3d& outBarycentric);

} // namespace bdt
