// The hang scene (`AddHangScene`): a curtain on a rod, a modal chair under a swinging box, a plank on two posts
// carrying crates, all held by `World::Attach`. Over 30 s every body stays finite, every attachment holds its two
// points together, and the scene's energy (frames' kinetic and potential, modes') never rises above its start.
#include "support/BulletScenes.h"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <bdt/adapter/Scenes.h>
#include <bdt/bake/ModalBasis.h>
#include <bdt/bake/SmoothBasis.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/core/BDTree.h>
#include <bdt/core/Error.h>
#include <bdt/core/ProceduralShapes.h>
#include <cmath>
#include <gtest/gtest.h>

namespace bdt
{
namespace
{

constexpr double cStep = 1.0 / 60.0;

std::shared_ptr<const DeformableAsset> Baked(Model inModel)
{
    return DeformableAsset::Create(std::make_shared<const BDTree>(BDTree::Build(std::move(inModel))));
}

/// The scene's energy: every dynamic body's kinetic and potential energy, plus the deformables' modal energy (J).
double SceneEnergy(btDiscreteDynamicsWorld& inWorld)
{
    double energy = 0.0;
    const btCollisionObjectArray& objects = inWorld.getCollisionObjectArray();
    for (int i = 0; i < objects.size(); ++i)
    {
        const btRigidBody* body = btRigidBody::upcast(objects[i]);
        if (body == nullptr || !(body->getInvMass() > 0))
            continue;
        const double mass = 1.0 / double(body->getInvMass());
        const btVector3 spin = body->getWorldTransform().getBasis().transpose() * body->getAngularVelocity();
        const btVector3 inverse = body->getInvInertiaDiagLocal();
        for (int k = 0; k < 3; ++k)
            energy += 0.5 * double(spin[k] * spin[k] / inverse[k]);
        energy += 0.5 * mass * double(body->getLinearVelocity().length2()) +
                  mass * 9.81 * double(body->getCenterOfMassPosition().y());
        if (const DeformableShape* shape = World::Shape(const_cast<btRigidBody*>(body)))
            energy += shape->Dynamics().Energy();
    }
    return energy;
}

TEST(HangScene, EveryAttachmentHoldsAndTheSceneStaysFiniteWithoutGainingEnergy)
{
    HangAssets assets;
    ShapeMesh curtain = MakeShape(EShape::Curtain, 1500);
    assets.curtain = Baked(MakeSmoothModel(std::move(curtain.positions), std::move(curtain.triangles), 6));
    assets.chair = test::ModalShapeAsset("chair", 1500, 8, 2e6);
    assets.plank = test::ModalShapeAsset("beam", 800, 8, 2e8);
    SampleWorld world;
    const HangScene scene = AddHangScene(world, assets);
    ASSERT_EQ(scene.attachments.size(), 14u);
    EXPECT_EQ(world.Deformables().AttachmentCount(), 14u);

    const double start = SceneEnergy(world.Dynamics());
    double highest = start;
    for (int step = 0; step < 1800; ++step)
    {
        world.Step(1, cStep);
        const btCollisionObjectArray& objects = world.Dynamics().getCollisionObjectArray();
        for (int i = 0; i < objects.size(); ++i)
        {
            const btRigidBody* body = btRigidBody::upcast(objects[i]);
            ASSERT_TRUE(IsFinite(body->getWorldTransform()) && IsFinite(body->getLinearVelocity()) &&
                        IsFinite(body->getAngularVelocity()))
                << "body " << i << ", step " << step;
        }
        for (btRigidBody* body : world.Deformables().Bodies())
            for (const double q : World::Shape(body)->Dynamics().QDouble())
                ASSERT_TRUE(std::isfinite(q)) << "step " << step;
        highest = std::max(highest, SceneEnergy(world.Dynamics()));
    }
    EXPECT_EQ(world.Deformables().Stats().transformResets, 0u);
    for (const AttachmentId id : scene.attachments)
        EXPECT_LT(world.Deformables().AttachmentGap(id), 2e-3) << "attachment " << std::uint64_t(id);
    EXPECT_LE(highest, start + 1e-3 * std::abs(start)) << "start " << start;
    // Held: the crates rest on the plank, the plank between its posts, the chair under the box, the curtain on
    // its rod.
    for (const btRigidBody* crate : scene.crates)
        EXPECT_GT(crate->getCenterOfMassPosition().y(), 1.0f);
    EXPECT_NEAR(scene.plank->getCenterOfMassPosition().y(), 1.1f, 0.05f);
    EXPECT_LT(scene.chair->getCenterOfMassPosition().y(), scene.box->getCenterOfMassPosition().y() - 0.2f);
    EXPECT_GT(scene.curtain->getCenterOfMassPosition().y(), 1.5f);
}

TEST(HangScene, ANullAssetThrows)
{
    SampleWorld world;
    EXPECT_THROW(AddHangScene(world, {}), Error);
}

} // namespace
} // namespace bdt
