// The narrowphase modes between deformables that change the contacts: the interruptible traversal
// (`DeformableShapeSettings::traversalBudget`, Mendoza & O'Sullivan 2006: a pile whose pairs may test only a
// few spheres each step still stands up, coarser spheres becoming the contacts) and BD-AABB box culling
// (`boxCulling`, §3.5: the same contacts, so the same world).
#include "support/BulletScenes.h"

#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <algorithm>
#include <bdt/samples/Scenes.h>
#include <bdt/adapter/World.h>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <iostream>

namespace bdt
{
namespace
{

// 12 chairs in three layers on the ground, every body with `inSettings` applied to its narrowphase settings.
// The modes compared are those of the sphere descent (a traversal budget, box culling), which the surface model
// uses with its contact pieces off: with them a pair descends by boxes to its contact cut (`PieceDescent.h`).
struct ModePile
{
    explicit ModePile(const std::function<void(DeformableShapeSettings&)>& inSettings)
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
            settings.pieceTolerance = 0.0;
            inSettings(settings);
            shape.SetSettings(settings);
        }
    }

    /// The deepest overlap of two chairs' surfaces (`test::DeepestOverlap`), the points within 1 cm into
    /// `outNear`.
    double DeepestOverlap(int& outNear) { return test::DeepestOverlap(world, bodies, &outNear); }

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

// Steps both piles `inSteps` steps at 60 Hz, adding up their sphere (or box) tests.
void RunSideBySide(ModePile& ioA, ModePile& ioB, int inSteps)
{
    for (int step = 0; step < inSteps; ++step)
    {
        ioA.world.Step(1, 1.0 / 60.0);
        ioB.world.Step(1, 1.0 / 60.0);
        ioA.overlapTests += ioA.world.Deformables().Stats().overlapTests;
        ioB.overlapTests += ioB.world.Deformables().Stats().overlapTests;
    }
}

// 12 chairs in three layers dropped and settled for 10 s, once with every pair limited to 6 sphere tests a step
// and once without a limit: the limited pile makes under half the tests, no chair goes through the ground,
// nothing becomes non-finite, and it comes to rest (the two settle at different times, between 4 and 9 s in the
// builds tried, so the check waits for 10 s). How many chairs stay stacked is chaotic (it changes with the build
// and the settings), so the piles' mean heights are printed, not compared. So is how far chairs sink into each
// other: the coarse spheres that stand in for a cut pair do not keep two surfaces apart, and the deepest overlap
// at the end changes with the tree and the budget, up to centimetres (docs/TUNING.md). It is printed.
TEST(InterruptibleNarrowphase, PileWithATinyBudgetStillStands)
{
    ModePile full([](DeformableShapeSettings&) {});
    ModePile limited([](DeformableShapeSettings& ioSettings) { ioSettings.traversalBudget = 6; });
    RunSideBySide(full, limited, 600);
    std::cout << "[ info ] tests: " << limited.overlapTests << " limited, " << full.overlapTests
              << " full; mean height " << limited.MeanHeight() << " m limited, " << full.MeanHeight()
              << " m full\n";
    EXPECT_LT(double(limited.overlapTests), 0.5 * double(full.overlapTests));
    int near = 0;
    const double overlap = limited.DeepestOverlap(near);
    std::cout << "[ info ] limited: " << near << " contact points of two chairs within 1 cm, deepest overlap "
              << overlap << " m\n";
    EXPECT_TRUE(std::isfinite(overlap));
    EXPECT_EQ(limited.world.Deformables().Stats().transformResets +
                  limited.world.Deformables().Stats().modalResets,
              0u);
    for (btRigidBody* body : limited.bodies)
    {
        EXPECT_GT(test::LowestVertexHeight(*body), -0.02);
        EXPECT_LT(test::MaxPointSpeed(*body), 0.5);
    }
}

// The same pile with every deformable pair culled by BD-AABB boxes beside the spheres: the same contacts, so
// the world steps bit for bit as with spheres alone, through the drop and the settling.
TEST(BoxCulledNarrowphase, PileStepsIdenticallyWithBoxCulling)
{
    ModePile spheres([](DeformableShapeSettings&) {});
    ModePile boxes([](DeformableShapeSettings& ioSettings) { ioSettings.boxCulling = true; });
    int differing = 0;
    for (int step = 0; step < 240; ++step)
    {
        spheres.world.Step(1, 1.0 / 60.0);
        boxes.world.Step(1, 1.0 / 60.0);
        spheres.overlapTests += spheres.world.Deformables().Stats().overlapTests;
        boxes.overlapTests += boxes.world.Deformables().Stats().overlapTests;
        differing += test::RawBodyState(spheres.bodies) == test::RawBodyState(boxes.bodies) ? 0 : 1;
    }
    std::cout << "[ info ] bounding-volume tests: " << boxes.overlapTests
              << " with boxes (spheres and boxes), " << spheres.overlapTests << " with spheres\n";
    EXPECT_EQ(differing, 0);
    EXPECT_GT(boxes.overlapTests, 0u);
}

} // namespace
} // namespace bdt
