#include "PieceContacts.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace bdt
{

namespace
{

// A direction leaves a face's plane (counts as facing it) beyond this cosine: below it, the face is edge-on.
constexpr double cTilt = 1e-6;
// Edge axes of nearly parallel edges (|a × b| below this) are left out: the face axes decide those pairs.
constexpr double cParallelEdges = 1e-6;
// How much more (a share of the smaller box's size) B's face must separate than A's, or an edge pair than a
// face, to be the contact's normal.
constexpr double cAxisPreference = 0.01;
// An axis of B leans towards a contact's normal beyond this cosine: below it, it lies across the normal.
constexpr double cAcrossNormal = 1e-3;
// `PlacedPiece::realFaces` of a solid box.
constexpr std::uint8_t cAllFaces = 0x3f;

bool Real(const PlacedPiece& inPiece, int inAxis, double inSide)
{
    return ((inPiece.realFaces >> (2 * inAxis + (inSide > 0.0 ? 1 : 0))) & 1u) != 0;
}

double Sign(double inValue)
{
    return inValue < 0.0 ? -1.0 : 1.0;
}

// Whether the piece meets direction `inDirection` (unit, world) with a real face: one of the faces whose
// outward normal leans into it is real.
bool RealAlong(const PlacedPiece& inPiece, const Vec3d& inDirection)
{
    for (int k = 0; k < 3; ++k)
    {
        const double along = inDirection.dot(inPiece.axes.col(k));
        if (std::abs(along) > cTilt && Real(inPiece, k, along))
            return true;
    }
    return false;
}

// Whether the piece's edge along axis `inAxis` that lies furthest along `inDirection` is real: both its faces
// are.
bool RealEdgeAlong(const PlacedPiece& inPiece, int inAxis, const Vec3d& inDirection)
{
    for (int k = 0; k < 3; ++k)
        if (k != inAxis && !Real(inPiece, k, inDirection.dot(inPiece.axes.col(k))))
            return false;
    return true;
}

// The separating axis chosen for a contact: the normal (B to A), the separation along it, and what it is.
struct Axis
{
    enum class EKind : std::uint8_t
    {
        None,
        FaceA, ///< A's face `indexA` on side `side` is the reference.
        FaceB, ///< B's face `indexB` on side `side`.
        Edges, ///< A's edge along `indexA` against B's along `indexB`.
    };
    EKind kind = EKind::None;
    int indexA = 0, indexB = 0;
    double side = 1.0;
    Vec3d normal = Vec3d::UnitY();
    double separation = -std::numeric_limits<double>::infinity();
    bool designated = false; ///< A solid box's face that A's body centre lies over (beyond it, within its outline).
};

// The corners of a piece's face (axis k, side σ), in order around it.
std::array<Vec3d, 4> FaceCorners(const PlacedPiece& inPiece, int inAxis, double inSide)
{
    const int k1 = (inAxis + 1) % 3, k2 = (inAxis + 2) % 3;
    const Vec3d centre = inPiece.center + inSide * inPiece.halfExtents[inAxis] * inPiece.axes.col(inAxis);
    const Vec3d u = inPiece.halfExtents[k1] * inPiece.axes.col(k1);
    const Vec3d v = inPiece.halfExtents[k2] * inPiece.axes.col(k2);
    return {centre - u - v, centre + u - v, centre + u + v, centre - u + v};
}

// Clips the polygon `ioPolygon` to the slab |(x − centre)·axis| ≤ half (Sutherland–Hodgman, both sides).
void ClipToSlab(std::vector<Vec3d>& ioPolygon, const Vec3d& inCentre, const Vec3d& inAxis, double inHalf)
{
    thread_local std::vector<Vec3d> clipped;
    for (const double side : {-1.0, 1.0})
    {
        clipped.clear();
        const std::size_t count = ioPolygon.size();
        for (std::size_t i = 0; i < count; ++i)
        {
            const Vec3d& p = ioPolygon[i];
            const Vec3d& q = ioPolygon[(i + 1) % count];
            // Inside when side·(x − centre)·axis ≤ half.
            const double dp = side * (p - inCentre).dot(inAxis) - inHalf;
            const double dq = side * (q - inCentre).dot(inAxis) - inHalf;
            if (dp <= 0.0)
                clipped.push_back(p);
            if ((dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0))
                clipped.push_back(p + (dp / (dp - dq)) * (q - p));
        }
        ioPolygon.swap(clipped);
        if (ioPolygon.empty())
            return;
    }
}

// Keeps at most `cPieceContactPoints` of the contacts from `inFirst` on: the deepest, the one furthest from
// it, then those furthest from the ones kept.
void Reduce(std::vector<PieceContact>& ioContacts, std::size_t inFirst)
{
    const std::size_t count = ioContacts.size() - inFirst;
    if (count <= cPieceContactPoints)
        return;
    std::array<PieceContact, cPieceContactPoints> kept;
    std::size_t deepest = inFirst;
    for (std::size_t i = inFirst; i < ioContacts.size(); ++i)
        if (ioContacts[i].distance < ioContacts[deepest].distance)
            deepest = i;
    kept[0] = ioContacts[deepest];
    for (std::size_t k = 1; k < cPieceContactPoints; ++k)
    {
        std::size_t best = inFirst;
        double bestDistance = -1.0;
        for (std::size_t i = inFirst; i < ioContacts.size(); ++i)
        {
            double nearest = std::numeric_limits<double>::infinity();
            for (std::size_t j = 0; j < k; ++j)
                nearest = std::min(nearest, (ioContacts[i].pointOnB - kept[j].pointOnB).squaredNorm());
            if (nearest > bestDistance)
            {
                bestDistance = nearest;
                best = i;
            }
        }
        kept[k] = ioContacts[best];
    }
    ioContacts.resize(inFirst);
    ioContacts.insert(ioContacts.end(), kept.begin(), kept.end());
}

// Drops the contacts from `inFirst` on that are further than `inReach`.
void DropBeyond(std::vector<PieceContact>& ioContacts, std::size_t inFirst, double inReach)
{
    ioContacts.erase(std::remove_if(ioContacts.begin() + std::ptrdiff_t(inFirst), ioContacts.end(),
                                    [inReach](const PieceContact& inContact) { return inContact.distance > inReach; }),
                     ioContacts.end());
}

// The points of a face contact: each real face of `inIncident` that faces the reference face (axis k, side σ)
// of `inReference`, clipped to it. `inReferenceIsA`: the reference face is A's (the points lie on B), else
// B's (the points lie on A, and are projected onto B's face for `pointOnB`). False when `inIncident` has no
// real face facing it: its surface there is a neighbouring piece's.
bool FacePoints(const PlacedPiece& inReference, int inAxis, double inSide, const PlacedPiece& inIncident,
                bool inReferenceIsA, double inReach, std::vector<PieceContact>& outContacts)
{
    bool anyReal = false;
    const Vec3d outward = inSide * inReference.axes.col(inAxis);
    const double half = inReference.halfExtents[inAxis];
    const int k1 = (inAxis + 1) % 3, k2 = (inAxis + 2) % 3;
    const std::size_t first = outContacts.size();
    thread_local std::vector<Vec3d> polygon;
    for (int j = 0; j < 3; ++j)
    {
        const double facing = inIncident.axes.col(j).dot(outward);
        if (std::abs(facing) <= cTilt)
            continue;
        const double side = -Sign(facing); // the incident face whose outward normal opposes the reference's
        if (!Real(inIncident, j, side))
            continue;
        anyReal = true;
        const std::array<Vec3d, 4> corners = FaceCorners(inIncident, j, side);
        polygon.assign(corners.begin(), corners.end());
        ClipToSlab(polygon, inReference.center, inReference.axes.col(k1), inReference.halfExtents[k1]);
        if (!polygon.empty())
            ClipToSlab(polygon, inReference.center, inReference.axes.col(k2), inReference.halfExtents[k2]);
        for (const Vec3d& point : polygon)
        {
            const double separation = outward.dot(point - inReference.center) - half;
            PieceContact contact;
            if (inReferenceIsA)
            {
                contact.normal = -outward;
                contact.pointOnB = point;
            }
            else
            {
                contact.normal = outward;
                contact.pointOnB = point - separation * outward;
            }
            contact.distance = separation;
            outContacts.push_back(contact);
        }
    }
    // Reduced before the reach is applied: the points chosen do not depend on how far a step searches.
    Reduce(outContacts, first);
    DropBeyond(outContacts, first, inReach);
    return anyReal;
}

// The closest points of segments [p0, p1] and [q0, q1].
void ClosestOnSegments(const Vec3d& inP0, const Vec3d& inP1, const Vec3d& inQ0, const Vec3d& inQ1, Vec3d& outP,
                       Vec3d& outQ)
{
    const Vec3d d1 = inP1 - inP0, d2 = inQ1 - inQ0, r = inP0 - inQ0;
    const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
    double s = 0.0, t = 0.0;
    if (a <= 0.0 && e <= 0.0)
    {
        outP = inP0;
        outQ = inQ0;
        return;
    }
    if (a <= 0.0)
        t = std::clamp(f / e, 0.0, 1.0);
    else
    {
        const double c = d1.dot(r);
        if (e <= 0.0)
            s = std::clamp(-c / a, 0.0, 1.0);
        else
        {
            const double b = d1.dot(d2), denominator = a * e - b * b;
            s = denominator > 0.0 ? std::clamp((b * f - c * e) / denominator, 0.0, 1.0) : 0.0;
            t = (b * s + f) / e;
            if (t < 0.0)
            {
                t = 0.0;
                s = std::clamp(-c / a, 0.0, 1.0);
            }
            else if (t > 1.0)
            {
                t = 1.0;
                s = std::clamp((b - c) / a, 0.0, 1.0);
            }
        }
    }
    outP = inP0 + s * d1;
    outQ = inQ0 + t * d2;
}

// The piece's edge along axis `inAxis` furthest along `inDirection`: its two ends.
void EdgeAlong(const PlacedPiece& inPiece, int inAxis, const Vec3d& inDirection, Vec3d& outA, Vec3d& outB)
{
    Vec3d centre = inPiece.center;
    for (int k = 0; k < 3; ++k)
        if (k != inAxis)
            centre += Sign(inDirection.dot(inPiece.axes.col(k))) * inPiece.halfExtents[k] * inPiece.axes.col(k);
    const Vec3d along = inPiece.halfExtents[inAxis] * inPiece.axes.col(inAxis);
    outA = centre - along;
    outB = centre + along;
}

// B's point on its side towards A along `inNormal` (from B to A), and across the normal the point of B nearest
// A's centre: where two faces' outlines miss each other, the contact's one point. (A corner "towards A" along
// an axis across the normal would be a coin toss: B's far corner, a body's width off A.)
Vec3d NearestSidePoint(const PlacedPiece& inA, const PlacedPiece& inB, const Vec3d& inNormal)
{
    const Vec3d towardsA = inB.axes.transpose() * (inA.center - inB.center);
    Vec3d point = inB.center;
    for (int k = 0; k < 3; ++k)
    {
        const double h = inB.halfExtents[k];
        const double along = inNormal.dot(inB.axes.col(k));
        point += (std::abs(along) > cAcrossNormal ? Sign(along) * h : std::clamp(towardsA[k], -h, h)) *
                 inB.axes.col(k);
    }
    return point;
}

// The separating-axis test of two boxes: the axis a contact takes (kind None where there is none: the boxes
// are apart beyond the reach, or across a cut face), and in `outWidest` the largest separation any axis
// measured, a bound on the boxes' distance. `inBodyA`: as for `CollideBoxes`.
Axis ContactAxis(const PlacedPiece& inA, const PlacedPiece& inB, const Vec3d* inBodyA, double inReach,
                 double& outWidest)
{
    const Mat3d& a = inA.axes;
    const Mat3d& b = inB.axes;
    const Vec3d& ha = inA.halfExtents;
    const Vec3d& hb = inB.halfExtents;
    const Vec3d offset = inB.center - inA.center;
    const Vec3d t = a.transpose() * offset; // B's centre in A's axes
    const Mat3d r = a.transpose() * b;      // B's axes in A's axes
    const Mat3d absR = r.cwiseAbs().array() + 1e-12;
    const Vec3d u = r.transpose() * t; // B's centre from A's, in B's axes
    // The best allowed axis of each kind: A's faces, B's faces, the edge pairs, in the direction of the side
    // the other's centre lies on. With A's body centre given (B is a solid box), B's face that the body centre
    // lies over (beyond its plane, within its outline) is the only side offered on its axis, and is taken over
    // the other kinds: a piece that went past the middle of a thin floor slab comes back out of the side its body
    // is on, not out through the slab's underside. A body beside a small box (a plank under a crate that
    // overhangs it) designates none.
    Vec3d bodyA = Vec3d::Zero(); // A's body centre from B's, in B's axes
    if (inBodyA != nullptr)
        bodyA = b.transpose() * (*inBodyA - inB.center);
    Axis bestOf[3];
    outWidest = -std::numeric_limits<double>::infinity();
    const auto offer = [&](Axis::EKind inKind, int inIndexA, int inIndexB, double inSide, const Vec3d& inNormal,
                           double inSeparation, bool inAllowed, bool inDesignated = false)
    {
        Axis& best = bestOf[int(inKind) - 1];
        if (inAllowed && inSeparation > best.separation)
            best = {inKind, inIndexA, inIndexB, inSide, inNormal, inSeparation, inDesignated};
    };
    for (int i = 0; i < 3; ++i)
    {
        const double spread = ha[i] + absR.row(i).dot(hb);
        const double separation = std::abs(t[i]) - spread;
        if (separation > inReach)
            return {}; // apart
        outWidest = std::max(outWidest, separation);
        const double side = Sign(t[i]); // B lies on this side of A
        const Vec3d normal = -side * a.col(i);
        offer(Axis::EKind::FaceA, i, 0, side, normal, separation, Real(inA, i, side) && RealAlong(inB, normal));
    }
    for (int j = 0; j < 3; ++j)
    {
        const double spread = hb[j] + absR.col(j).dot(ha);
        const double separation = std::abs(u[j]) - spread;
        if (separation > inReach)
            return {};
        outWidest = std::max(outWidest, separation);
        // A lies on this side of B: the side A's centre is on, unless A's body lies beyond one of the faces.
        const int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
        const bool over = inBodyA != nullptr && std::abs(bodyA[j1]) <= hb[j1] && std::abs(bodyA[j2]) <= hb[j2] &&
                          std::abs(bodyA[j]) > hb[j];
        const double side = over ? Sign(bodyA[j]) : -Sign(u[j]);
        const Vec3d normal = side * b.col(j);
        offer(Axis::EKind::FaceB, 0, j, side, normal, -side * u[j] - spread,
              Real(inB, j, side) && RealAlong(inA, -normal), over);
    }
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
        {
            const Vec3d cross = a.col(i).cross(b.col(j));
            const double length = cross.norm();
            if (length < cParallelEdges)
                continue;
            const int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            const double reachA = ha[i1] * absR(i2, j) + ha[i2] * absR(i1, j);
            const double reachB = hb[j1] * absR(i, j2) + hb[j2] * absR(i, j1);
            const double along = cross.dot(offset);
            const double separation = (std::abs(along) - reachA - reachB) / length;
            if (separation > inReach)
                return {};
            outWidest = std::max(outWidest, separation);
            const Vec3d normal = -Sign(along) * cross / length; // from B towards A
            offer(Axis::EKind::Edges, i, j, 1.0, normal, separation,
                  RealEdgeAlong(inA, i, -normal) && RealEdgeAlong(inB, j, normal));
        }
    // A's faces unless B's separate clearly more, faces unless an edge pair does (`cAxisPreference` of the
    // boxes' size): two faces resting on each other keep one normal from step to step, not whichever of two
    // nearly equal axes rounding favours, which would turn the contact's friction directions back and forth.
    const double preference = cAxisPreference * std::min(ha.maxCoeff(), hb.maxCoeff());
    Axis best = bestOf[0];
    if (bestOf[1].separation > best.separation + preference)
        best = bestOf[1];
    if (bestOf[2].separation > best.separation + preference)
        best = bestOf[2];
    if (bestOf[1].designated && best.kind != Axis::EKind::FaceB)
        best = bestOf[1]; // the face A's body lies beyond: the side A came from, however deep it went
    // Apart across a cut face (a separating axis no contact may take): beyond it the neighbouring piece carries
    // the surface on, and makes the contact. So too where the boxes overlap least across a cut face and every
    // axis a contact may take is deeper by more than the reach: B came in through the cut face (a wall that a
    // seat's top reaches into at its side), not through a real one, and the neighbouring piece whose real face
    // it crossed pushes it back; a push along the real face's normal would take B the long way out. A solid
    // box's face on the side A's body lies beyond is always taken: that is the side A came from.
    const double allowed = std::max({bestOf[0].separation, bestOf[1].separation, bestOf[2].separation});
    if ((outWidest > 0.0 && allowed < outWidest) || (!best.designated && best.separation < outWidest - inReach))
        return {};
    return best;
}

// The contacts of two boxes on the axis `ContactAxis` chose (`inWidest`: its bound on their distance).
void AxisContacts(const PlacedPiece& inA, const PlacedPiece& inB, const Axis& inAxis, double inWidest,
                  double inReach, std::vector<PieceContact>& outContacts)
{
    switch (inAxis.kind)
    {
    case Axis::EKind::None:
        return;
    case Axis::EKind::FaceA:
    case Axis::EKind::FaceB:
    {
        const std::size_t first = outContacts.size();
        const bool facing = inAxis.kind == Axis::EKind::FaceA
                                ? FacePoints(inA, inAxis.indexA, inAxis.side, inB, true, inReach, outContacts)
                                : FacePoints(inB, inAxis.indexB, inAxis.side, inA, false, inReach, outContacts);
        if (!facing)
            return; // the other's surface facing the reference face is a neighbouring piece's: it makes the contact
        if (outContacts.size() == first)
        {
            // The faces' outlines miss each other: one contact at the separation the axis measured.
            PieceContact contact;
            contact.normal = inAxis.normal;
            contact.pointOnB = NearestSidePoint(inA, inB, inAxis.normal);
            contact.distance = inAxis.separation;
            if (contact.distance <= inReach)
                outContacts.push_back(contact);
            return;
        }
        // The clipped points measure the faces' distance within the reference face; where the boxes come
        // nearer outside it (an edge of one over the other's rim), the deepest point is brought to the
        // largest separation any axis measured, which is never more than the boxes' distance.
        std::size_t deepest = first;
        for (std::size_t i = first; i < outContacts.size(); ++i)
            if (outContacts[i].distance < outContacts[deepest].distance)
                deepest = i;
        if (outContacts[deepest].distance > inWidest)
            outContacts[deepest].distance = inWidest;
        return;
    }
    case Axis::EKind::Edges:
    {
        Vec3d a0, a1, b0, b1, onA, onB;
        EdgeAlong(inA, inAxis.indexA, -inAxis.normal, a0, a1);
        EdgeAlong(inB, inAxis.indexB, inAxis.normal, b0, b1);
        ClosestOnSegments(a0, a1, b0, b1, onA, onB);
        PieceContact contact;
        contact.normal = inAxis.normal;
        contact.pointOnB = onB;
        // Along the axis: never more than the separation the test measured (the boxes' distance bound).
        contact.distance = std::min(inAxis.separation, inAxis.normal.dot(onA - onB));
        if (contact.distance <= inReach)
            outContacts.push_back(contact);
        return;
    }
    }
}

} // namespace

// `CollidePieces` of two pieces; `inBodyA`, where B is a solid box, A's body centre (world).
void CollideBoxes(const PlacedPiece& inA, const PlacedPiece& inB, const Vec3d* inBodyA, double inReach,
                  std::vector<PieceContact>& outContacts)
{
    double widest = 0.0;
    const Axis axis = ContactAxis(inA, inB, inBodyA, inReach, widest);
    AxisContacts(inA, inB, axis, widest, inReach, outContacts);
}

void CollidePieces(const PlacedPiece& inA, const PlacedPiece& inB, double inReach,
                   std::vector<PieceContact>& outContacts)
{
    CollideBoxes(inA, inB, nullptr, inReach, outContacts);
}

void CollidePieces(const PlacedPiece& inA, const Plane& inPlane, double inReach,
                   std::vector<PieceContact>& outContacts)
{
    const std::size_t first = outContacts.size();
    for (int corner = 0; corner < 8; ++corner)
    {
        Vec3d point = inA.center;
        bool real = false;
        for (int k = 0; k < 3; ++k)
        {
            const double side = (corner >> k) & 1 ? 1.0 : -1.0;
            point += side * inA.halfExtents[k] * inA.axes.col(k);
            // The corner's face along k faces the plane when its outward normal leans against the plane's.
            if (side * inA.axes.col(k).dot(inPlane.normal) < -cTilt && Real(inA, k, side))
                real = true;
        }
        const double height = inPlane.normal.dot(point) - inPlane.offset;
        if (!real)
            continue;
        PieceContact contact;
        contact.normal = inPlane.normal;
        contact.distance = height;
        contact.pointOnB = point - height * inPlane.normal;
        outContacts.push_back(contact);
    }
    Reduce(outContacts, first);
    DropBeyond(outContacts, first, inReach);
}

void CollidePieces(const PlacedPiece& inA, const Sphere& inSphere, double inReach,
                   std::vector<PieceContact>& outContacts)
{
    const Vec3d local = inA.axes.transpose() * (inSphere.center - inA.center);
    Vec3d nearest = local;
    for (int k = 0; k < 3; ++k)
    {
        const double h = inA.halfExtents[k];
        if (local[k] > h && Real(inA, k, 1.0))
            nearest[k] = h;
        else if (local[k] < -h && Real(inA, k, -1.0))
            nearest[k] = -h;
        else if (std::abs(local[k]) > h && !inA.facesCarryOn)
            return;
    }
    PieceContact contact;
    const Vec3d delta = local - nearest;
    const double length = delta.norm();
    if (length > 0.0)
    {
        // The centre is outside a real face: the point on it nearest the centre.
        const Vec3d away = inA.axes * (delta / length); // from A's point towards the centre
        contact.normal = -away;
        contact.distance = length - inSphere.radius;
        contact.pointOnB = inSphere.center - inSphere.radius * away;
        if (contact.distance > inReach)
            return;
        outContacts.push_back(contact);
        // Over a face's inside, a fan of four more around it where the sphere stays within `cFanHeight` of
        // the face: a body resting on a large sphere sits on a small patch, not on one point it would rock on
        // (the ball's own fan, for a ball small against the face, merges into the touch).
        int onFaces = 0, faceAxis = 0;
        for (int k = 0; k < 3; ++k)
            if (nearest[k] != local[k])
            {
                ++onFaces;
                faceAxis = k;
            }
        if (onFaces != 1)
            return;
        constexpr double cFanHeight = 1e-6; // m
        const double spread = std::sqrt(2.0 * inSphere.radius * cFanHeight);
        for (const int k : {(faceAxis + 1) % 3, (faceAxis + 2) % 3})
            for (const double side : {-1.0, 1.0})
            {
                Vec3d point = nearest;
                point[k] += side * spread;
                if (std::abs(point[k]) > inA.halfExtents[k] && Real(inA, k, side))
                    continue; // off a real edge
                const Vec3d world = inA.center + inA.axes * point;
                const Vec3d towards = inSphere.center - world;
                const double gap = towards.norm();
                PieceContact fan;
                fan.normal = -towards / gap;
                fan.distance = gap - inSphere.radius;
                fan.pointOnB = inSphere.center - inSphere.radius * (towards / gap);
                if (fan.distance <= inReach)
                    outContacts.push_back(fan);
            }
        return;
    }
    else
    {
        // Inside (or beyond cut faces only): out through the nearest real face.
        int bestAxis = -1;
        double bestSide = 1.0, bestDepth = std::numeric_limits<double>::infinity();
        for (int k = 0; k < 3; ++k)
            for (const double side : {-1.0, 1.0})
                if (Real(inA, k, side))
                {
                    const double depth = inA.halfExtents[k] - side * local[k];
                    if (depth < bestDepth)
                    {
                        bestDepth = depth;
                        bestAxis = k;
                        bestSide = side;
                    }
                }
        if (bestAxis < 0)
            return;
        const Vec3d outward = bestSide * inA.axes.col(bestAxis);
        contact.normal = -outward;
        contact.distance = -bestDepth - inSphere.radius;
        contact.pointOnB = inSphere.center - inSphere.radius * outward;
    }
    if (contact.distance <= inReach)
        outContacts.push_back(contact);
}

void CollidePieces(const PlacedPiece& inA, const Vec3d& inBodyCentreA, const OrientedBox& inBox, double inReach,
                   std::vector<PieceContact>& outContacts)
{
    PlacedPiece box;
    box.center = inBox.pose.translation;
    box.axes = inBox.pose.rotation;
    box.halfExtents = inBox.halfExtents;
    box.realFaces = cAllFaces;
    CollideBoxes(inA, box, &inBodyCentreA, inReach, outContacts);
}

} // namespace bdt
