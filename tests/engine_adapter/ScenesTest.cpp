// The pile scene: `AddPile` places its bodies where `PileTransforms` says, in a block above the ground whose
// bodies' bounding spheres do not overlap; impossible settings throw.
#include "support/BulletScenes.h"

#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <bdt/samples/Scenes.h>
#include <bdt/core/base/Error.h>
#include <gtest/gtest.h>
#include <limits>

namespace bdt
{
namespace
{

PileSettings SmallPile()
{
    PileSettings pile;
    pile.count = 11;
    pile.layers = 2;
    pile.seed = 7;
    return pile;
}

TEST(Scenes, AddPilePlacesBodiesAtPileTransforms)
{
    const auto asset = test::ShapeAsset("chair", 1000, 4);
    const PileSettings pile = SmallPile();
    const std::vector<btTransform> transforms = PileTransforms(*asset, pile);
    ASSERT_EQ(transforms.size(), pile.count);
    SampleWorld world;
    const std::vector<btRigidBody*> bodies = AddPile(world, asset, pile);
    ASSERT_EQ(bodies.size(), pile.count);
    // Bullet's transforms are the pile's (principal frames), to the float rounding of going through the mesh
    // frame (`MeshFromPrincipal`, then `CreateBody` back).
    for (std::size_t i = 0; i < bodies.size(); ++i)
    {
        EXPECT_LT((bodies[i]->getWorldTransform().getOrigin() - transforms[i].getOrigin()).length(), 1e-5f) << i;
        EXPECT_LT(bodies[i]->getWorldTransform().getRotation().angleShortestPath(transforms[i].getRotation()), 1e-5f)
            << i;
    }
}

TEST(Scenes, PileBodiesStartApartAndAboveTheGround)
{
    const auto asset = test::ShapeAsset("chair", 1000, 4);
    PileSettings pile = SmallPile();
    const std::vector<btTransform> transforms = PileTransforms(*asset, pile);
    // The root sphere about the centre of mass bounds the body in any orientation (brute force: its
    // vertices).
    double reach = 0.0;
    for (const Vec3f& p : asset->Tree().GetModel().Positions())
        reach = std::max(reach, (p.cast<double>() - asset->Mass().centerOfMass).norm());
    for (std::size_t i = 0; i < transforms.size(); ++i)
    {
        const Vec3d a(transforms[i].getOrigin().x(), transforms[i].getOrigin().y(),
                      transforms[i].getOrigin().z());
        EXPECT_GT(a.y() - reach, pile.dropHeight - 1e-6) << i;
        for (std::size_t j = i + 1; j < transforms.size(); ++j)
        {
            const Vec3d b(transforms[j].getOrigin().x(), transforms[j].getOrigin().y(),
                          transforms[j].getOrigin().z());
            EXPECT_GT((a - b).norm(), 2.0 * reach) << i << " " << j;
        }
    }
    // Deterministic for a seed; another seed turns the bodies differently.
    const std::vector<btTransform> again = PileTransforms(*asset, pile);
    for (std::size_t i = 0; i < transforms.size(); ++i)
        EXPECT_EQ(again[i].getRotation(), transforms[i].getRotation());
    pile.seed = 8;
    EXPECT_NE(PileTransforms(*asset, pile)[0].getRotation(), transforms[0].getRotation());
}

TEST(Scenes, ImpossiblePileSettingsThrow)
{
    const auto asset = test::ShapeAsset("chair", 1000, 4);
    PileSettings pile = SmallPile();
    pile.layers = 0;
    EXPECT_THROW(PileTransforms(*asset, pile), Error);
    pile = SmallPile();
    pile.spacing = -1.0;
    EXPECT_THROW(PileTransforms(*asset, pile), Error);
    pile = SmallPile();
    pile.dropHeight = std::numeric_limits<double>::quiet_NaN();
    EXPECT_THROW(PileTransforms(*asset, pile), Error);
    SampleWorld world;
    EXPECT_THROW(AddPile(world, nullptr, SmallPile()), Error);
}

} // namespace
} // namespace bdt
