// The sandbox's chairs scene as a scene builder (`PileWaves`), and a pile of it made of the softest modal chairs
// the sandbox's settings allow: the run that, with the FEM vibration modes' large deformation, once made the
// surface model erase a contact in front of its list (the crossing fallbacks' indices). Sanitizer builds run it
// too (`./dev test --sanitize`), long enough for that case to come up hundreds of times.
#include "support/BulletScenes.h"

#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <bdt/adapter/World.h>
#include <bdt/core/base/Error.h>
#include <bdt/samples/PileWaves.h>
#include <cmath>
#include <gtest/gtest.h>

namespace bdt
{
namespace
{

TEST(PileWaves, DropsTheBlockOneLayerAWaveFromTheFirstLayersHeight)
{
    SampleWorld world;
    PileWavesSettings settings;
    settings.pile.count = 20;
    settings.pile.layers = 3; // 7 a layer: grids of 3 × 3, so waves of 9, 9 and 2
    settings.interval = 0.5;
    PileWaves waves(test::ShapeAsset("chair", 1500, 4), settings);
    EXPECT_EQ(waves.Count(), 20u);
    EXPECT_EQ(waves.Side(), 3u);
    EXPECT_GT(waves.CellWidth(), 0.0);

    const std::vector<btRigidBody*> first = waves.Spawn(world, 0.0);
    ASSERT_EQ(first.size(), 9u);
    EXPECT_TRUE(waves.Spawn(world, 0.49).empty());
    const std::vector<btRigidBody*> second = waves.Spawn(world, 0.5);
    ASSERT_EQ(second.size(), 9u);
    // Each wave from the first layer's height: the same grid, the same heights.
    for (std::size_t i = 0; i < 9; ++i)
        EXPECT_NEAR(first[i]->getCenterOfMassPosition().y(), second[i]->getCenterOfMassPosition().y(), 1e-5);
    EXPECT_EQ(waves.Spawn(world, 10.0).size(), 2u); // the rest, however late
    EXPECT_EQ(waves.Spawned(), 20u);
    EXPECT_TRUE(waves.Spawn(world, 11.0).empty());
    EXPECT_EQ(world.Deformables().Bodies().size(), 20u);

    EXPECT_THROW(waves.SetInterval(0.0), Error);
    EXPECT_THROW(waves.SetInterval(std::nan("")), Error);
    settings.interval = -1.0;
    EXPECT_THROW(PileWaves(test::ShapeAsset("chair", 1500, 4), settings), Error);
    settings.interval = 0.5;
    EXPECT_THROW(PileWaves(nullptr, settings), Error);
}

TEST(PileWaves, TheSoftestModalChairsFallInWavesAndStayWhole)
{
    // 27 chairs with the FEM modes of `bdt-bake --basis modal`'s material (1 MPa), the sandbox's softest: its
    // sliders' least stiffness scale (0.01) and largest strain limit (half the chair's bounding radius), no
    // damping; surface contacts; three waves 0.45 s apart from 1.8 m, as the sandbox drops them; 5 s.
    SampleWorld world;
    world.AddGroundPlane();
    PileWavesSettings settings;
    settings.pile.count = 18;
    settings.pile.layers = 2;
    settings.pile.dropHeight = 1.8;
    settings.pile.body.mass = 4.0;
    settings.pile.body.proxyLevel = 8;
    settings.pile.body.contactModel = EContactModel::Surface;
    settings.pile.body.modal.stiffnessScale = 0.01f;
    settings.pile.body.modal.dampingScale = 0.0f;
    settings.pile.body.modal.strainLimit = 0.5f;
    PileWaves waves(test::ModalShapeAsset("chair", 3000, 10, 1e6), settings);

    QueryStats work;
    for (int step = 0; step < 180; ++step)
    {
        waves.Spawn(world, step / 60.0);
        world.Step();
        work.Add(world.Deformables().Stats().narrowphase.work);
    }
    ASSERT_EQ(waves.Spawned(), 18u);
    for (btRigidBody* body : world.Deformables().Bodies())
    {
        const btVector3 centre = body->getCenterOfMassPosition();
        EXPECT_TRUE(std::isfinite(centre.x()) && std::isfinite(centre.y()) && std::isfinite(centre.z()));
        EXPECT_GT(centre.y(), 0.0f); // nothing fell through the ground
        for (const double q : World::Shape(body)->Dynamics().Q())
            EXPECT_TRUE(std::isfinite(q));
    }
    EXPECT_EQ(world.Deformables().Stats().modalResets, 0u);
    // The case that erased in front of the list: fallbacks dropped at their rest radius, in pairs that also
    // withdrew fallbacks for their surface contacts.
    EXPECT_GT(work.fallbacksApart, 20u);
    EXPECT_GT(work.fallbacksWithdrawn, 20u);
}

} // namespace
} // namespace bdt
