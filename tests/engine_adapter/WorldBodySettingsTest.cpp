// BodySettings is the one home of a body's settings: every field of `DeformableShapeSettings` given in the desc is the
// shape's setting right after `World::CreateBody` (none has to be set afterwards), and a setting out of range is
// refused at creation with a one-line error and nothing added to the world.
#include "support/BulletScenes.h"

#include <bdt/adapter/World.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/base/Error.h>
#include <bdt/samples/SampleWorld.h>
#include <btBulletDynamicsCommon.h>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <string>

namespace bdt
{
namespace
{

// A desc whose every shape setting differs from its default.
BodySettings EveryShapeSettingChanged()
{
    BodySettings desc;
    desc.proxyLevel = 5;
    desc.contactModel = EContactModel::Proxies;
    desc.mass = 3.5;
    desc.modal.stiffnessScale = 2.0f;
    desc.modal.dampingScale = 0.5f;
    desc.modal.strainLimit = 0.02f;
    desc.bound = EBound::Paper;
    desc.temporalCoherence = true;
    desc.regionDepth = 2;
    desc.maxManifoldsPerPair = 5;
    desc.frontTracking = true;
    desc.pairCacheSkin = 0.035;
    desc.traversalBudget = 123;
    desc.boxCulling = true;
    return desc;
}

TEST(WorldBodySettings, EveryShapeSettingGivenInTheDescIsTheShapesAtCreation)
{
    const DeformableShapeSettings defaults;
    const BodySettings desc = EveryShapeSettingChanged();
    // The test means something only if each field differs from its default.
    ASSERT_NE(desc.proxyLevel, defaults.proxyLevel);
    ASSERT_NE(desc.contactModel, defaults.contactModel);
    ASSERT_NE(desc.mass, defaults.mass);
    ASSERT_NE(desc.modal.stiffnessScale, defaults.modal.stiffnessScale);
    ASSERT_NE(desc.bound, defaults.bound);
    ASSERT_NE(desc.temporalCoherence, defaults.temporalCoherence);
    ASSERT_NE(desc.regionDepth, defaults.regionDepth);
    ASSERT_NE(desc.maxManifoldsPerPair, defaults.maxManifoldsPerPair);
    ASSERT_NE(desc.frontTracking, defaults.frontTracking);
    ASSERT_NE(desc.pairCacheSkin, defaults.pairCacheSkin);
    ASSERT_NE(desc.traversalBudget, defaults.traversalBudget);
    ASSERT_NE(desc.boxCulling, defaults.boxCulling);

    SampleWorld world;
    btRigidBody* body = world.Deformables().CreateBody(test::ShapeAsset("box", 300, 4), desc);
    const DeformableShape* shape = World::Shape(body);
    ASSERT_NE(shape, nullptr);
    const DeformableShapeSettings& made = shape->Settings();
    EXPECT_EQ(made.proxyLevel, desc.proxyLevel);
    EXPECT_EQ(shape->State().Proxies().Level(), desc.proxyLevel);
    EXPECT_EQ(made.contactModel, desc.contactModel);
    EXPECT_EQ(made.mass, desc.mass);
    EXPECT_EQ(made.modal.stiffnessScale, desc.modal.stiffnessScale);
    EXPECT_EQ(made.modal.dampingScale, desc.modal.dampingScale);
    EXPECT_EQ(made.modal.strainLimit, desc.modal.strainLimit);
    EXPECT_EQ(made.bound, desc.bound);
    EXPECT_EQ(made.temporalCoherence, desc.temporalCoherence);
    EXPECT_EQ(made.regionDepth, desc.regionDepth);
    EXPECT_EQ(made.maxManifoldsPerPair, desc.maxManifoldsPerPair);
    EXPECT_EQ(made.frontTracking, desc.frontTracking);
    EXPECT_EQ(made.pairCacheSkin, desc.pairCacheSkin);
    EXPECT_EQ(made.traversalBudget, desc.traversalBudget);
    EXPECT_EQ(made.boxCulling, desc.boxCulling);
    // The rigid body takes the same mass.
    EXPECT_NEAR(1.0 / double(body->getInvMass()), desc.mass, 1e-5 * desc.mass);
}

TEST(WorldBodySettings, AStaticBodysShapeTakesOneKilogramForItsModes)
{
    SampleWorld world;
    BodySettings desc;
    desc.mass = 0.0;
    btRigidBody* body = world.Deformables().CreateBody(test::ShapeAsset("box", 300, 4), desc);
    EXPECT_EQ(body->getInvMass(), 0.0f);
    EXPECT_EQ(World::Shape(body)->Settings().mass, 1.0);
}

TEST(WorldBodySettings, AShapeSettingOutOfRangeIsRefusedAtCreationAndNothingIsAdded)
{
    struct Case
    {
        const char* name;
        void (*spoil)(BodySettings&);
        const char* message; // a part of the one-line error
    };
    const Case cases[] = {
        {"no manifolds", [](BodySettings& d) { d.maxManifoldsPerPair = 0; }, "maxManifoldsPerPair"},
        {"negative skin", [](BodySettings& d) { d.pairCacheSkin = -0.01; }, "pairCacheSkin"},
        {"NaN skin", [](BodySettings& d) { d.pairCacheSkin = std::numeric_limits<double>::quiet_NaN(); }, "pairCacheSkin"},
        {"tiny mass", [](BodySettings& d) { d.mass = 1e-9; }, "mass"},
        {"zero stiffness", [](BodySettings& d) { d.modal.stiffnessScale = 0.0f; }, "stiffness"},
    };
    SampleWorld world;
    const auto asset = test::ShapeAsset("box", 300, 4);
    for (const Case& c : cases)
    {
        BodySettings desc;
        c.spoil(desc);
        const std::size_t before = world.Deformables().Bodies().size();
        const int objectsBefore = world.Dynamics().getNumCollisionObjects();
        try
        {
            world.Deformables().CreateBody(asset, desc);
            ADD_FAILURE() << c.name << ": accepted";
        }
        catch (const Error& e)
        {
            const std::string what = e.what();
            EXPECT_NE(what.find(c.message), std::string::npos) << c.name << ": " << what;
            EXPECT_EQ(what.find('\n'), std::string::npos) << c.name << ": not one line";
        }
        EXPECT_EQ(world.Deformables().Bodies().size(), before) << c.name;
        EXPECT_EQ(world.Dynamics().getNumCollisionObjects(), objectsBefore) << c.name;
    }
}

} // namespace
} // namespace bdt
