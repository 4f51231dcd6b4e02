// Contacts of contact pieces (core/pieces/PieceContacts.h), checked against the exact distance of the boxes: the
// least over their corners' distances to the other box and their edges' distances to each other.
#include "core/pieces/PieceContacts.h"
#include "core/geometry/TriangleGeometry.h"

#include <gtest/gtest.h>
#include <Eigen/Geometry>
#include <array>
#include <random>

namespace bdt
{
namespace
{

Mat3d RandomRotation(std::mt19937& ioRandom)
{
    std::normal_distribution<double> normal;
    Eigen::Quaterniond q(normal(ioRandom), normal(ioRandom), normal(ioRandom), normal(ioRandom));
    q.normalize();
    return q.toRotationMatrix();
}

PlacedPiece RandomBox(std::mt19937& ioRandom, double inSpread)
{
    std::uniform_real_distribution<double> size(0.02, 0.3), place(-inSpread, inSpread);
    PlacedPiece box;
    box.center = Vec3d(place(ioRandom), place(ioRandom), place(ioRandom));
    box.axes = RandomRotation(ioRandom);
    box.halfExtents = Vec3d(size(ioRandom), size(ioRandom), size(ioRandom));
    box.realFaces = 0x3f;
    return box;
}

std::array<Vec3d, 8> Corners(const PlacedPiece& inBox)
{
    std::array<Vec3d, 8> corners;
    for (int c = 0; c < 8; ++c)
    {
        corners[std::size_t(c)] = inBox.center;
        for (int k = 0; k < 3; ++k)
            corners[std::size_t(c)] += ((c >> k) & 1 ? 1.0 : -1.0) * inBox.halfExtents[k] * inBox.axes.col(k);
    }
    return corners;
}

double PointBoxDistance(const Vec3d& inPoint, const PlacedPiece& inBox)
{
    const Vec3d local = inBox.axes.transpose() * (inPoint - inBox.center);
    return (local.cwiseAbs() - inBox.halfExtents).cwiseMax(0.0).norm();
}

bool Overlap(const PlacedPiece& inA, const PlacedPiece& inB)
{
    // The 15 axes, exactly (no reach): no separating axis.
    std::vector<Vec3d> axes;
    for (int k = 0; k < 3; ++k)
    {
        axes.push_back(inA.axes.col(k));
        axes.push_back(inB.axes.col(k));
        for (int j = 0; j < 3; ++j)
        {
            const Vec3d cross = inA.axes.col(k).cross(inB.axes.col(j));
            if (cross.norm() > 1e-9)
                axes.push_back(cross.normalized());
        }
    }
    const auto extent = [](const PlacedPiece& inBox, const Vec3d& inAxis)
    { return (inBox.axes.transpose() * inAxis).cwiseAbs().dot(inBox.halfExtents); };
    for (const Vec3d& axis : axes)
        if (std::abs(axis.dot(inB.center - inA.center)) > extent(inA, axis) + extent(inB, axis))
            return false;
    return true;
}

// The boxes' exact distance, 0 when they overlap.
double BoxDistance(const PlacedPiece& inA, const PlacedPiece& inB)
{
    if (Overlap(inA, inB))
        return 0.0;
    double best = std::numeric_limits<double>::infinity();
    const std::array<Vec3d, 8> a = Corners(inA), b = Corners(inB);
    for (const Vec3d& corner : a)
        best = std::min(best, PointBoxDistance(corner, inB));
    for (const Vec3d& corner : b)
        best = std::min(best, PointBoxDistance(corner, inA));
    // Edges: corner pairs differing in one bit.
    for (int i = 0; i < 8; ++i)
        for (int bitA = 0; bitA < 3; ++bitA)
        {
            if ((i >> bitA) & 1)
                continue;
            for (int j = 0; j < 8; ++j)
                for (int bitB = 0; bitB < 3; ++bitB)
                {
                    if ((j >> bitB) & 1)
                        continue;
                    Vec3d onA, onB;
                    ClosestPointsSegmentSegment(a[std::size_t(i)], a[std::size_t(i | (1 << bitA))],
                                                b[std::size_t(j)], b[std::size_t(j | (1 << bitB))], onA, onB);
                    best = std::min(best, (onA - onB).norm());
                }
        }
    return best;
}

// Boxes with every face real: the least reported distance is never above the boxes' distance, there is a
// contact whenever they are within reach (and none when they are twice as far), B's point lies on B, and the
// normal is unit.
TEST(PieceContacts, BoxesAgainstTheirExactDistance)
{
    std::mt19937 random(17);
    constexpr double cReach = 0.02;
    int near = 0, far = 0, penetrating = 0;
    for (int trial = 0; trial < 4000; ++trial)
    {
        const PlacedPiece a = RandomBox(random, 0.0), b = RandomBox(random, 0.6);
        const double exact = BoxDistance(a, b);
        std::vector<PieceContact> contacts;
        CollidePieces(a, b, cReach, contacts);
        const std::string context = "trial " + std::to_string(trial);
        if (exact > cReach)
        {
            // A separating axis measures at least the distance over √3 (corners facing each other across a
            // diagonal): beyond twice the reach nothing is left, below it only speculative contacts in reach.
            if (exact > 2.0 * cReach)
            {
                EXPECT_TRUE(contacts.empty()) << context << " apart by " << exact;
            }
            for (const PieceContact& contact : contacts)
                EXPECT_LE(contact.distance, std::min(cReach, exact) + 1e-12) << context;
            ++far;
            continue;
        }
        ASSERT_FALSE(contacts.empty()) << context << " within reach at " << exact;
        EXPECT_LE(contacts.size(), cPieceContactPoints) << context;
        double least = std::numeric_limits<double>::infinity();
        for (const PieceContact& contact : contacts)
        {
            least = std::min(least, contact.distance);
            EXPECT_NEAR(contact.normal.norm(), 1.0, 1e-12) << context;
            EXPECT_LE(contact.distance, cReach + 1e-12) << context;
            EXPECT_LE(PointBoxDistance(contact.pointOnB, b), 1e-9) << context;
        }
        EXPECT_LE(least, exact + 1e-9) << context;
        if (exact > 0.0)
            ++near;
        else
        {
            EXPECT_LE(least, 1e-12) << context << ": overlapping boxes report a penetration";
            ++penetrating;
        }
    }
    EXPECT_GT(near, 50);
    EXPECT_GT(far, 1000);
    EXPECT_GT(penetrating, 500);
}

// A flat piece (its top face real, the others cut, as a patch of a larger face) under a box resting on it:
// the contact normal is the real face's, whatever way the box sits over the piece's edge; a box beside the
// piece, level with its top, makes none across the cut face; a box below the piece's real face (on the body's
// inside, through it) meets only cut faces and makes none.
TEST(PieceContacts, CutFacesAreNeverANormal)
{
    PlacedPiece patch;
    patch.halfExtents = Vec3d(0.1, 0.02, 0.1);
    patch.realFaces = 1u << 3; // +y only
    PlacedPiece box;
    box.halfExtents = Vec3d(0.05, 0.05, 0.05);
    for (const double x : {0.0, 0.08, 0.12, 0.149})
    {
        box.center = Vec3d(x, 0.02 + 0.05 - 0.001, 0.0); // 1 mm into the top, over the edge for x > 0.05
        std::vector<PieceContact> contacts;
        CollidePieces(patch, box, 0.01, contacts);
        ASSERT_FALSE(contacts.empty()) << "x " << x;
        for (const PieceContact& contact : contacts)
        {
            EXPECT_NEAR(contact.normal.y(), -1.0, 1e-12) << "x " << x; // from the box down into the patch
            EXPECT_NEAR(contact.distance, -0.001, 1e-12) << "x " << x;
        }
    }
    box.center = Vec3d(0.1 + 0.05 + 0.001, 0.0, 0.0); // beside the cut side face
    std::vector<PieceContact> beside;
    CollidePieces(patch, box, 0.01, beside);
    EXPECT_TRUE(beside.empty());
    // A wall reaching 1 cm into the patch through its cut side, from far below to far above: it came in
    // through the cut side, where the neighbouring piece's real face pushes it back; the top face's normal
    // (out under the wall, 2 m deep) is no contact.
    PlacedPiece wall;
    wall.halfExtents = Vec3d(0.05, 1.0, 1.0);
    wall.center = Vec3d(0.1 + 0.05 - 0.01, 0.0, 0.0);
    std::vector<PieceContact> walled;
    CollidePieces(patch, wall, 0.01, walled);
    EXPECT_TRUE(walled.empty());
    box.center = Vec3d(0.0, -0.02 - 0.05 + 0.001, 0.0); // under it: the body's inside
    std::vector<PieceContact> under;
    CollidePieces(patch, box, 0.01, under);
    EXPECT_TRUE(under.empty());
}

// Against a plane, a sphere and an oriented box: the corners on real faces facing the plane, the nearest point
// of the real faces, and the box as a piece with every face real.
TEST(PieceContacts, Primitives)
{
    PlacedPiece patch;
    patch.center = Vec3d(0.0, 0.5, 0.0);
    patch.halfExtents = Vec3d(0.1, 0.02, 0.1);
    patch.realFaces = 1u << 2; // −y only: the patch faces down
    Plane ground;
    ground.normal = Vec3d::UnitY();
    ground.offset = 0.48 - 0.003; // 3 mm below the patch's face
    std::vector<PieceContact> contacts;
    CollidePieces(patch, ground, 0.01, contacts);
    ASSERT_EQ(contacts.size(), 4u);
    for (const PieceContact& contact : contacts)
    {
        EXPECT_NEAR(contact.distance, 0.003, 1e-12);
        EXPECT_NEAR(contact.pointOnB.y(), ground.offset, 1e-12);
    }
    // Face up, the patch's real face looks away from the plane: its corners there are on cut faces.
    patch.realFaces = 1u << 3;
    contacts.clear();
    CollidePieces(patch, ground, 0.01, contacts);
    EXPECT_TRUE(contacts.empty());

    // A ball 2 mm above the real top face, off the patch beyond a cut side: its contact is on the top face's
    // plane, carried on past the cut (the neighbouring piece's surface), with the small fan of points where the
    // ball stays within a micrometre of the face.
    Sphere ball{Vec3d(0.13, 0.5 + 0.02 + 0.05 + 0.002, 0.0), 0.05};
    contacts.clear();
    CollidePieces(patch, ball, 0.01, contacts);
    ASSERT_EQ(contacts.size(), 5u);
    EXPECT_NEAR(contacts[0].distance, 0.002, 1e-12);
    EXPECT_NEAR(contacts[0].normal.y(), -1.0, 1e-12);
    for (const PieceContact& contact : contacts)
    {
        EXPECT_NEAR(contact.distance, 0.002, 1.001e-6);
        EXPECT_LT((contact.pointOnB - contacts[0].pointOnB).norm(), 1e-3);
    }
    // Its centre inside the piece, near the top: out through the top.
    ball.center = Vec3d(0.0, 0.5 + 0.015, 0.0);
    contacts.clear();
    CollidePieces(patch, ball, 0.01, contacts);
    ASSERT_EQ(contacts.size(), 1u);
    EXPECT_NEAR(contacts[0].distance, -0.005 - 0.05, 1e-12);
    EXPECT_NEAR(contacts[0].normal.y(), -1.0, 1e-12);

    // A foot (real bottom and sides, cut top) of a body above a thin floor slab, past its middle (its sole
    // through the slab), is pushed back up out of the slab's top by its depth under it, not down through the
    // slab's underside nor sideways.
    PlacedPiece foot;
    foot.center = Vec3d(0.0, -0.12 + 0.05, 0.0);
    foot.halfExtents = Vec3d(0.02, 0.05, 0.02);
    foot.realFaces = 0x3f & ~(1u << 3);
    OrientedBox floor;
    floor.pose.translation = Vec3d(0.0, -0.05, 0.0);
    floor.halfExtents = Vec3d(8.0, 0.05, 8.0);
    contacts.clear();
    CollidePieces(foot, Vec3d(0.0, 0.5, 0.0), floor, 0.01, contacts);
    ASSERT_FALSE(contacts.empty());
    for (const PieceContact& contact : contacts)
    {
        EXPECT_NEAR(contact.normal.y(), 1.0, 1e-12);
        EXPECT_NEAR(contact.distance, -0.12, 1e-12);
        EXPECT_NEAR(contact.pointOnB.y(), 0.0, 1e-12);
    }
    // A foot pointing up from a body under the slab, its sole 4 cm above the slab's top and its centre past
    // the slab's middle: out through the underside, the way its body is.
    foot.center = Vec3d(0.0, 0.04 - 0.05, 0.0);
    foot.realFaces = 0x3f & ~(1u << 2);
    contacts.clear();
    CollidePieces(foot, Vec3d(0.0, -0.5, 0.0), floor, 0.01, contacts);
    ASSERT_FALSE(contacts.empty());
    for (const PieceContact& contact : contacts)
    {
        EXPECT_NEAR(contact.normal.y(), -1.0, 1e-12);
        EXPECT_NEAR(contact.distance, -0.14, 1e-12);
    }

    OrientedBox crate;
    crate.pose.translation = Vec3d(0.0, 0.5 + 0.02 + 0.1 + 0.004, 0.0);
    crate.halfExtents = Vec3d(0.1, 0.1, 0.1);
    contacts.clear();
    CollidePieces(patch, Vec3d(0.0, 0.0, 0.0), crate, 0.01, contacts);
    ASSERT_FALSE(contacts.empty());
    for (const PieceContact& contact : contacts)
        EXPECT_NEAR(contact.distance, 0.004, 1e-12);

    // A crate turned 50 degrees about y, sunk 1 mm into a plank's top, over a strip of the plank's side (real
    // face −z, cut top): the plank's centre, half a metre along, lies beyond the crate's side faces but not
    // over any of them. No side of the crate is the plank's: no contact pushes the crate sideways by its
    // width; the strip is the top pieces' to push back.
    PlacedPiece strip;
    strip.center = Vec3d(0.0, 1.17, -0.09);
    strip.halfExtents = Vec3d(0.05, 0.02, 0.01);
    strip.realFaces = 1u << 4;
    OrientedBox turned;
    turned.pose.rotation = Eigen::AngleAxisd(0.87, Vec3d::UnitY()).toRotationMatrix();
    turned.pose.translation = Vec3d(0.0, 1.19 - 0.001 + 0.08, -0.05);
    turned.halfExtents = Vec3d(0.08, 0.08, 0.08);
    contacts.clear();
    CollidePieces(strip, Vec3d(-0.5, 1.15, 0.0), turned, 0.01, contacts);
    for (const PieceContact& contact : contacts)
        EXPECT_GT(contact.distance, -0.01) << contact.normal.transpose();
}

} // namespace
} // namespace bdt
