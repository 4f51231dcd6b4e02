// The primitive pair cache (`PrimitivePairCache`): a body's proxy query against a sphere, plane, box or
// capsule answered from the pair's list finds exactly what the descent finds (the same contacts, bits and
// order), step after step, while the body approaches, presses in, turns, deforms and leaves, or the primitive
// moves instead (the list follows the body in the primitive's frame); a resting body
// answers from the list; a list made for another primitive, state or scale is not used; a body moving
// faster than the skin descends without it.
#include "support/QueryOracles.h"
#include "support/SkinBandChecks.h"
#include "support/TestModels.h"

#include "core/queries/CoherentQueries.h"
#include "core/queries/PrimitivePairCache.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <bdt/core/model/Model.h>
#include <bdt/core/queries/TreeQueries.h>
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <iostream>
#include <random>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace bdt
{
namespace
{

using namespace test;
using Primitive = std::variant<Sphere, Plane, OrientedBox, Capsule>;

// Both queries on `inPrimitive`: the descent, then the cached one.
void Query(const DeformedBody& inBody, const Primitive& inPrimitive, PrimitivePairCache* ioCache,
           std::vector<ProxyContact>& outContacts, QueryStats& ioStats)
{
    std::visit(
        [&](const auto& inShape)
        {
            if (ioCache != nullptr)
                CollideProxiesCached(inBody, inShape, *ioCache, outContacts, ioStats);
            else
                CollideProxies(inBody, inShape, outContacts, ioStats);
        },
        inPrimitive);
}

bool SameBits(const Vec3d& inX, const Vec3d& inY)
{
    return std::memcmp(inX.data(), inY.data(), sizeof(double) * 3) == 0;
}

// The same contacts in the same order, bit for bit.
void ExpectIdentical(const std::vector<ProxyContact>& inExpected, const std::vector<ProxyContact>& inActual,
                     int inStep, const std::string& inWhat)
{
    ASSERT_EQ(inExpected.size(), inActual.size()) << inWhat << ", step " << inStep;
    for (std::size_t i = 0; i < inExpected.size(); ++i)
    {
        const ProxyContact& x = inExpected[i];
        const ProxyContact& y = inActual[i];
        EXPECT_EQ(x.nodeA, y.nodeA) << inWhat << ", step " << inStep << ", contact " << i;
        EXPECT_EQ(x.nodeB, y.nodeB) << inWhat << ", step " << inStep << ", contact " << i;
        EXPECT_TRUE(SameBits(x.normal, y.normal) && SameBits(x.point, y.point) &&
                    std::memcmp(&x.depth, &y.depth, sizeof(double)) == 0)
            << inWhat << ", step " << inStep << ", contact " << i;
    }
}

// Step by step, of a query's contacts: the steps in contact, those answered from the list, and those of them
// whose contacts hold proxies that the last step's did not (proxies that came within reach while a list was
// kept, in its skin).
struct ReuseTally
{
    void Step(const std::vector<ProxyContact>& inContacts, bool inReused)
    {
        std::set<std::uint32_t> now;
        for (const ProxyContact& contact : inContacts)
            now.insert(contact.nodeA);
        bool newProxies = false;
        for (const std::uint32_t node : now)
            newProxies = newProxies || previous.count(node) == 0;
        if (!now.empty())
        {
            ++stepsInContact;
            reusedSteps += inReused ? 1 : 0;
            reusedWithNewProxies += inReused && newProxies ? 1 : 0;
        }
        previous = std::move(now);
    }

    std::set<std::uint32_t> previous;
    int stepsInContact = 0, reusedSteps = 0, reusedWithNewProxies = 0;
};

// The height (y) of a model's lowest rest vertex once turned by `inRotation`, model units.
double LowestRestHeight(const Model& inModel, const Mat3d& inRotation = Mat3d::Identity())
{
    double lowest = 1e300;
    for (const Vec3f& p : inModel.Positions())
        lowest = std::min(lowest, (inRotation * p.cast<double>()).y());
    return lowest;
}

// A random walk of q: each coordinate moves by up to `inStep`, kept within `inLimit`.
void WalkQ(std::vector<float>& ioQ, double inStep, double inLimit, std::mt19937& ioRandom)
{
    for (float& q : ioQ)
        q = float(std::clamp(double(q) + Uniform(ioRandom, -inStep, inStep), -inLimit, inLimit));
}

// The primitives, each with the direction from it to where the body comes from (world), around the origin.
struct Case
{
    const char* name;
    Primitive primitive;
    Vec3d away;
};

std::vector<Case> Cases(double inSize, std::mt19937& ioRandom)
{
    const Vec3d up = RandomDirection(ioRandom);
    OrientedBox box;
    box.pose.rotation = RandomRotation(ioRandom);
    box.halfExtents = Vec3d(0.6, 0.3, 0.45) * inSize;
    const Vec3d boxUp = box.pose.rotation.col(1);
    const Vec3d axis = RandomDirection(ioRandom);
    const Vec3d across = axis.cross(RandomDirection(ioRandom)).normalized();
    return {{"sphere", Sphere{Vec3d::Zero(), 0.5 * inSize}, up},
            {"plane", Plane{up, 0.0}, up},
            {"box", box, boxUp},
            {"capsule", Capsule{-0.5 * inSize * axis, 0.5 * inSize * axis, 0.2 * inSize}, across}};
}

// The body comes down onto each primitive, presses in, rocks and slides, turns, deforms by a random walk of q
// with its inflate changing from step to step, and leaves. Every step the query from the list must give
// exactly the descent's contacts, and the list must answer most steps in contact, including steps in which
// proxies came within reach that were not before (kept in the skin).
TEST(PrimitivePairCache, SameContactsAsTheDescentWhileTheBodyMoves)
{
    std::mt19937 random(41);
    QueryBody body(ShapeTree("chair", 1500, 6), 6);
    const double size = body.Size();
    const Vec3d restCenter = body.tree->GetModel().RestBounds().center().cast<double>();
    for (const Case& test : Cases(size, random))
    {
        body.pose.rotation = RandomRotation(random);
        const Vec3d spinAxis = RandomDirection(random);
        const Vec3d side = test.away.cross(RandomDirection(random)).normalized();
        std::vector<float> q(body.tree->ModeCount(), 0.0f);
        // A skin that lasts a few steps at this speed (at 0.02 each list answers one step, which does not pay
        // for it: `SkinListHistory` holds off).
        PrimitivePairCache cache(0.04 * size);
        ReuseTally tally;
        constexpr int cSteps = 400;
        for (int step = 0; step < cSteps; ++step)
        {
            const double t = double(step) / cSteps;
            // From 1.6 of the size away in to 0.5 and back, twice, sliding sideways and rocking.
            const double distance = size * (1.6 - 1.1 * std::pow(std::sin(2.0 * M_PI * t), 2.0));
            body.pose.rotation = Eigen::AngleAxisd(1.5e-3 * std::sin(25.0 * t), spinAxis).toRotationMatrix() *
                                 body.pose.rotation;
            const Vec3d target = distance * test.away + 0.2 * size * std::sin(3.0 * t) * side;
            body.pose.translation = target - body.pose.rotation * restCenter;
            WalkQ(q, 1e-4 * size, 0.02 * size, random);
            ASSERT_TRUE(body.state->SetQ(q));
            DeformedBody deformed = body.Body();
            deformed.inflate = 0.01 * size * (1.0 + 0.2 * std::sin(11.0 * t));

            std::vector<ProxyContact> fromDescent, fromCache;
            QueryStats descentStats, cacheStats;
            Query(deformed, test.primitive, nullptr, fromDescent, descentStats);
            const std::uint64_t reusesBefore = cache.Reuses();
            Query(deformed, test.primitive, &cache, fromCache, cacheStats);
            ExpectIdentical(fromDescent, fromCache, step, test.name);
            EXPECT_EQ(cacheStats.contacts, fromCache.size());
            tally.Step(fromDescent, cache.Reuses() > reusesBefore);
        }
        std::cout << "[ info ] " << test.name << ": " << tally.stepsInContact << " steps in contact, "
                  << tally.reusedSteps << " answered from the list (" << tally.reusedWithNewProxies
                  << " with proxies new to the contacts); " << cache.Descents() << " descents in all\n";
        EXPECT_GT(tally.stepsInContact, cSteps / 4) << test.name;
        EXPECT_GT(tally.reusedSteps, tally.stepsInContact / 2) << test.name;
        EXPECT_GT(tally.reusedWithNewProxies, 2) << test.name;
        EXPECT_GT(cache.Descents(), 5u) << test.name;
    }
}

// Each kind of motion the list's bound covers, alone and slowly (a fraction of the skin a step, so lists are
// reused for many steps), brings parts of the body that were far beyond the skin within reach of the
// ground: a turn about the body's origin (the origin stays put, far parts swing down), its modes (the frame
// stays put), a shift of the frame, and a growing inflate. Every step must give exactly the descent's
// contacts, and lists must have answered steps that found proxies new to the contacts: a bound missing any
// of the terms would keep a list too long and miss them.
TEST(PrimitivePairCache, EachMotionAloneIsCovered)
{
    std::mt19937 random(59);
    QueryBody body(ShapeTree("chair", 1500, 6), 9);
    const double size = body.Size();
    const Plane ground{Vec3d::UnitY(), 0.0};
    const std::uint32_t modes = body.tree->ModeCount();
    const double inflate = 0.01 * size;
    // How far below the ground the body's lowest vertex is at this pose and q (negative: above).
    const auto lowest = [&](const Pose& inPose, const std::vector<float>& inQ)
    {
        EXPECT_TRUE(body.state->SetQ(inQ));
        double height = 1e300;
        for (const Tri& triangle : WorldTriangles(body))
            for (const Vec3d& vertex : triangle)
                height = std::min(height, vertex.dot(ground.normal) - ground.offset);
        (void)inPose;
        return -height;
    };
    // A direction in q whose motion takes the lowest part down, scaled to move proxies by about 0.4 of the
    // size at most.
    std::vector<float> qDirection(modes);
    {
        double reach = 0.0;
        const std::span<const float> bounds = body.state->Proxies().CentreBounds();
        for (std::uint32_t j = 0; j < modes; ++j)
        {
            qDirection[j] = float(Uniform(random, -1.0, 1.0));
            reach += double(bounds[j + 1]) * std::abs(double(qDirection[j]));
        }
        for (float& value : qDirection)
            value = float(double(value) * 0.4 * size / reach);
    }
    enum class EMotion
    {
        Turn,
        Modes,
        Shift,
        Inflate
    };
    for (const EMotion motion : {EMotion::Turn, EMotion::Modes, EMotion::Shift, EMotion::Inflate})
    {
        const char* name = motion == EMotion::Turn    ? "turn"
                           : motion == EMotion::Modes ? "modes"
                           : motion == EMotion::Shift ? "shift"
                                                      : "inflate";
        const Vec3d axis = Vec3d::UnitY().cross(RandomDirection(random)).normalized(); // horizontal
        const Mat3d start = RandomRotation(random);
        std::vector<float> zero(modes, 0.0f), q(modes, 0.0f);
        // The modes' direction is taken with the sign that lowers the lowest vertex.
        double sign = 1.0;
        if (motion == EMotion::Modes)
        {
            body.pose = {start, Vec3d::Zero()};
            std::vector<float> plus(modes), minus(modes);
            for (std::uint32_t j = 0; j < modes; ++j)
            {
                plus[j] = qDirection[j];
                minus[j] = -qDirection[j];
            }
            sign = lowest(body.pose, plus) >= lowest(body.pose, minus) ? 1.0 : -1.0;
        }
        // Start with the lowest vertex 5% of the size above the ground plus the reach.
        body.pose = {start, Vec3d::Zero()};
        body.pose.translation = Vec3d(0.0, lowest(body.pose, zero) + inflate + 0.05 * size, 0.0);
        PrimitivePairCache cache(0.02 * size);
        ReuseTally tally;
        constexpr int cSteps = 300;
        for (int step = 0; step <= cSteps; ++step)
        {
            const double s = double(step) / cSteps;
            DeformedBody deformed = body.Body();
            deformed.inflate = inflate;
            switch (motion)
            {
            case EMotion::Turn:
                deformed.pose.rotation = Eigen::AngleAxisd(0.3 * s, axis).toRotationMatrix() * start;
                break;
            case EMotion::Modes:
                for (std::uint32_t j = 0; j < modes; ++j)
                    q[j] = float(sign * s * double(qDirection[j]));
                break;
            case EMotion::Shift:
                deformed.pose.translation.y() -= 0.15 * size * s;
                break;
            case EMotion::Inflate:
                deformed.inflate += 0.15 * size * s;
                break;
            }
            ASSERT_TRUE(body.state->SetQ(q));
            std::vector<ProxyContact> fromDescent, fromCache;
            QueryStats stats;
            CollideProxies(deformed, ground, fromDescent, stats);
            const std::uint64_t reuses = cache.Reuses();
            CollideProxiesCached(deformed, ground, cache, fromCache, stats);
            ExpectIdentical(fromDescent, fromCache, step, name);
            tally.Step(fromDescent, cache.Reuses() > reuses);
        }
        std::cout << "[ info ] " << name << ": " << tally.stepsInContact << " steps in contact, "
                  << cache.Reuses() << " answered from the list (" << tally.reusedWithNewProxies
                  << " with proxies new to the contacts), " << cache.Descents() << " descents\n";
        EXPECT_GT(tally.stepsInContact, cSteps / 4) << name;
        EXPECT_GT(tally.reusedWithNewProxies, 3) << name;
        EXPECT_GT(cache.Reuses(), 10u * cache.Descents()) << name;
    }
}

// Every primitive moves instead of the body (which stays put, deforming a little): it comes in onto the body,
// presses, slides and leaves, the box turning a little about its centre as it goes. The list follows the body
// in the primitive's frame, so a sphere, a box and a capsule that move rigidly keep answering from it, with
// exactly the descent's contacts; a plane that moves is another plane, and starts again every step.
TEST(PrimitivePairCache, MovingPrimitivesGiveTheDescentsContacts)
{
    std::mt19937 random(61);
    QueryBody body(ShapeTree("chair", 1500, 6), 6);
    const double size = body.Size();
    body.pose.rotation = RandomRotation(random);
    body.pose.translation =
        -(body.pose.rotation * body.tree->GetModel().RestBounds().center().cast<double>());
    for (const Case& test : Cases(size, random))
    {
        const Vec3d side = test.away.cross(RandomDirection(random)).normalized();
        const Vec3d spinAxis = RandomDirection(random);
        std::vector<float> q(body.tree->ModeCount(), 0.0f);
        // A skin that lasts a few steps at this speed (at 0.02 each list answers one step, which does not pay
        // for it: `SkinListHistory` holds off).
        PrimitivePairCache cache(0.04 * size);
        ReuseTally tally;
        constexpr int cSteps = 400;
        for (int step = 0; step < cSteps; ++step)
        {
            const double t = double(step) / cSteps;
            // From 1.6 of the size away in to 0.5 and back, twice, sliding sideways; the box turning. The
            // body stays on the primitive's `away` side, as when the body moves.
            const double distance = size * (1.6 - 1.1 * std::pow(std::sin(2.0 * M_PI * t), 2.0));
            const Vec3d offset = -(distance * test.away + 0.2 * size * std::sin(3.0 * t) * side);
            Primitive primitive = test.primitive;
            if (auto* sphere = std::get_if<Sphere>(&primitive))
                sphere->center += offset;
            else if (auto* plane = std::get_if<Plane>(&primitive))
                plane->offset += plane->normal.dot(offset);
            else if (auto* box = std::get_if<OrientedBox>(&primitive))
            {
                box->pose.rotation = Eigen::AngleAxisd(0.1 * std::sin(5.0 * t), spinAxis).toRotationMatrix() *
                                     box->pose.rotation;
                box->pose.translation += offset;
            }
            else if (auto* capsule = std::get_if<Capsule>(&primitive))
            {
                capsule->a += offset;
                capsule->b += offset;
            }
            WalkQ(q, 1e-4 * size, 0.02 * size, random);
            ASSERT_TRUE(body.state->SetQ(q));
            DeformedBody deformed = body.Body();
            deformed.inflate = 0.01 * size;

            std::vector<ProxyContact> fromDescent, fromCache;
            QueryStats descentStats, cacheStats;
            Query(deformed, primitive, nullptr, fromDescent, descentStats);
            const std::uint64_t reusesBefore = cache.Reuses();
            Query(deformed, primitive, &cache, fromCache, cacheStats);
            ExpectIdentical(fromDescent, fromCache, step, test.name);
            tally.Step(fromDescent, cache.Reuses() > reusesBefore);
        }
        std::cout << "[ info ] moving " << test.name << ": " << tally.stepsInContact << " steps in contact, "
                  << tally.reusedSteps << " answered from the list (" << tally.reusedWithNewProxies
                  << " with proxies new to the contacts); " << cache.Descents() << " descents in all\n";
        if (std::holds_alternative<Plane>(test.primitive))
        {
            EXPECT_GT(tally.stepsInContact, 0);
            EXPECT_EQ(cache.Reuses(), 0u) << "a moved plane is another plane";
            continue;
        }
        EXPECT_GT(tally.stepsInContact, cSteps / 4) << test.name;
        EXPECT_GT(tally.reusedSteps, tally.stepsInContact / 2) << test.name;
        EXPECT_GT(tally.reusedWithNewProxies, 5) << test.name;
    }
}

// The primitive's own motion alone, slowly (a fraction of the skin a step, so lists are reused for many
// steps), brings parts of the body that were far beyond the skin within reach: a sphere sliding into the
// resting body, and a long box and a long capsule turning so that an end sweeps into it. Every step must give
// exactly the descent's contacts, and lists must have answered steps that found proxies new to the contacts:
// a bound that left out the primitive's motion (its frame's, or the capsule's change of axis) would keep a
// list too long and miss them.
TEST(PrimitivePairCache, ThePrimitivesOwnMotionIsCovered)
{
    std::mt19937 random(67);
    QueryBody body(ShapeTree("chair", 1500, 6), 9);
    const double size = body.Size();
    body.pose.rotation = RandomRotation(random);
    body.pose.translation =
        -(body.pose.rotation * body.tree->GetModel().RestBounds().center().cast<double>());
    const double inflate = 0.01 * size;
    // How far the body's nearest vertex is from a point (the body's triangles at q = 0).
    const std::vector<Tri> triangles = WorldTriangles(body);
    const auto nearest = [&](const Vec3d& inPoint)
    {
        double distance = 1e300;
        for (const Tri& triangle : triangles)
            for (const Vec3d& vertex : triangle)
                distance = std::min(distance, (vertex - inPoint).norm());
        return distance;
    };
    // The point along `direction`, coming in from a size away, where something `inClearance` thick is 5% of
    // the size plus the reach from the body.
    const Vec3d direction = RandomDirection(random);
    const auto approach = [&](double inClearance)
    {
        Vec3d point = direction * size;
        while (nearest(point) > inClearance + inflate + 0.05 * size)
            point -= 0.01 * size * direction;
        return point;
    };
    enum class EMotion
    {
        SphereSliding,
        BoxTurning,
        CapsuleTurning
    };
    for (const EMotion motion : {EMotion::SphereSliding, EMotion::BoxTurning, EMotion::CapsuleTurning})
    {
        const char* name = motion == EMotion::SphereSliding ? "sphere sliding"
                           : motion == EMotion::BoxTurning  ? "box turning"
                                                            : "capsule turning";
        // The sphere (radius 0.2 of the size) slides 15% of the size in. The box and the capsule, 1.2 sizes
        // long and 0.08 thick, lie across `direction`, an end that far from the body, and turn (the box by
        // 0.5 rad about its centre, the capsule by 0.25 about its far end), so that this end sweeps 0.29 of
        // the size towards the body.
        const double radius = 0.2 * size;
        const Vec3d start = approach(radius);
        const Vec3d end = approach(0.04 * size);
        const Vec3d across = direction.cross(RandomDirection(random)).normalized();
        const Vec3d pivotAxis = direction.cross(across).normalized();
        Mat3d axes;
        axes.col(0) = across;
        axes.col(1) = direction;
        axes.col(2) = pivotAxis;
        const Vec3d centre = end + 0.6 * size * across;
        PrimitivePairCache cache(0.02 * size);
        ReuseTally tally;
        constexpr int cSteps = 400;
        for (int step = 0; step <= cSteps; ++step)
        {
            const double s = double(step) / cSteps;
            const Mat3d turned = Eigen::AngleAxisd(-0.5 * s, pivotAxis).toRotationMatrix() * axes;
            DeformedBody deformed = body.Body();
            deformed.inflate = inflate;
            std::vector<ProxyContact> fromDescent, fromCache;
            QueryStats stats;
            const std::uint64_t reuses = cache.Reuses();
            switch (motion)
            {
            case EMotion::SphereSliding:
            {
                const Sphere sphere{start - 0.15 * size * s * direction, radius};
                CollideProxies(deformed, sphere, fromDescent, stats);
                CollideProxiesCached(deformed, sphere, cache, fromCache, stats);
                break;
            }
            case EMotion::BoxTurning:
            {
                OrientedBox box;
                box.pose = {turned, centre};
                box.halfExtents = Vec3d(0.6 * size, 0.04 * size, 0.04 * size);
                CollideProxies(deformed, box, fromDescent, stats);
                CollideProxiesCached(deformed, box, cache, fromCache, stats);
                break;
            }
            case EMotion::CapsuleTurning:
            {
                // Turning by half as much about its far end a, so that its frame (at a) stays put and only
                // its axis turns: the near end b sweeps in as the box's does.
                const Mat3d halfTurned = Eigen::AngleAxisd(-0.25 * s, pivotAxis).toRotationMatrix() * axes;
                const Vec3d far = end + 1.2 * size * across;
                const Capsule capsule{far, far - 1.2 * size * halfTurned.col(0), 0.04 * size};
                CollideProxies(deformed, capsule, fromDescent, stats);
                CollideProxiesCached(deformed, capsule, cache, fromCache, stats);
                break;
            }
            }
            ExpectIdentical(fromDescent, fromCache, step, name);
            tally.Step(fromDescent, cache.Reuses() > reuses);
        }
        std::cout << "[ info ] " << name << ": " << tally.stepsInContact << " steps in contact, "
                  << cache.Reuses() << " answered from the list (" << tally.reusedWithNewProxies
                  << " with proxies new to the contacts), " << cache.Descents() << " descents\n";
        EXPECT_GT(tally.stepsInContact, cSteps / 4) << name;
        EXPECT_GT(tally.reusedWithNewProxies, 3) << name;
        EXPECT_GT(cache.Reuses(), 3u * cache.Descents()) << name;
    }
}

// A body resting on the ground, its frame and modes jittering a little: the list answers nearly every step,
// with a fraction of the descent's sphere tests and updates, and the same contacts.
TEST(PrimitivePairCache, RestingBodyAnswersFromTheList)
{
    std::mt19937 random(43);
    QueryBody body(ShapeTree("chair", 1500, 6), 7);
    const double size = body.Size();
    const Plane ground{Vec3d::UnitY(), 0.0};
    // Resting on its lowest proxies: the lowest vertex just below the ground.
    const double lowest = LowestRestHeight(body.tree->GetModel());
    const Vec3d rest(0.0, -lowest - 1e-3 * size, 0.0);
    std::vector<float> q(body.tree->ModeCount(), 0.0f);
    PrimitivePairCache cache(0.02 * size);
    std::uint64_t descentTests = 0, cacheTests = 0, descentUpdates = 0, cacheUpdates = 0;
    constexpr int cSteps = 200;
    for (int step = 0; step < cSteps; ++step)
    {
        body.pose.rotation =
            Eigen::AngleAxisd(1e-4 * std::sin(0.3 * step), Vec3d::UnitZ()).toRotationMatrix();
        body.pose.translation = rest + Vec3d(0.0, 1e-4 * size * std::sin(0.7 * step), 0.0);
        WalkQ(q, 1e-6 * size, 1e-4 * size, random);
        ASSERT_TRUE(body.state->SetQ(q));
        DeformedBody deformed = body.Body();
        deformed.inflate = 0.005 * size;
        std::vector<ProxyContact> fromDescent, fromCache;
        QueryStats descentStats, cacheStats;
        body.state->ResetCounters();
        CollideProxies(deformed, ground, fromDescent, descentStats);
        descentUpdates += body.state->SpheresUpdated();
        body.state->ResetCounters();
        CollideProxiesCached(deformed, ground, cache, fromCache, cacheStats);
        cacheUpdates += body.state->SpheresUpdated();
        ExpectIdentical(fromDescent, fromCache, step, "resting");
        ASSERT_FALSE(fromDescent.empty()) << step;
        descentTests += descentStats.overlapTests;
        cacheTests += cacheStats.overlapTests;
    }
    std::cout << "[ info ] resting: " << cache.Reuses() << " of " << cSteps << " answered from the list, "
              << cache.Size() << " proxies kept; sphere tests " << cacheTests << " against " << descentTests
              << ", updates " << cacheUpdates << " against " << descentUpdates << "\n";
    EXPECT_GE(cache.Reuses(), std::uint64_t(cSteps - 2));
    EXPECT_LT(3 * cacheTests, descentTests);
    EXPECT_LT(2 * cacheUpdates, descentUpdates);
}

// The list's bands: a box tilted on the ground so that its bottom face's proxies lie at several heights within
// the skin. Unmoved, the list tests only the proxies found within reach + s/4 (the descent widened by s/4 is
// the oracle) and updates only them; lowered by 0.6 s, it tests those within reach + 3s/4; both fewer than
// it keeps, with the descent's contacts in the descent's order.
TEST(PrimitivePairCache, ASmallBoundTestsOnlyTheNearBands)
{
    QueryBody body(ShapeTree("box", 2000, 6), 10);
    const double size = body.Size();
    const Plane ground{Vec3d::UnitY(), 0.0};
    const double skin = 0.02 * size;
    // Tilted by 0.04 rad: the bottom face rises across it; its lowest corner 0.1 s into the ground.
    body.pose.rotation = Eigen::AngleAxisd(0.04, Vec3d::UnitZ()).toRotationMatrix();
    const double lowest = LowestRestHeight(body.tree->GetModel(), body.pose.rotation);
    body.pose.translation = Vec3d(0.0, -lowest - 0.1 * skin, 0.0);
    std::mt19937 random(3);
    ASSERT_TRUE(body.state->SetQ(RandomQ(body.tree->ModeCount(), 1e-5 * size, random)));
    PrimitivePairCache cache(skin);
    const auto proxiesWithin = [&](double inWidening) { return FoundWithin(body.Body(), ground, inWidening); };
    const auto query = [&](const char* inWhat)
    {
        std::vector<ProxyContact> fromDescent, fromCache;
        QueryStats descentStats, cacheStats;
        CollideProxies(body.Body(), ground, fromDescent, descentStats);
        body.state->ResetCounters();
        CollideProxiesCached(body.Body(), ground, cache, fromCache, cacheStats);
        ExpectIdentical(fromDescent, fromCache, 0, inWhat);
        EXPECT_FALSE(fromDescent.empty()) << inWhat;
        return ListQueryWork{cacheStats.overlapTests, body.state->SpheresUpdated()};
    };
    const ListQueryWork unmoved = ExpectBandsLimitTheQueries(cache, skin, query, proxiesWithin,
                                                             [&] { body.pose.translation.y() -= 0.6 * skin; });
    EXPECT_EQ(unmoved.updates, unmoved.tests) << "only the tested proxies are updated";
}

// A list answers only for the primitive, state and scale it was made for: a plane moved by a hair, another
// body's state, another scale each start again (a descent), with the right contacts.
TEST(PrimitivePairCache, AListForAnotherPrimitiveStateOrScaleIsNotUsed)
{
    std::mt19937 random(47);
    QueryBody body(ShapeTree("chair", 1500, 6), 6);
    QueryBody twin(body.tree, 6);
    const double size = body.Size();
    body.pose.translation = Vec3d(0.0, 0.3 * size, 0.0);
    twin.pose = body.pose;
    const Plane ground{Vec3d::UnitY(), 0.0};
    DeformedBody deformed = body.Body();
    deformed.inflate = 0.01 * size;
    PrimitivePairCache cache(0.02 * size);
    const auto check =
        [&](const DeformedBody& inBody, const Plane& inPlane, bool inReused, const char* inWhat)
    {
        std::vector<ProxyContact> fromDescent, fromCache;
        QueryStats stats;
        CollideProxies(inBody, inPlane, fromDescent, stats);
        const std::uint64_t reuses = cache.Reuses();
        CollideProxiesCached(inBody, inPlane, cache, fromCache, stats);
        ExpectIdentical(fromDescent, fromCache, 0, inWhat);
        EXPECT_FALSE(fromDescent.empty()) << inWhat;
        EXPECT_EQ(cache.Reuses() > reuses, inReused) << inWhat;
    };
    check(deformed, ground, false, "first");
    check(deformed, ground, true, "same again");
    check(deformed, ground, true, "and again (the list has paid: `SkinListHistory`)");
    Plane moved = ground;
    moved.offset = std::nextafter(ground.offset, 1.0);
    check(deformed, moved, false, "plane moved by one ulp");
    check(deformed, moved, true, "moved plane again");
    DeformedBody other = twin.Body();
    other.inflate = deformed.inflate;
    check(other, moved, false, "another body's state");
    DeformedBody scaled = other;
    scaled.scale = 1.0 + 1e-12;
    check(scaled, moved, false, "another scale");
}

// A body falling through the ground faster than the skin allows: each list fails the step after it was
// made, so the cache descends without the skin, for longer and longer stretches; it costs at most a little
// more than plain descents and gives the same contacts.
TEST(PrimitivePairCache, AFastBodyDescendsWithoutTheSkin)
{
    std::mt19937 random(53);
    QueryBody body(ShapeTree("chair", 1500, 6), 6);
    const double size = body.Size();
    const Plane ground{Vec3d::UnitY(), 0.0};
    body.pose.rotation = RandomRotation(random);
    PrimitivePairCache cache(0.02 * size);
    std::uint64_t descentTests = 0, cacheTests = 0;
    constexpr int cSteps = 100;
    for (int step = 0; step < cSteps; ++step)
    {
        // Down by a tenth of the size a step, back up every 20 steps: always moving, always near the ground.
        body.pose.translation = Vec3d(0.0, size * (0.6 - 0.1 * (step % 20) / 2.0), 0.0);
        DeformedBody deformed = body.Body();
        deformed.inflate = 0.01 * size;
        std::vector<ProxyContact> fromDescent, fromCache;
        QueryStats descentStats, cacheStats;
        CollideProxies(deformed, ground, fromDescent, descentStats);
        CollideProxiesCached(deformed, ground, cache, fromCache, cacheStats);
        ExpectIdentical(fromDescent, fromCache, step, "falling");
        descentTests += descentStats.overlapTests;
        cacheTests += cacheStats.overlapTests;
    }
    std::cout << "[ info ] falling: " << cache.Reuses() << " reuses, " << cache.Descents()
              << " descents; sphere tests " << cacheTests << " against " << descentTests << "\n";
    EXPECT_EQ(cache.Reuses(), 0u);
    EXPECT_EQ(cache.Descents(), std::uint64_t(cSteps));
    EXPECT_LT(double(cacheTests), 1.15 * double(descentTests));
}

// A list that answers one query does not pay for its widened descent (`PrimitivePairCache::cReusesThatPay`):
// dropped after one reuse, the next descent keeps no list; dropped after two, the next descent makes one at
// once. The contacts are the descent's throughout.
TEST(PrimitivePairCache, AListUsedOnceDoesNotPayForItsDescent)
{
    QueryBody body(ShapeTree("chair", 1500, 6), 6);
    const double size = body.Size();
    const double skin = 0.02 * size;
    const Plane ground{Vec3d::UnitY(), 0.0};
    const double lowest = LowestRestHeight(body.tree->GetModel());
    for (const std::uint32_t reuses : {1u, 2u})
    {
        PrimitivePairCache cache(skin);
        double sink = 0.0; // how far the body is in the ground (its lowest vertex)
        const auto query = [&](const char* inWhat)
        {
            body.pose.translation = Vec3d(0.0, -lowest - sink, 0.0);
            DeformedBody deformed = body.Body();
            deformed.inflate = 0.01 * size;
            std::vector<ProxyContact> fromDescent, fromCache;
            QueryStats stats;
            CollideProxies(deformed, ground, fromDescent, stats);
            CollideProxiesCached(deformed, ground, cache, fromCache, stats);
            ExpectIdentical(fromDescent, fromCache, int(reuses), inWhat);
            EXPECT_FALSE(fromDescent.empty()) << inWhat;
        };
        query("the list is made");
        ASSERT_TRUE(cache.Valid());
        for (std::uint32_t i = 0; i < reuses; ++i)
            query("unmoved");
        ASSERT_EQ(cache.Reuses(), reuses);
        sink = 1.5 * skin; // beyond the skin: the list no longer answers
        query("sunk by 1.5 skins");
        EXPECT_EQ(cache.Descents(), 2u);
        EXPECT_EQ(cache.Valid(), reuses == 2)
            << reuses << " reuses: a list is made again only after one that paid";
        query("sunk, unmoved");
        EXPECT_TRUE(cache.Valid()) << "the hold-off is one descent";
    }
}

} // namespace
} // namespace bdt
