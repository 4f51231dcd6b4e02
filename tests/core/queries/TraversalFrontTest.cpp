// Front tracking (TraversalFront): the descent from last step's front finds exactly what the descent from the
// roots finds, step after step, while the bodies move, deform, separate and change proxy level; and it
// saves sphere tests while they rest on each other.
#include "support/ProxyContactComparison.h"
#include "support/QueryOracles.h"
#include "support/TestModels.h"

#include "core/queries/CoherentQueries.h"
#include "core/queries/TraversalFront.h"

#include <algorithm>
#include <bdt/core/queries/TreeQueries.h>
#include <cmath>
#include <gtest/gtest.h>
#include <iostream>
#include <map>
#include <random>
#include <utility>
#include <vector>

namespace bdt
{
namespace
{

using namespace test;
// B moves along a path through A (approach, rest, slide, leave, come back) while both vibrate; the proxy
// levels change in the middle. Each step, the query from the front must equal the query from the roots.
TEST(TraversalFront, SameContactsAsFromTheRootsAlongAPath)
{
    std::mt19937 random(41);
    QueryBody a(ShapeTree("chair", 1500, 6), 6);
    QueryBody b(ShapeTree("torus", 1000, 4), 6);
    a.pose.rotation = RandomRotation(random);
    b.pose.rotation = RandomRotation(random);
    const double reach = 0.6 * (a.Size() + b.Size());
    const Vec3d direction = RandomDirection(random);
    const Vec3d side = direction.cross(RandomDirection(random)).normalized();
    const Vec3d restCenterB = b.tree->GetModel().RestBounds().center().cast<double>();

    TraversalFront front;
    std::uint64_t stepsInContact = 0, frontPairs = 0;
    constexpr int cSteps = 240;
    for (int step = 0; step < cSteps; ++step)
    {
        const double t = double(step) / cSteps;
        // Distance between the centres: from apart, in to 0.5 reach, resting, out, back in.
        const double distance = reach * (1.4 - 0.9 * std::sin(3.0 * M_PI * t) * std::sin(3.0 * M_PI * t));
        const Vec3d target = a.WorldCenter() + distance * direction + 0.2 * reach * std::sin(5.0 * t) * side;
        b.pose.translation = target - b.pose.rotation * restCenterB;
        const double amplitude = 0.02 * (1.0 + std::sin(17.0 * t));
        ASSERT_TRUE(a.state->SetQ(RandomQ(a.tree->ModeCount(), amplitude * a.Size(), random)));
        ASSERT_TRUE(b.state->SetQ(RandomQ(b.tree->ModeCount(), amplitude * b.Size(), random)));
        if (step == cSteps / 2)
        {
            a.SetLevel(8);
            b.SetLevel(5);
        }

        std::vector<ProxyContact> fromRoots, fromFront;
        QueryStats rootStats, frontStats;
        CollideProxies(a.Body(), b.Body(), fromRoots, rootStats);
        CollideProxiesFromFront(a.Body(), b.Body(), front, fromFront, frontStats);
        ExpectSameContacts(ByNodes(fromRoots), ByNodes(fromFront), step, "the front");
        EXPECT_EQ(frontStats.contacts, fromFront.size());
        if (!fromRoots.empty())
        {
            ++stepsInContact;
            frontPairs += front.Size();
        }
    }
    // The path does make contact for a good share of the steps, and the front is kept for them.
    EXPECT_GT(stepsInContact, cSteps / 4u);
    EXPECT_GT(frontPairs, 0u);
    std::cout << "[ info ] " << stepsInContact << " steps in contact\n";
}

// Two bodies resting on each other, vibrating a little: after the first step the front is reused and the
// queries need markedly fewer sphere tests than descents from the roots.
TEST(TraversalFront, RestingContactNeedsFewerTests)
{
    std::mt19937 random(5);
    QueryBody a(ShapeTree("box", 2000, 6), 10);
    QueryBody b(ShapeTree("box", 2000, 6), 10);
    a.pose.translation = Vec3d::Zero();
    const auto bounds = a.tree->GetModel().RestBounds();
    const double height = double(bounds.max().y() - bounds.min().y());
    // B sits on A's top face, offset and turned about y, its bottom face 1 % of the height into A.
    b.pose.rotation = Eigen::AngleAxisd(0.3, Vec3d::UnitY()).toRotationMatrix();
    b.pose.translation = Vec3d(0.2 * height, 0.99 * height, -0.1 * height);

    TraversalFront front;
    std::uint64_t rootTests = 0, frontTests = 0;
    for (int step = 0; step < 60; ++step)
    {
        ASSERT_TRUE(a.state->SetQ(RandomQ(a.tree->ModeCount(), 1e-3 * a.Size(), random)));
        ASSERT_TRUE(b.state->SetQ(RandomQ(b.tree->ModeCount(), 1e-3 * b.Size(), random)));
        std::vector<ProxyContact> fromRoots, fromFront;
        QueryStats rootStats, frontStats;
        CollideProxies(a.Body(), b.Body(), fromRoots, rootStats);
        CollideProxiesFromFront(a.Body(), b.Body(), front, fromFront, frontStats);
        ExpectSameContacts(ByNodes(fromRoots), ByNodes(fromFront), step, "the front");
        ASSERT_GT(fromRoots.size(), 10u) << "the boxes should touch over a face";
        if (step > 0)
        {
            rootTests += rootStats.overlapTests;
            frontTests += frontStats.overlapTests;
        }
    }
    std::cout << "[ info ] sphere tests: " << rootTests << " from the roots, " << frontTests
              << " from the front\n";
    EXPECT_LT(double(frontTests), 0.8 * double(rootTests));
}

// Two chairs resting on each other, vibrating a little: most of the front's pairs missed by more than any gap
// can have closed since, and are carried over without computing their spheres; the contacts stay exact.
TEST(TraversalFront, RestingPairsAreCarriedOnTheirClearance)
{
    std::mt19937 random(7);
    QueryBody a(ShapeTree("chair", 3000, 8), 8);
    QueryBody b(ShapeTree("chair", 3000, 8), 8);
    const auto bounds = a.tree->GetModel().RestBounds();
    const double height = double(bounds.max().y() - bounds.min().y());
    b.pose.rotation = Eigen::AngleAxisd(0.3, Vec3d::UnitY()).toRotationMatrix();
    b.pose.translation = Vec3d(0.2 * height, 0.97 * height, -0.1 * height);

    TraversalFront front;
    std::uint64_t carried = 0, frontPairs = 0, rootUpdates = 0, frontUpdates = 0;
    for (int step = 0; step < 80; ++step)
    {
        ASSERT_TRUE(a.state->SetQ(RandomQ(a.tree->ModeCount(), 1e-4 * a.Size(), random)));
        ASSERT_TRUE(b.state->SetQ(RandomQ(b.tree->ModeCount(), 1e-4 * b.Size(), random)));
        std::vector<ProxyContact> fromRoots, fromFront;
        QueryStats rootStats, frontStats;
        a.state->ResetCounters();
        b.state->ResetCounters();
        CollideProxies(a.Body(), b.Body(), fromRoots, rootStats);
        const std::uint64_t afterRoots = a.state->SpheresUpdated() + b.state->SpheresUpdated();
        const std::size_t frontSize = front.Size();
        CollideProxiesFromFront(a.Body(), b.Body(), front, fromFront, frontStats);
        ASSERT_GT(fromRoots.size(), 5u) << "the chairs should touch";
        ExpectSameContacts(ByNodes(fromRoots), ByNodes(fromFront), step, "the front");
        if (step > 0)
        {
            carried += front.Skipped();
            frontPairs += frontSize;
            rootUpdates += afterRoots;
            frontUpdates += a.state->SpheresUpdated() + b.state->SpheresUpdated() - afterRoots;
        }
    }
    std::cout << "[ info ] " << carried << " of " << frontPairs << " front pairs carried untested; sphere updates "
              << rootUpdates << " from the roots, " << frontUpdates << " from the front\n";
    EXPECT_GT(double(carried), 0.3 * double(frontPairs));
    EXPECT_LT(frontUpdates, rootUpdates);
}

// A front whose pairs are being carried on their clearances meets a sudden change: B jumps towards A, turns,
// the modes jump, the bound kind or B's scale or inflate changes, §3.5 temporal coherence is switched on, or
// the front is asked about other bodies of the same trees. Every query must still equal the descent from the
// roots, step by step.
TEST(TraversalFront, SuddenChangesAfterCarriedPairsStayExact)
{
    const auto tree = ShapeTree("chair", 2000, 6);
    enum class EChange { Jump, Turn, Modes, Bound, Scale, Inflate, Coherence, OtherBodies };
    for (const EChange change : {EChange::Jump, EChange::Turn, EChange::Modes, EChange::Bound, EChange::Scale,
                                 EChange::Inflate, EChange::Coherence, EChange::OtherBodies})
    {
        std::mt19937 random(11 + int(change));
        QueryBody a(tree, 8), b(tree, 8), c(tree, 8), d(tree, 8);
        const auto bounds = tree->GetModel().RestBounds();
        const double height = double(bounds.max().y() - bounds.min().y());
        b.pose.rotation = Eigen::AngleAxisd(0.3, Vec3d::UnitY()).toRotationMatrix();
        b.pose.translation = Vec3d(0.2 * height, 0.97 * height, -0.1 * height);
        c.pose = b.pose; // c and d: other bodies of the same tree, c above d as b above a but deeper in
        c.pose.translation.y() = 0.9 * height;
        double scaleB = 1.0, inflateB = 0.0;
        TraversalFront front;
        std::size_t carriedBefore = 0;
        std::vector<std::pair<std::uint32_t, std::uint32_t>> contactsBefore, contactsAfter; // steps 19 and 20
        for (int step = 0; step < 30; ++step)
        {
            const bool changed = step >= 20;
            // (The bound kinds differ only where q is large.)
            const double amplitude = change == EChange::Modes && changed ? 0.1 : change == EChange::Bound ? 4e-3 : 1e-4;
            for (QueryBody* body : {&a, &b, &c, &d})
                ASSERT_TRUE(body->state->SetQ(RandomQ(tree->ModeCount(), amplitude * body->Size(), random)));
            if (step == 20)
            {
                carriedBefore = front.Skipped();
                switch (change)
                {
                case EChange::Jump: b.pose.translation.y() -= 0.05 * height; break;
                case EChange::Turn:
                    b.pose.rotation = Eigen::AngleAxisd(0.35, Vec3d::UnitZ()).toRotationMatrix() * b.pose.rotation;
                    break;
                case EChange::Modes: break; // the amplitude above
                case EChange::Bound: a.state->SetBound(EBound::Paper); break;
                case EChange::Scale: scaleB = 1.04; break;
                case EChange::Inflate: inflateB = 0.03 * height; break;
                case EChange::Coherence: a.state->SetTemporalCoherence(true); break;
                case EChange::OtherBodies: break; // the bodies queried below
                }
            }
            const bool others = change == EChange::OtherBodies && changed;
            DeformedBody bodyA = others ? d.Body() : a.Body();
            DeformedBody bodyB = others ? c.Body() : b.Body();
            bodyB.scale = scaleB;
            bodyB.inflate = inflateB;
            std::vector<ProxyContact> fromRoots, fromFront;
            QueryStats rootStats, frontStats;
            CollideProxies(bodyA, bodyB, fromRoots, rootStats);
            CollideProxiesFromFront(bodyA, bodyB, front, fromFront, frontStats);
            ExpectSameContacts(ByNodes(fromRoots), ByNodes(fromFront), step, "the front");
            if (step == 19 || step == 20)
                for (const auto& [nodes, contact] : ByNodes(fromRoots))
                    (step == 19 ? contactsBefore : contactsAfter).push_back(nodes);
        }
        // The change met a front that was carrying pairs, and the moves made contacts that were not there.
        EXPECT_GT(carriedBefore, 0u) << "change " << int(change);
        if (change == EChange::Jump || change == EChange::Turn || change == EChange::Modes || change == EChange::Inflate)
        {
            const bool newContact = std::any_of(contactsAfter.begin(), contactsAfter.end(), [&](const auto& inNodes)
            { return std::find(contactsBefore.begin(), contactsBefore.end(), inNodes) == contactsBefore.end(); });
            EXPECT_TRUE(newContact) << "change " << int(change);
        }
    }
}

// A front made for other trees is not reused: the query starts from the roots and is still exact.
TEST(TraversalFront, AFrontOfOtherBodiesIsNotReused)
{
    std::mt19937 random(9);
    QueryBody a(ShapeTree("sphere", 600, 4), 6);
    QueryBody b(ShapeTree("torus", 800, 4), 6);
    QueryBody c(ShapeTree("chair", 1500, 6), 6);
    a.pose.translation = Vec3d::Zero();
    const double reach = 0.5 * (a.Size() + b.Size());
    b.pose.translation = Vec3d(reach, 0, 0) - b.tree->GetModel().RestBounds().center().cast<double>();
    c.pose.translation =
        Vec3d(0.5 * (a.Size() + c.Size()), 0, 0) - c.tree->GetModel().RestBounds().center().cast<double>();
    TraversalFront front;
    std::vector<ProxyContact> scratch;
    QueryStats stats;
    CollideProxiesFromFront(a.Body(), b.Body(), front, scratch, stats);
    ASSERT_GT(front.Size(), 0u) << "a and b should touch";
    std::vector<ProxyContact> fromRoots, fromFront;
    CollideProxies(a.Body(), c.Body(), fromRoots, stats);
    CollideProxiesFromFront(a.Body(), c.Body(), front, fromFront, stats);
    ASSERT_FALSE(fromRoots.empty()) << "a and c should touch";
    ExpectSameContacts(ByNodes(fromRoots), ByNodes(fromFront), 0, "the front");
    front.Clear();
    EXPECT_EQ(front.Size(), 0u);
}

} // namespace
} // namespace bdt
