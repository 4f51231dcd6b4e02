#include "support/QueryOracles.h"

#include "core/geometry/TriangleGeometry.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <random>

namespace bdt
{
namespace
{

using namespace test;

// ---- Contacts ----

void ExpectContactShape(const TriangleContact& inContact, const Tri& inT)
{
    EXPECT_NEAR(inContact.normal.norm(), 1.0, 1e-12);
    EXPECT_GE(inContact.depth, 0.0);
    EXPECT_TRUE(OnTriangle(inContact.point, inT, 1e-9));
    EXPECT_EQ(inContact.triangle, cNoIndex);
}

Tri Moved(const Tri& inT, const Vec3d& inBy)
{
    return {inT[0] + inBy, inT[1] + inBy, inT[2] + inBy};
}

TEST(TriangleContacts, SphereAndCapsuleDepthsSeparateExactly)
{
    std::mt19937 random(11);
    int contacts = 0;
    for (int trial = 0; trial < 3000; ++trial)
    {
        const Tri t = RandomTriangle(random);
        const Vec3d tv[3] = {t[0], t[1], t[2]};
        const Sphere sphere{RandomPoint(random), 0.1 + 0.5 * std::abs(RandomPoint(random).x())};
        const Capsule capsule{RandomPoint(random), RandomPoint(random), sphere.radius};
        const double sphereDistance = (ClosestPointOnTriangle(sphere.center, tv) - sphere.center).norm();
        const auto sc = TriangleSphereContact(tv, sphere);
        ASSERT_EQ(sc.has_value(), sphereDistance <= sphere.radius);
        Vec3d onAxis, onTriangle;
        const double capsuleDistance =
            ClosestPointsSegmentTriangle(capsule.a, capsule.b, tv, onAxis, onTriangle);
        const auto cc = TriangleCapsuleContact(tv, capsule);
        ASSERT_EQ(cc.has_value(), capsuleDistance <= capsule.radius);
        if (sc)
        {
            ExpectContactShape(*sc, t);
            EXPECT_NEAR(sc->depth, sphere.radius - sphereDistance, 1e-12);
            // Moving the triangle by depth along the normal leaves it exactly touching.
            const Tri moved = Moved(t, sc->depth * sc->normal);
            const Vec3d mv[3] = {moved[0], moved[1], moved[2]};
            EXPECT_NEAR((ClosestPointOnTriangle(sphere.center, mv) - sphere.center).norm(), sphere.radius,
                        1e-9);
            ++contacts;
        }
        if (cc && capsuleDistance > 0.0)
        {
            ExpectContactShape(*cc, t);
            const Tri moved = Moved(t, cc->depth * cc->normal);
            const Vec3d mv[3] = {moved[0], moved[1], moved[2]};
            EXPECT_NEAR(ClosestPointsSegmentTriangle(capsule.a, capsule.b, mv, onAxis, onTriangle),
                        capsule.radius, 1e-6);
        }
        else if (cc)
        {
            ExpectContactShape(*cc, t);
            EXPECT_GE(cc->depth, capsule.radius - 1e-12);
        }
    }
    EXPECT_GT(contacts, 300);
}

TEST(TriangleContacts, CentreOnTheFaceUsesTheReverseFaceNormal)
{
    const Vec3d t[3] = {Vec3d(0, 0, 0), Vec3d(1, 0, 0), Vec3d(0, 1, 0)};
    const auto contact = TriangleSphereContact(t, Sphere{Vec3d(0.25, 0.25, 0), 0.5});
    ASSERT_TRUE(contact);
    EXPECT_EQ(contact->normal, Vec3d(0, 0, -1));
    EXPECT_DOUBLE_EQ(contact->depth, 0.5);
}

TEST(TriangleContacts, PlaneAndBox)
{
    std::mt19937 random(12);
    int boxContacts = 0;
    for (int trial = 0; trial < 3000; ++trial)
    {
        const Tri t = RandomTriangle(random);
        const Vec3d tv[3] = {t[0], t[1], t[2]};
        const Plane plane{RandomPoint(random).normalized(), 0.3 * RandomPoint(random).x()};
        const auto pc = TrianglePlaneContact(tv, plane);
        const double lowest =
            std::min({plane.normal.dot(t[0]), plane.normal.dot(t[1]), plane.normal.dot(t[2])});
        ASSERT_EQ(pc.has_value(), lowest <= plane.offset);
        if (pc)
        {
            ExpectContactShape(*pc, t);
            EXPECT_NEAR(pc->depth, plane.offset - lowest, 1e-12);
        }

        OrientedBox box;
        box.pose.rotation = Eigen::Quaterniond::UnitRandom().toRotationMatrix();
        box.pose.translation = RandomPoint(random, 0.5);
        box.halfExtents = RandomPoint(random).cwiseAbs() * 0.5 + Vec3d::Constant(0.05);
        Vec3d local[3];
        for (int i = 0; i < 3; ++i)
            local[i] = box.pose.ApplyInverse(t[i]);
        const auto bc = TriangleBoxContact(tv, box);
        ASSERT_EQ(bc.has_value(), TriangleOverlapsBox(local, box.halfExtents));
        if (!bc)
            continue;
        ++boxContacts;
        ExpectContactShape(*bc, t);
        // The point is in the box, moving by depth·normal separates (touching), a bit less does not.
        const Vec3d p = box.pose.ApplyInverse(bc->point);
        EXPECT_TRUE(((p.cwiseAbs() - box.halfExtents).array() <= 1e-9).all()) << "trial " << trial;
        auto overlapsAfter = [&](double inDistance)
        {
            const Tri moved = Moved(t, inDistance * bc->normal);
            Vec3d m[3];
            for (int i = 0; i < 3; ++i)
                m[i] = box.pose.ApplyInverse(moved[i]);
            return TriangleOverlapsBox(m, box.halfExtents);
        };
        EXPECT_FALSE(overlapsAfter(bc->depth + 1e-9)) << "trial " << trial;
        if (bc->depth > 1e-6)
        {
            EXPECT_TRUE(overlapsAfter(bc->depth - 1e-7)) << "trial " << trial;
        }
    }
    EXPECT_GT(boxContacts, 500);
}

} // namespace
} // namespace bdt
