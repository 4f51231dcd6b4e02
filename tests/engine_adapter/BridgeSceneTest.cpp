// The bridge scene (`AddBridgeScene`): a raycast car driven from one abutment over a modal plank to the other and
// back. Its wheels press the deck (`World::WatchVehicle`): the deck bends under the car as it passes and springs
// back; the car rides on it, never sinking into it or leaving its side; the pins hold the deck's corners.
#include "support/BulletScenes.h"

#include <bdt/samples/Scenes.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/core/base/Error.h>
#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>

namespace bdt
{
namespace
{

constexpr double cStep = 1.0 / 60.0;

TEST(BridgeScene, TheCarCrossesTheBendingDeckAndComesBack)
{
    SampleWorld world;
    World& deformables = world.Deformables();
    const BridgeScene scene = AddBridgeScene(world, test::BridgePlankAsset());
    world.Step(60, cStep); // the car settles on its abutment, the deck under its own weight
    const float unloaded = deformables.SurfacePosition(scene.plank, scene.middle).y();
    double peakSag = 0.0, widestGap = 0.0;
    for (const float target : {scene.abutmentX, -scene.abutmentX})
    {
        int step = 0;
        for (; step < 600 && std::abs(scene.chassis->getCenterOfMassPosition().x() - target) > 0.3f; ++step)
        {
            DriveBridgeCar(scene, target);
            world.Step(1, cStep);
            const btVector3 at = scene.chassis->getCenterOfMassPosition();
            ASSERT_TRUE(IsFinite(scene.chassis->getWorldTransform()) && IsFinite(scene.plank->getWorldTransform()))
                << "step " << step;
            ASSERT_GT(at.y(), scene.deckHeight + 0.1f) << "towards " << target << ", step " << step
                                                       << ": the car sank into the deck at x = " << at.x();
            ASSERT_LT(std::abs(at.z()), 0.5f) << "towards " << target << ", step " << step << ": off the side";
            peakSag = std::max(peakSag, double(unloaded - deformables.SurfacePosition(scene.plank, scene.middle).y()));
            for (const AttachmentId pin : scene.pins)
                widestGap = std::max(widestGap, deformables.AttachmentGap(pin));
        }
        EXPECT_LT(step, 600) << "the car did not reach x = " << target;
    }
    EXPECT_GT(peakSag, 0.01) << "the deck hardly bent under the car: " << 1e3 * peakSag << " mm";
    EXPECT_LT(widestGap, 0.01) << "a pin let its corner go " << 1e3 * widestGap << " mm";
    // Back on its abutment, the car leaves the deck to spring back.
    world.Step(180, cStep);
    EXPECT_NEAR(deformables.SurfacePosition(scene.plank, scene.middle).y(), unloaded, 2e-3);
}

TEST(BridgeScene, ANullAssetThrows)
{
    SampleWorld world;
    EXPECT_THROW(AddBridgeScene(world, nullptr), Error);
}

} // namespace
} // namespace bdt
