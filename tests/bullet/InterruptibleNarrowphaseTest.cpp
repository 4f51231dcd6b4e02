// The interruptible narrowphase between deformables (`DeformableShapeSettings::traversalBudget`, Mendoza &
// O'Sullivan 2006): a pile whose pairs may test only a few spheres each step still stands up (coarser
// spheres become the contacts), with far fewer tests than the full descent.
#include "support/BulletScenes.h"

#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <bdt/adapter/Scenes.h>
#include <bdt/adapter/World.h>
#include <cmath>
#include <gtest/gtest.h>
#include <iostream>

namespace bdt
{
namespace
{

struct BudgetPile
{
    explicit BudgetPile(std::uint32_t inBudget)
    {
        world.AddGroundPlane();
        PileSettings pile;
        pile.count = 12;
        pile.layers = 3;
        pile.body.mass = 4.0;
        pile.body.proxyLevel = 8;
        bodies = AddPile(world, test::ShapeAsset("chair", 3000, 10), pile);
        for (btRigidBody* body : bodies)
        {
            DeformableShape& shape = *World::Shape(body);
            DeformableShapeSettings settings = shape.Settings();
            settings.traversalBudget = inBudget;
            shape.SetSettings(settings);
        }
    }

    double MeanHeight() const
    {
        double sum = 0.0;
        for (btRigidBody* body : bodies)
            sum += body->getWorldTransform().getOrigin().y();
        return sum / double(bodies.size());
    }

    SampleWorld world;
    std::vector<btRigidBody*> bodies;
    std::uint64_t overlapTests = 0;
};

// 12 chairs in three layers dropped and settled for 4 s, once with every pair limited to 6 sphere tests a step
// and once without a limit: the limited pile makes under half the tests, no chair goes through the ground or
// sinks into the pile (its mean height stays within 10% of the full pile's), nothing becomes non-finite, and
// it comes to rest.
TEST(InterruptibleNarrowphase, PileWithATinyBudgetStillStands)
{
    BudgetPile full(0), limited(6);
    for (int step = 0; step < 240; ++step)
    {
        full.world.Step(1, 1.0 / 60.0);
        limited.world.Step(1, 1.0 / 60.0);
        full.overlapTests += full.world.Deformables().Stats().overlapTests;
        limited.overlapTests += limited.world.Deformables().Stats().overlapTests;
    }
    std::cout << "[ info ] tests: " << limited.overlapTests << " limited, " << full.overlapTests
              << " full; mean height " << limited.MeanHeight() << " m limited, " << full.MeanHeight() << " m full\n";
    EXPECT_LT(double(limited.overlapTests), 0.5 * double(full.overlapTests));
    EXPECT_NEAR(limited.MeanHeight(), full.MeanHeight(), 0.1 * full.MeanHeight());
    EXPECT_EQ(limited.world.Deformables().Stats().transformResets + limited.world.Deformables().Stats().modalResets, 0u);
    for (btRigidBody* body : limited.bodies)
    {
        EXPECT_GT(test::LowestVertexHeight(*body), -0.02);
        EXPECT_LT(test::MaxPointSpeed(*body), 0.5);
    }
}

} // namespace
} // namespace bdt
