#pragma once

#include <bdt/core/geometry/Contact.h>
#include <bdt/core/base/Math.h>
#include <bdt/core/geometry/Primitives.h>
#include <optional>

namespace bdt
{

// Exact geometry of single triangles, used at the leaves of the BD-Tree queries (and by their tests as the
// brute-force reference). A triangle is three vertices in any one frame; every argument of a call is in that
// frame, and so are the results. Triangles are closed sets (boundary included), so touching counts as
// intersecting everywhere. Degenerate triangles (collinear or coincident vertices) are accepted and treated
// as the segment or point they are.

/// True when the closed segment [inP, inQ] and the closed triangle share a point. Decided with exact
/// predicates (`Orient3D`), so coplanar and touching configurations get the exact answer for the double
/// inputs. Cost: 2 to 5 filtered orientation tests (about 150 flops) in the common case.
bool SegmentIntersectsTriangle(const Vec3d& inP, const Vec3d& inQ, const Vec3d (&inTriangle)[3]);

/// True when the closed triangles share a point. Exact for the double inputs: decided by the signs of
/// exact orientation predicates only (no rounded intersection points), so it is symmetric, gives the same
/// answer for any vertex order, and answers coplanar, edge-on and vertex-touching pairs exactly.
///
/// Non-coplanar triangles: both must straddle (or touch) the other's plane; then each meets the line of the
/// two planes in an interval, and the two intervals are compared through the orientations of edge pairs
/// (the sign of det[q − p, r − p, s − p] orders the points where edges pq and rs meet the other plane along
/// that line). Coplanar triangles: exact 2D edge and containment tests on a projection that is one-to-one
/// on their plane. Cost: about 8 filtered orientation tests (about 250 flops) when the triangles are close.
bool TrianglesIntersect(const Vec3d (&inA)[3], const Vec3d (&inB)[3]);

/// The point of the closed segment [inA, inB] closest to `inPoint`. About 20 flops.
Vec3d ClosestPointOnSegment(const Vec3d& inPoint, const Vec3d& inA, const Vec3d& inB);

/// The point of the closed triangle closest to `inPoint` (the projection onto the plane when it falls inside,
/// else the closest point of the nearest edge). Degenerate triangles give the closest point of their edges.
/// About 100 flops.
Vec3d ClosestPointOnTriangle(const Vec3d& inPoint, const Vec3d (&inTriangle)[3]);
/// Barycentric coordinates (sum 1) of `ClosestPointOnTriangle(inPoint, inTriangle)`; (1, 0, 0), the first
/// vertex, for a degenerate triangle.
Vec3d ClosestBarycentric(const Vec3d& inPoint, const Vec3d (&inTriangle)[3]);

/// Closest points of the closed segments [inP1, inQ1] and [inP2, inQ2] (`outOn1` on the first, `outOn2` on
/// the second); returns their distance. Parallel and degenerate segments are handled (one closest pair is
/// returned when there are many). About 150 flops.
double ClosestPointsSegmentSegment(const Vec3d& inP1, const Vec3d& inQ1, const Vec3d& inP2, const Vec3d& inQ2,
                                   Vec3d& outOn1, Vec3d& outOn2);

/// Closest points of the closed segment [inA, inB] and the closed triangle; returns their distance, exactly
/// 0 when `SegmentIntersectsTriangle` says they meet (both points are then a common point, up to rounding).
/// About 700 flops.
double ClosestPointsSegmentTriangle(const Vec3d& inA, const Vec3d& inB, const Vec3d (&inTriangle)[3],
                                    Vec3d& outOnSegment, Vec3d& outOnTriangle);

/// True when the closed triangle overlaps the closed box [−inHalfExtents, +inHalfExtents], the triangle
/// given in the box's frame. Separating axis test on the 13 candidate axes (3 box faces, the triangle normal,
/// 9 edge cross products); touching counts as overlap. About 200 flops.
bool TriangleOverlapsBox(const Vec3d (&inTriangle)[3], const Vec3d& inHalfExtents);

/// True when the axis-aligned bounding box of the triangle overlaps `inBox` (closed; an empty box overlaps
/// nothing). About 20 flops.
bool TriangleBoundsOverlap(const Vec3d (&inTriangle)[3], const Aabb& inBox);

/// Ray parameter t in [0, inRay.maxT] of the ray's intersection with the closed triangle, either face;
/// nullopt when it misses, or when the ray lies in the triangle's plane. Edge functions are evaluated on each
/// edge in one canonical direction, so the two triangles sharing an edge see exactly opposite values and a
/// ray through the edge cannot slip between them. About 60 flops.
std::optional<double> RayTriangle(const Ray& inRay, const Vec3d (&inTriangle)[3]);

// Contacts of a triangle with a solid primitive, all in one frame. Each returns nullopt when the triangle and
// the solid do not meet (closed sets: touching gives a contact of depth 0). Otherwise `point` lies on the
// triangle (its deepest point in the solid, up to rounding), `normal` is unit and points from the primitive
// to the triangle (moving the triangle by depth·normal separates it), `depth` ≥ 0. `triangle` is left as
// cNoIndex for the caller to fill.

/// Triangle vs solid sphere: meets when the closest point is within the radius. depth = radius − distance,
/// normal from the centre to the closest point; when the centre lies on the triangle, the normal is the
/// reverse face normal (the limit from the outside of a counter-clockwise surface) and depth = radius.
std::optional<TriangleContact> TriangleSphereContact(const Vec3d (&inTriangle)[3], const Sphere& inSphere);

/// Triangle vs half-space {x : n·x ≤ offset}: meets when the lowest vertex is inside. The point is that
/// vertex, the normal the plane normal, depth = offset − n·vertex.
std::optional<TriangleContact> TrianglePlaneContact(const Vec3d (&inTriangle)[3], const Plane& inPlane);

/// Triangle vs solid oriented box (`TriangleOverlapsBox` in the box frame). The normal is the separating-axis
/// candidate of least overlap (the exact penetration direction of two convex sets), depth that overlap, and
/// the point the deepest point along it of the triangle clipped to the box.
std::optional<TriangleContact> TriangleBoxContact(const Vec3d (&inTriangle)[3], const OrientedBox& inBox);

/// Triangle vs solid capsule: meets when the axis segment is within the radius. Like the sphere; when the
/// axis touches the triangle, the normal is the face normal towards the side the axis reaches less deeply
/// past, and the depth includes that reach.
std::optional<TriangleContact> TriangleCapsuleContact(const Vec3d (&inTriangle)[3], const Capsule& inCapsule);

} // namespace bdt
