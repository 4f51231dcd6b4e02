// The pair cache (`ProxyPairCache`): a proxy query answered from the pair's list finds exactly what the
// descent from the roots finds, step after step, while the bodies approach, rest, turn, deform and separate;
// resting bodies answer from the list; a list made for other bodies or settings is not used.
#include "support/ProxyContactComparison.h"
#include "support/QueryOracles.h"
#include "support/SkinBandChecks.h"
#include "support/TestModels.h"

#include "core/queries/CoherentQueries.h"
#include "core/queries/ProxyPairCache.h"
#include <bdt/core/queries/TreeQueries.h>
#include <Eigen/Geometry>
#include <cmath>
#include <gtest/gtest.h>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace bdt
{
namespace
{

using namespace test;
using NodePair = std::pair<std::uint32_t, std::uint32_t>;
// A random walk of q: each coordinate moves by up to `inStep`, kept within `inLimit`.
void WalkQ(std::vector<float>& ioQ, double inStep, double inLimit, std::mt19937& ioRandom)
{
    for (float& q : ioQ)
        q = float(std::clamp(double(q) + Uniform(ioRandom, -inStep, inStep), -inLimit, inLimit));
}

// B, scaled by 1.3 and with both bodies' reach inflated, comes towards A, presses in, slides, turns about a
// tilted axis and leaves, while A turns too and both deform by a random walk of q; the inflate changes from
// step to step. Every step the query from the list must equal the descent from the roots, and the list must
// answer most steps, including steps in which pairs came within reach that were not before (pairs the
// list had kept in its skin).
TEST(ProxyPairCache, SameContactsAsFromTheRootsWhileTheBodiesMove)
{
    std::mt19937 random(23);
    QueryBody a(ShapeTree("chair", 1500, 6), 6);
    QueryBody b(ShapeTree("torus", 1000, 4), 6);
    const double scaleB = 1.3;
    const double size = a.Size() + scaleB * b.Size();
    a.pose.rotation = RandomRotation(random);
    b.pose.rotation = RandomRotation(random);
    const Vec3d direction = RandomDirection(random);
    const Vec3d side = direction.cross(RandomDirection(random)).normalized();
    const Vec3d spinAxisA = RandomDirection(random);
    const Vec3d spinAxisB = RandomDirection(random);
    const Vec3d restCenterB = b.tree->GetModel().RestBounds().center().cast<double>();
    std::vector<float> qA(a.tree->ModeCount(), 0.0f), qB(b.tree->ModeCount(), 0.0f);

    ProxyPairCache cache(0.02 * size);
    std::set<NodePair> previous;
    int stepsInContact = 0, reusedSteps = 0, reusedWithNewPairs = 0;
    constexpr int cSteps = 400;
    for (int step = 0; step < cSteps; ++step)
    {
        const double t = double(step) / cSteps;
        // Centre distance from 0.75 of the sizes (apart) in to 0.45 and back, twice, sliding sideways.
        const double distance = size * (0.75 - 0.3 * std::pow(std::sin(2.0 * M_PI * t), 2.0));
        a.pose.rotation = Eigen::AngleAxisd(1e-3, spinAxisA).toRotationMatrix() * a.pose.rotation;
        b.pose.rotation = Eigen::AngleAxisd(2e-3, spinAxisB).toRotationMatrix() * b.pose.rotation;
        const Vec3d target = a.WorldCenter() + distance * direction + 0.1 * size * std::sin(3.0 * t) * side;
        b.pose.translation = target - scaleB * (b.pose.rotation * restCenterB);
        WalkQ(qA, 1e-4 * size, 0.02 * size, random);
        WalkQ(qB, 1e-4 * size, 0.02 * size, random);
        ASSERT_TRUE(a.state->SetQ(qA));
        ASSERT_TRUE(b.state->SetQ(qB));
        DeformedBody bodyA = a.Body();
        DeformedBody bodyB = b.Body();
        bodyB.scale = scaleB;
        bodyA.inflate = 0.01 * size * (1.0 + 0.2 * std::sin(11.0 * t));
        bodyB.inflate = 0.002 * size;

        std::vector<ProxyContact> fromRoots, fromCache;
        QueryStats rootStats, cacheStats;
        CollideProxies(bodyA, bodyB, fromRoots, rootStats);
        const std::uint64_t reusesBefore = cache.Reuses();
        CollideProxiesCached(bodyA, bodyB, cache, fromCache, cacheStats);
        const ProxyContactMap contacts = ByNodes(fromRoots);
        ExpectSameContacts(contacts, ByNodes(fromCache), step, "the list");
        EXPECT_EQ(cacheStats.contacts, fromCache.size());
        std::set<NodePair> now;
        for (const auto& entry : contacts)
            now.insert(entry.first);
        const bool reused = cache.Reuses() > reusesBefore;
        bool newPairs = false;
        for (const NodePair& pair : now)
            newPairs = newPairs || previous.count(pair) == 0;
        if (!now.empty())
        {
            ++stepsInContact;
            reusedSteps += reused ? 1 : 0;
            reusedWithNewPairs += reused && newPairs ? 1 : 0;
        }
        previous = std::move(now);
    }
    std::cout << "[ info ] " << stepsInContact << " steps in contact, " << reusedSteps
              << " answered from the list (" << reusedWithNewPairs << " with pairs new to the contacts); "
              << cache.Descents() << " descents in all\n";
    EXPECT_GT(stepsInContact, cSteps / 2);
    EXPECT_GT(reusedSteps, stepsInContact / 2);
    EXPECT_GT(reusedWithNewPairs, 20);
    EXPECT_GT(cache.Descents(), 10u);
}

// B rocks against A about an axis through their contact zone (so the zone barely moves while B's far parts
// swing): the list must still see the pairs the swing brings within reach. Checks the turn's share of the
// skin test, which B's motion at the pivot alone would not cover.
TEST(ProxyPairCache, SameContactsAsFromTheRootsWhileRockingInPlace)
{
    std::mt19937 random(31);
    QueryBody a(ShapeTree("box", 1500, 6), 7);
    QueryBody b(ShapeTree("chair", 1500, 6), 7);
    const double size = a.Size() + b.Size();
    const Vec3d restCenterB = b.tree->GetModel().RestBounds().center().cast<double>();
    const Vec3d direction = RandomDirection(random);
    const Vec3d axis = direction.cross(RandomDirection(random)).normalized();
    // B's centre 0.42 of the sizes from A's, rocking about the point 0.2 of the sizes along the way.
    const Vec3d pivot = a.WorldCenter() + 0.2 * size * direction;
    const Vec3d centreB = a.WorldCenter() + 0.42 * size * direction;
    const Mat3d restRotationB = RandomRotation(random);
    ProxyPairCache cache(0.02 * size);
    int stepsInContact = 0, reusedSteps = 0;
    std::set<NodePair> seen;
    constexpr int cSteps = 300;
    for (int step = 0; step < cSteps; ++step)
    {
        const double angle = 0.2 * std::sin(6.0 * M_PI * double(step) / cSteps);
        const Mat3d rock = Eigen::AngleAxisd(angle, axis).toRotationMatrix();
        b.pose.rotation = rock * restRotationB;
        b.pose.translation = pivot + rock * (centreB - pivot) - b.pose.rotation * restCenterB;
        std::vector<ProxyContact> fromRoots, fromCache;
        QueryStats stats;
        DeformedBody bodyA = a.Body(), bodyB = b.Body();
        bodyA.inflate = 0.01 * size;
        CollideProxies(bodyA, bodyB, fromRoots, stats);
        const std::uint64_t reusesBefore = cache.Reuses();
        CollideProxiesCached(bodyA, bodyB, cache, fromCache, stats);
        ExpectSameContacts(ByNodes(fromRoots), ByNodes(fromCache), step, "the list");
        if (!fromRoots.empty())
        {
            ++stepsInContact;
            reusedSteps += cache.Reuses() > reusesBefore ? 1 : 0;
        }
        for (const ProxyContact& contact : fromRoots)
            seen.emplace(contact.nodeA, contact.nodeB);
    }
    std::cout << "[ info ] " << stepsInContact << " steps in contact, " << reusedSteps
              << " answered from the list; " << seen.size() << " proxy pairs touched over the rocking\n";
    EXPECT_GT(stepsInContact, cSteps * 3 / 4);
    EXPECT_GT(reusedSteps, stepsInContact / 3);
}

// Two boxes of 2000 triangles, B stacked on A turned by 0.3 rad, resting over a face; `height` is A's.
struct StackedBoxes
{
    QueryBody a{ShapeTree("box", 2000, 6), 10};
    QueryBody b{ShapeTree("box", 2000, 6), 10};
    double height = 0.0;
    StackedBoxes()
    {
        const auto bounds = a.tree->GetModel().RestBounds();
        height = double(bounds.max().y() - bounds.min().y());
        b.pose.rotation = Eigen::AngleAxisd(0.3, Vec3d::UnitY()).toRotationMatrix();
        b.pose.translation = Vec3d(0.2 * height, 0.99 * height, -0.1 * height);
    }
};

// Two boxes resting on each other, vibrating a little: after the first step every query is answered from
// the list, with a fraction of the descent's sphere tests.
TEST(ProxyPairCache, RestingBodiesAnswerFromTheList)
{
    std::mt19937 random(5);
    StackedBoxes boxes;
    QueryBody& a = boxes.a;
    QueryBody& b = boxes.b;
    const double height = boxes.height;
    ProxyPairCache cache(0.01 * height);
    std::uint64_t rootTests = 0, cacheTests = 0;
    constexpr int cSteps = 60;
    for (int step = 0; step < cSteps; ++step)
    {
        ASSERT_TRUE(a.state->SetQ(RandomQ(a.tree->ModeCount(), 1e-4 * a.Size(), random)));
        ASSERT_TRUE(b.state->SetQ(RandomQ(b.tree->ModeCount(), 1e-4 * b.Size(), random)));
        std::vector<ProxyContact> fromRoots, fromCache;
        QueryStats rootStats, cacheStats;
        CollideProxies(a.Body(), b.Body(), fromRoots, rootStats);
        CollideProxiesCached(a.Body(), b.Body(), cache, fromCache, cacheStats);
        ExpectSameContacts(ByNodes(fromRoots), ByNodes(fromCache), step, "the list");
        ASSERT_GT(fromRoots.size(), 10u) << "the boxes should touch over a face";
        if (step > 0)
        {
            rootTests += rootStats.overlapTests;
            cacheTests += cacheStats.overlapTests;
        }
    }
    std::cout << "[ info ] sphere tests: " << rootTests << " from the roots, " << cacheTests
              << " from the list\n";
    EXPECT_EQ(cache.Descents(), 1u);
    EXPECT_EQ(cache.Reuses(), std::uint64_t(cSteps - 1));
    EXPECT_LT(double(cacheTests), 0.5 * double(rootTests));
}

// The list's bands: unmoved bodies test only the pairs found within reach + s/4 (the descent widened by s/4
// is the oracle) and update only their proxies; B moved closer by 0.6 s tests the pairs within reach + 3s/4,
// still fewer than the list keeps; the contacts stay those of the descent from the roots.
TEST(ProxyPairCache, ASmallBoundTestsOnlyTheNearBands)
{
    StackedBoxes boxes;
    QueryBody& a = boxes.a;
    QueryBody& b = boxes.b;
    const double skin = 0.02 * boxes.height;
    ProxyPairCache cache(skin);
    // Pairs within reach + w: the descent from the roots with A's reach widened by w.
    const auto pairsWithin = [&](double inWidening) { return FoundWithin(a.Body(), b.Body(), inWidening); };
    const auto query = [&](const char* inWhat)
    {
        std::vector<ProxyContact> fromRoots, fromCache;
        QueryStats rootStats, cacheStats;
        CollideProxies(a.Body(), b.Body(), fromRoots, rootStats);
        const std::uint64_t updatesBefore = a.state->SpheresUpdated() + b.state->SpheresUpdated();
        CollideProxiesCached(a.Body(), b.Body(), cache, fromCache, cacheStats);
        ExpectSameContacts(ByNodes(fromRoots), ByNodes(fromCache), 0, inWhat);
        EXPECT_GT(fromRoots.size(), 10u) << inWhat;
        return ListQueryWork{cacheStats.overlapTests,
                             a.state->SpheresUpdated() + b.state->SpheresUpdated() - updatesBefore};
    };
    std::mt19937 random(7);
    ASSERT_TRUE(a.state->SetQ(RandomQ(a.tree->ModeCount(), 1e-4 * a.Size(), random)));
    ASSERT_TRUE(b.state->SetQ(RandomQ(b.tree->ModeCount(), 1e-4 * b.Size(), random)));
    // Closer along the boxes' stacking axis (world y).
    ExpectBandsLimitTheQueries(cache, skin, query, pairsWithin, [&] { b.pose.translation.y() -= 0.6 * skin; });
}

// A list is not used for other bodies, another bound or another scale, nor with §3.5 temporal coherence;
// the answers stay exact.
TEST(ProxyPairCache, AListOfOtherBodiesOrSettingsIsNotUsed)
{
    std::mt19937 random(9);
    QueryBody a(ShapeTree("sphere", 600, 4), 6);
    QueryBody b(ShapeTree("torus", 800, 4), 6);
    QueryBody c(ShapeTree("chair", 1500, 6), 6);
    a.pose.translation = Vec3d::Zero();
    b.pose.translation =
        Vec3d(0.5 * (a.Size() + b.Size()), 0, 0) - b.tree->GetModel().RestBounds().center().cast<double>();
    c.pose.translation =
        Vec3d(0.5 * (a.Size() + c.Size()), 0, 0) - c.tree->GetModel().RestBounds().center().cast<double>();
    ProxyPairCache cache(0.01 * a.Size());
    const auto query = [&](const DeformedBody& inA, const DeformedBody& inB, int inCase)
    {
        std::vector<ProxyContact> fromRoots, fromCache;
        QueryStats stats;
        CollideProxies(inA, inB, fromRoots, stats);
        CollideProxiesCached(inA, inB, cache, fromCache, stats);
        ASSERT_FALSE(fromRoots.empty()) << "case " << inCase << ": the bodies should touch";
        ExpectSameContacts(ByNodes(fromRoots), ByNodes(fromCache), inCase, "the list");
    };
    query(a.Body(), b.Body(), 0);
    query(a.Body(), b.Body(), 1);
    ASSERT_EQ(cache.Reuses(), 1u) << "the same bodies, unmoved: the list answers";
    ASSERT_EQ(cache.Descents(), 1u);
    query(a.Body(), c.Body(), 2); // other B
    EXPECT_EQ(cache.Descents(), 2u);
    c.state->SetBound(c.state->Bound() == EBound::Paper ? EBound::Tight : EBound::Paper);
    query(a.Body(), c.Body(), 3); // other bound
    EXPECT_EQ(cache.Descents(), 3u);
    DeformedBody scaled = c.Body();
    scaled.scale = 1.01;
    query(a.Body(), scaled, 4); // other scale
    EXPECT_EQ(cache.Descents(), 4u);
    query(a.Body(), scaled, 5);
    EXPECT_EQ(cache.Reuses(), 2u);
    a.state->SetTemporalCoherence(true);
    ASSERT_TRUE(a.state->SetQ(RandomQ(a.tree->ModeCount(), 1e-4 * a.Size(), random)));
    query(a.Body(), scaled, 6); // coherent spheres are not at q: every query descends
    query(a.Body(), scaled, 7);
    EXPECT_EQ(cache.Reuses(), 2u);
    EXPECT_EQ(cache.Descents(), 6u);
    EXPECT_FALSE(cache.Valid());
    cache.Clear();
    EXPECT_EQ(cache.Size(), 0u);
}

// Between two bodies a list that answered one query has paid (unlike `PrimitivePairCache`'s): moved beyond
// the skin after one reuse, the pair makes a new list at once. The contacts are the descent's throughout.
TEST(ProxyPairCache, AListUsedOncePaysForItsDescent)
{
    QueryBody a(ShapeTree("sphere", 600, 4), 6);
    QueryBody b(ShapeTree("torus", 800, 4), 6);
    const double skin = 0.01 * a.Size();
    ProxyPairCache cache(skin);
    double press = 0.0; // how far B is pushed into A
    const auto query = [&](const char* inWhat)
    {
        a.pose.translation = Vec3d::Zero();
        b.pose.translation = Vec3d(0.5 * (a.Size() + b.Size()) - press, 0, 0) -
                             b.tree->GetModel().RestBounds().center().cast<double>();
        std::vector<ProxyContact> fromRoots, fromCache;
        QueryStats stats;
        CollideProxies(a.Body(), b.Body(), fromRoots, stats);
        CollideProxiesCached(a.Body(), b.Body(), cache, fromCache, stats);
        ASSERT_FALSE(fromRoots.empty()) << inWhat << ": the bodies should touch";
        ExpectSameContacts(ByNodes(fromRoots), ByNodes(fromCache), 0, inWhat);
    };
    query("the list is made");
    query("unmoved");
    ASSERT_EQ(cache.Reuses(), 1u);
    press = 1.5 * skin; // beyond the skin: the list no longer answers
    query("pressed in by 1.5 skins");
    EXPECT_EQ(cache.Descents(), 2u);
    EXPECT_TRUE(cache.Valid()) << "one reuse paid: the descent made a new list";
    query("pressed, unmoved");
    EXPECT_EQ(cache.Reuses(), 2u);
}

} // namespace
} // namespace bdt
