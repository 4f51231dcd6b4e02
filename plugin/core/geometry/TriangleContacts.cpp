// Triangle vs solid primitive: the box separating-axis test and the contact functions of TriangleGeometry.h.

#include "TriangleGeometry.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace bdt
{

namespace
{

// Axes shorter than this fraction of their natural length (|edge| for cross products, |edge|² for the
// normal) decide separation but are not used as contact normals: their normalised overlap is mostly rounding.
constexpr double cMinAxisFraction = 1e-6;

struct AxisOverlap
{
    Vec3d normal = Vec3d::UnitX(); ///< Unit, from the box to the triangle (box frame).
    double depth = std::numeric_limits<double>::infinity();
};

// Separating axis test of a triangle (box frame) against the box [−h, h]. Returns false when some axis
// separates. When ioBest is given, keeps the axis of least overlap in it.
bool BoxSeparatingAxes(const Vec3d (&inT)[3], const Vec3d& inHalf, AxisOverlap* ioBest)
{
    auto overlaps = [&](const Vec3d& inAxis, double inMinLength)
    {
        const double p0 = inAxis.dot(inT[0]);
        const double p1 = inAxis.dot(inT[1]);
        const double p2 = inAxis.dot(inT[2]);
        const double lo = std::min({p0, p1, p2});
        const double hi = std::max({p0, p1, p2});
        const double radius = inHalf.dot(inAxis.cwiseAbs());
        if (lo > radius || hi < -radius)
            return false;
        const double length = inAxis.norm();
        if (ioBest != nullptr && length > inMinLength && length > 0.0)
        {
            // Push the triangle along +axis (past the box's far side) or −axis, whichever is shorter.
            const double plus = (radius - lo) / length;
            const double minus = (hi + radius) / length;
            if (std::min(plus, minus) < ioBest->depth)
            {
                ioBest->depth = std::min(plus, minus);
                ioBest->normal = (plus <= minus ? inAxis : Vec3d(-inAxis)) / length;
            }
        }
        return true;
    };
    for (int k = 0; k < 3; ++k)
        if (!overlaps(Vec3d::Unit(k), 0.0))
            return false;
    const Vec3d edges[3] = {inT[1] - inT[0], inT[2] - inT[1], inT[0] - inT[2]};
    const double longest2 =
        std::max({edges[0].squaredNorm(), edges[1].squaredNorm(), edges[2].squaredNorm()});
    if (!overlaps(edges[0].cross(edges[1]), cMinAxisFraction * longest2))
        return false;
    for (int k = 0; k < 3; ++k)
        for (const Vec3d& edge : edges)
            if (!overlaps(Vec3d::Unit(k).cross(edge), cMinAxisFraction * edge.norm()))
                return false;
    return true;
}

// Sutherland–Hodgman clip of a convex polygon against the slab side sign·x_axis ≤ h.
int ClipAgainst(const Vec3d* inPolygon, int inCount, int inAxis, double inSign, double inHalf,
                Vec3d* outPolygon)
{
    int count = 0;
    for (int i = 0; i < inCount; ++i)
    {
        const Vec3d& current = inPolygon[i];
        const Vec3d& next = inPolygon[(i + 1) % inCount];
        const double dc = inSign * current[inAxis] - inHalf;
        const double dn = inSign * next[inAxis] - inHalf;
        if (dc <= 0.0)
            outPolygon[count++] = current;
        if ((dc < 0.0 && dn > 0.0) || (dc > 0.0 && dn < 0.0))
            outPolygon[count++] = current + (dc / (dc - dn)) * (next - current);
    }
    return count;
}

// The point of the triangle clipped to the box with the smallest normal·x (box frame); the lowest triangle
// vertex when rounding leaves nothing after clipping (a touching contact).
Vec3d DeepestClippedPoint(const Vec3d (&inT)[3], const Vec3d& inHalf, const Vec3d& inNormal)
{
    std::array<Vec3d, 16> polygon{inT[0], inT[1], inT[2]};
    std::array<Vec3d, 16> scratch;
    int count = 3;
    for (int axis = 0; axis < 3 && count > 0; ++axis)
    {
        for (double sign : {1.0, -1.0})
        {
            count = ClipAgainst(polygon.data(), count, axis, sign, inHalf[axis], scratch.data());
            std::swap(polygon, scratch);
            if (count == 0)
                break;
        }
    }
    const Vec3d* points = count > 0 ? polygon.data() : inT;
    const int pointCount = count > 0 ? count : 3;
    int deepest = 0;
    for (int i = 1; i < pointCount; ++i)
        if (inNormal.dot(points[i]) < inNormal.dot(points[deepest]))
            deepest = i;
    return points[deepest];
}

// Unit normal of the counter-clockwise triangle; +Y for a degenerate one.
Vec3d FaceNormal(const Vec3d (&inT)[3])
{
    const Vec3d n = (inT[1] - inT[0]).cross(inT[2] - inT[0]);
    const double length = n.norm();
    return length > 0.0 ? Vec3d(n / length) : Vec3d(Vec3d::UnitY());
}

// Contact from a closest pair (primitive core point, triangle point) at distance inDistance ≤ inRadius.
// inReachPlus / inReachMinus: how far the primitive's core reaches past the triangle's plane on the +face /
// −face side, used when the core touches the triangle and the pair gives no direction.
TriangleContact CoreContact(const Vec3d& inOnCore, const Vec3d& inOnTriangle, double inDistance,
                            double inRadius, const Vec3d (&inT)[3], double inReachPlus, double inReachMinus)
{
    TriangleContact contact;
    contact.point = inOnTriangle;
    if (inDistance > 1e-12 * inRadius && inDistance > 0.0)
    {
        contact.normal = (inOnTriangle - inOnCore) / inDistance;
        contact.depth = std::max(0.0, inRadius - inDistance);
        return contact;
    }
    const Vec3d face = FaceNormal(inT);
    const bool plus = inReachPlus < inReachMinus; // ties: −face, the limit from outside the surface
    contact.normal = plus ? face : Vec3d(-face);
    contact.depth = std::max(0.0, inRadius - inDistance) + (plus ? inReachPlus : inReachMinus);
    return contact;
}

} // namespace

bool TriangleOverlapsBox(const Vec3d (&inTriangle)[3], const Vec3d& inHalfExtents)
{
    return BoxSeparatingAxes(inTriangle, inHalfExtents, nullptr);
}

std::optional<TriangleContact> TriangleSphereContact(const Vec3d (&inTriangle)[3], const Sphere& inSphere)
{
    const Vec3d closest = ClosestPointOnTriangle(inSphere.center, inTriangle);
    const double distance = (closest - inSphere.center).norm();
    if (distance > inSphere.radius)
        return std::nullopt;
    return CoreContact(inSphere.center, closest, distance, inSphere.radius, inTriangle, 0.0, 0.0);
}

std::optional<TriangleContact> TrianglePlaneContact(const Vec3d (&inTriangle)[3], const Plane& inPlane)
{
    int lowest = 0;
    for (int i = 1; i < 3; ++i)
        if (inPlane.normal.dot(inTriangle[i]) < inPlane.normal.dot(inTriangle[lowest]))
            lowest = i;
    const double height = inPlane.normal.dot(inTriangle[lowest]) - inPlane.offset;
    if (height > 0.0)
        return std::nullopt;
    TriangleContact contact;
    contact.point = inTriangle[lowest];
    contact.normal = inPlane.normal;
    contact.depth = -height;
    return contact;
}

std::optional<TriangleContact> TriangleBoxContact(const Vec3d (&inTriangle)[3], const OrientedBox& inBox)
{
    Vec3d local[3];
    for (int i = 0; i < 3; ++i)
        local[i] = inBox.pose.ApplyInverse(inTriangle[i]);
    AxisOverlap best;
    if (!BoxSeparatingAxes(local, inBox.halfExtents, &best))
        return std::nullopt;
    TriangleContact contact;
    contact.point = inBox.pose.Apply(DeepestClippedPoint(local, inBox.halfExtents, best.normal));
    contact.normal = inBox.pose.rotation * best.normal;
    contact.depth = std::max(0.0, best.depth);
    return contact;
}

std::optional<TriangleContact> TriangleCapsuleContact(const Vec3d (&inTriangle)[3], const Capsule& inCapsule)
{
    Vec3d onAxis;
    Vec3d onTriangle;
    const double distance =
        ClosestPointsSegmentTriangle(inCapsule.a, inCapsule.b, inTriangle, onAxis, onTriangle);
    if (distance > inCapsule.radius)
        return std::nullopt;
    const Vec3d face = FaceNormal(inTriangle);
    const double ha = face.dot(inCapsule.a - inTriangle[0]);
    const double hb = face.dot(inCapsule.b - inTriangle[0]);
    const double reachPlus = std::max({0.0, ha, hb});
    const double reachMinus = std::max({0.0, -ha, -hb});
    return CoreContact(onAxis, onTriangle, distance, inCapsule.radius, inTriangle, reachPlus, reachMinus);
}

} // namespace bdt
