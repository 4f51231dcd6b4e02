#include "support/QueryOracles.h"
#include "support/TestModels.h"

#include "core/queries/RestFrameOverlap.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <random>

namespace bdt
{
namespace
{

using namespace test;

// The oracle: a node's updated sphere placed in world as the queries place it (s·R·x + t, radius s·r +
// inflate), and its exact gap to the primitive in long double (> 0: apart).
struct Placed
{
    Vec3d center;
    double radius;
};

Placed Place(const DeformedBody& inBody, const UpdatedSphere& inSphere)
{
    const Vec3d x(inSphere.center[0], inSphere.center[1], inSphere.center[2]);
    return {inBody.pose.Apply(inBody.scale * x), inBody.scale * double(inSphere.radius) + inBody.inflate};
}

long double Length(const Vec3d& inV)
{
    const long double x = inV.x(), y = inV.y(), z = inV.z();
    return std::sqrt(x * x + y * y + z * z);
}

long double GapTo(const Placed& inNode, const Sphere& inSphere)
{
    return Length(inNode.center - inSphere.center) - inNode.radius - inSphere.radius;
}

long double GapTo(const Placed& inNode, const Plane& inPlane)
{
    return static_cast<long double>(inPlane.normal.dot(inNode.center)) - inPlane.offset - inNode.radius;
}

long double GapTo(const Placed& inNode, const OrientedBox& inBox)
{
    const Vec3d local = inBox.pose.ApplyInverse(inNode.center);
    return Length((local.cwiseAbs() - inBox.halfExtents).cwiseMax(0.0)) - inNode.radius;
}

long double GapTo(const Placed& inNode, const Capsule& inCapsule)
{
    const Vec3d axis = inCapsule.b - inCapsule.a;
    const double along = std::clamp((inNode.center - inCapsule.a).dot(axis) / axis.squaredNorm(), 0.0, 1.0);
    return Length(inNode.center - (inCapsule.a + along * axis)) - inNode.radius - inCapsule.radius;
}

// Every node a proxy query can visit, against a primitive made near it by `inMake(world sphere of the node,
// random)`: the rest-frame test accepts every node within the world test's relative slack (1e-9 of the
// reach) and rejects every node more than 1e-7 of the magnitudes apart. Returns how many nodes fell in each
// class, so that the callers can see both were met.
template <class Primitive, class Test>
std::pair<int, int> CheckAgainstWorld(QueryBody& ioBody, double inScale, double inInflate,
                                      const std::function<Primitive(const Placed&, std::mt19937&)>& inMake,
                                      std::mt19937& ioRandom)
{
    const DeformedBody body{ioBody.state.get(), ioBody.pose, inScale, inInflate};
    int accepted = 0, rejected = 0;
    const std::uint32_t visits = ioBody.state->Proxies().VisitCount();
    for (std::uint32_t round = 0; round < 40; ++round)
    {
        // A primitive made for one node, then every node tested against it.
        const UpdatedSphere seed = ioBody.state->Sphere(std::uint32_t(ioRandom() % visits));
        const Primitive primitive = inMake(Place(body, seed), ioRandom);
        const Test test(body, primitive);
        for (std::uint32_t node = 0; node < visits; ++node)
        {
            const UpdatedSphere sphere = ioBody.state->Sphere(node);
            const Placed placed = Place(body, sphere);
            const long double gap = GapTo(placed, primitive);
            const double magnitude =
                body.pose.translation.norm() + placed.center.norm() + placed.radius + 1.0;
            if (gap <= 1e-9L * placed.radius)
            {
                ++accepted;
                if (!test.MayOverlap(sphere))
                {
                    ADD_FAILURE() << "node " << node << " missed at gap " << double(gap);
                    return {accepted, rejected};
                }
            }
            else if (gap > 1e-7L * magnitude)
            {
                ++rejected;
                if (test.MayOverlap(sphere))
                {
                    ADD_FAILURE() << "node " << node << " accepted at gap " << double(gap);
                    return {accepted, rejected};
                }
            }
        }
    }
    return {accepted, rejected};
}

// The bodies: a torus at proxy level 6 with 6 smooth fields, at q from rest to large, turned, moved 30 m out
// and scaled, with and without an inflate.
template <class Primitive, class Test>
void CheckPrimitive(const std::function<Primitive(const Placed&, std::mt19937&)>& inMake)
{
    std::mt19937 random(1234);
    QueryBody body(ShapeTree("torus", 1500, 6), 6);
    int accepted = 0, rejected = 0;
    for (const double amplitude : {0.0, 0.05, 0.3})
        for (const double scale : {0.25, 1.0, 3.7})
            for (const double inflate : {0.0, 0.02})
            {
                ASSERT_TRUE(body.state->SetQ(RandomQ(6, amplitude * body.Size(), random)));
                body.pose.rotation = RandomRotation(random);
                body.pose.translation = RandomPoint(random, 30.0);
                const auto [a, r] = CheckAgainstWorld<Primitive, Test>(body, scale, inflate, inMake, random);
                accepted += a;
                rejected += r;
            }
    // Both sides of the test were exercised, the touching cases included (see the makers).
    EXPECT_GT(accepted, 200);
    EXPECT_GT(rejected, 10000);
}

// A primitive's distance to the seed node: touching it exactly (gap 0 up to rounding), or apart or into it by
// a random amount up to the node's radius.
double RandomGap(const Placed& inNode, std::mt19937& ioRandom)
{
    switch (ioRandom() % 3)
    {
    case 0:
        return 0.0;
    case 1:
        return Uniform(ioRandom, -1.0, 1.0) * inNode.radius;
    default:
        return Uniform(ioRandom, 0.0, 3.0) * inNode.radius;
    }
}

TEST(RestFrameOverlap, ASphereAcceptsWhatTheWorldTestAcceptsAndRejectsWhatIsApart)
{
    CheckPrimitive<Sphere, RestSphereTest>(
        [](const Placed& inNode, std::mt19937& ioRandom)
        {
            const double radius = Uniform(ioRandom, 0.01, 2.0) * inNode.radius;
            return Sphere{inNode.center + (inNode.radius + radius + RandomGap(inNode, ioRandom)) *
                                              RandomDirection(ioRandom),
                          radius};
        });
}

TEST(RestFrameOverlap, APlaneAcceptsWhatTheWorldTestAcceptsAndRejectsWhatIsApart)
{
    CheckPrimitive<Plane, RestPlaneTest>(
        [](const Placed& inNode, std::mt19937& ioRandom)
        {
            const Vec3d normal = RandomDirection(ioRandom);
            // The node's lowest point along the normal at the offset, moved by the gap.
            return Plane{normal, normal.dot(inNode.center) - inNode.radius - RandomGap(inNode, ioRandom)};
        });
}

TEST(RestFrameOverlap, ABoxAcceptsWhatTheWorldTestAcceptsAndRejectsWhatIsApart)
{
    CheckPrimitive<OrientedBox, RestBoxTest>(
        [](const Placed& inNode, std::mt19937& ioRandom)
        {
            OrientedBox box;
            box.pose.rotation = RandomRotation(ioRandom);
            box.halfExtents =
                inNode.radius * Vec3d(Uniform(ioRandom, 0.05, 3.0), Uniform(ioRandom, 0.05, 3.0),
                                      Uniform(ioRandom, 0.05, 3.0));
            // A face's centre, then the box's centre behind it: the node touches that face when the gap is 0.
            const int axis = int(ioRandom() % 3);
            const Vec3d out = box.pose.rotation.col(axis) * ((ioRandom() % 2) != 0 ? 1.0 : -1.0);
            box.pose.translation = inNode.center - (inNode.radius + RandomGap(inNode, ioRandom)) * out -
                                   box.halfExtents[axis] * out;
            return box;
        });
}

TEST(RestFrameOverlap, ACapsuleAcceptsWhatTheWorldTestAcceptsAndRejectsWhatIsApart)
{
    CheckPrimitive<Capsule, RestCapsuleTest>(
        [](const Placed& inNode, std::mt19937& ioRandom)
        {
            const double radius = Uniform(ioRandom, 0.01, 2.0) * inNode.radius;
            const Vec3d side = RandomDirection(ioRandom);
            // An axis perpendicular to `side` through a point beside the node (or, one time in four, an
            // end cap towards the node).
            Vec3d axis = side.cross(RandomDirection(ioRandom)).normalized();
            const Vec3d nearest =
                inNode.center + (inNode.radius + radius + RandomGap(inNode, ioRandom)) * side;
            const double length = Uniform(ioRandom, 0.1, 4.0) * inNode.radius;
            if (ioRandom() % 4 == 0)
                return Capsule{nearest, nearest + length * side, radius};
            const double before = Uniform(ioRandom, 0.0, 1.0) * length;
            return Capsule{nearest - before * axis, nearest + (length - before) * axis, radius};
        });
}

// A body or primitive beyond double's range (a room that overflows, a centre that maps to NaN) accepts every
// sphere rather than rejecting on NaNs: the descent then decides every terminal node in world.
TEST(RestFrameOverlap, OutOfRangeAcceptsEverySphere)
{
    QueryBody body(ShapeTree("box", 200, 2), 4);
    const DeformedBody far{body.state.get(), Pose{Mat3d::Identity(), Vec3d(1e308, 0, 0)}, 1.0, 0.0};
    const Vec3d beyond(-1e308, 0, 0);
    const RestSphereTest sphere(far, Sphere{beyond, 1.0});
    const RestPlaneTest plane(far, Plane{Vec3d::UnitX(), -1e308});
    const RestBoxTest box(far, OrientedBox{Pose{Mat3d::Identity(), beyond}, Vec3d::Ones()});
    const RestCapsuleTest capsule(far, Capsule{beyond, beyond + Vec3d::UnitY(), 1.0});
    for (std::uint32_t node = 0; node < body.state->Proxies().VisitCount(); ++node)
    {
        const UpdatedSphere s = body.state->Sphere(node);
        EXPECT_TRUE(sphere.MayOverlap(s)) << node;
        EXPECT_TRUE(plane.MayOverlap(s)) << node;
        EXPECT_TRUE(box.MayOverlap(s)) << node;
        EXPECT_TRUE(capsule.MayOverlap(s)) << node;
    }
}

} // namespace
} // namespace bdt
