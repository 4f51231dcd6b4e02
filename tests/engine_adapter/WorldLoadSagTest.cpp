// A load bends a body alike whichever way it comes: a ball resting on it, a ball hung from it by an attachment,
// `World::ApplyForce` every step, or `World::ApplyImpulse` of the force times the step. The bridge scene's
// plank and a modal slab, each pinned at its four bottom corners, sag at their middle under each: the host's
// force within 10% of the hung ball (the pins' coupled solve holds it as it holds a contact's), the resting
// ball within 20%.
#include "support/BulletScenes.h"

#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <bdt/adapter/World.h>
#include <bdt/samples/SampleWorld.h>
#include <btBulletDynamicsCommon.h>
#include <cstdio>
#include <gtest/gtest.h>
#include <memory>
#include <string>

namespace bdt
{
namespace
{

constexpr double cStep = 1.0 / 60.0;
constexpr float cBallRadius = 0.05f;

enum class ELoad : std::uint8_t
{
    None,
    Contact,    ///< A ball resting on the middle of the top (a point load, as the others).
    Attachment, ///< A ball hung from the middle of the bottom by `World::Attach`, 5 cm below it.
    Force,      ///< `ApplyForce` at the middle of the top, every step.
    Impulse,    ///< `ApplyImpulse` of the force times the step, every step.
};

struct Pinned
{
    std::string name;
    /// Bakes the body's asset when its test runs: a value made here would be baked at the start of every process
    /// of this test binary, and ctest runs each of its tests in a process of its own.
    std::shared_ptr<const DeformableAsset> (*asset)();
    double mass;          ///< kg, of the body
    btVector3 halfExtent; ///< m: the body's box (its corners are pinned)
    double load;          ///< kg, of the load
};

/// The bridge scene's plank, and a modal slab (M = 10, stiff): each made once per process, on first use.
std::shared_ptr<const DeformableAsset> PlankAsset()
{
    static const std::shared_ptr<const DeformableAsset> sAsset = test::BridgePlankAsset();
    return sAsset;
}
std::shared_ptr<const DeformableAsset> SlabAsset()
{
    static const std::shared_ptr<const DeformableAsset> sAsset = test::ModalShapeAsset("slab", 3000, 10, 2e6);
    return sAsset;
}

/// The middle of the body's top, in the world, after `inSteps` settling steps and averaged over 60 more, under
/// `inLoad`.
double MiddleHeight(const Pinned& inCase, ELoad inLoad)
{
    SampleWorld world;
    World& deformables = world.Deformables();
    const btVector3 centre(0, 2, 0);
    BodySettings settings;
    settings.mass = inCase.mass;
    settings.transform.setOrigin(centre);
    btRigidBody* body = deformables.CreateBody(inCase.asset(), settings);
    body->setDamping(0.5f, 0.5f);
    body->setActivationState(DISABLE_DEACTIVATION);
    const btVector3& h = inCase.halfExtent;
    for (const float x : {-h.x(), h.x()})
        for (const float z : {-h.z(), h.z()})
        {
            const SurfacePoint corner = deformables.ClosestSurfacePoint(body, centre + btVector3(x, -h.y(), z));
            deformables.Attach(body, corner, nullptr, deformables.SurfacePosition(body, corner));
        }
    const SurfacePoint top = deformables.ClosestSurfacePoint(body, centre + btVector3(0, h.y(), 0));
    const SurfacePoint bottom = deformables.ClosestSurfacePoint(body, centre - btVector3(0, h.y(), 0));
    const double weight = inCase.load * 9.81;
    if (inLoad == ELoad::Contact || inLoad == ELoad::Attachment)
    {
        const bool above = inLoad == ELoad::Contact;
        const btVector3 at = above ? centre + btVector3(0, h.y() + cBallRadius + 1e-3f, 0)
                                   : centre - btVector3(0, h.y() + 0.05f + cBallRadius, 0);
        btRigidBody* ball = world.AddRigid(std::make_unique<btSphereShape>(cBallRadius),
                                           btTransform(btQuaternion::getIdentity(), at), inCase.load);
        ball->setDamping(0.5f, 0.5f);
        ball->setActivationState(DISABLE_DEACTIVATION);
        if (!above)
            deformables.Attach(body, bottom, ball, btVector3(0, cBallRadius + 0.05f, 0));
    }
    double sum = 0.0;
    constexpr int cSettle = 900, cMeasured = 120;
    for (int step = 0; step < cSettle + cMeasured; ++step)
    {
        const btVector3 at = deformables.SurfacePosition(body, top);
        if (inLoad == ELoad::Force)
            deformables.ApplyForce(body, at, btVector3(0, btScalar(-weight), 0));
        else if (inLoad == ELoad::Impulse)
            deformables.ApplyImpulse(body, at, btVector3(0, btScalar(-weight * cStep), 0));
        world.Step(1, cStep);
        if (step >= cSettle)
            sum += double(deformables.SurfacePosition(body, top).y());
    }
    return sum / cMeasured;
}

class WorldLoadSag : public ::testing::TestWithParam<Pinned>
{
};

TEST_P(WorldLoadSag, ContactAttachmentForceAndImpulseBendTheBodyAlike)
{
    const Pinned& pinned = GetParam();
    const double unloaded = MiddleHeight(pinned, ELoad::None);
    const char* names[] = {"contact", "attachment", "force", "impulse"};
    double sags[4];
    for (int k = 0; k < 4; ++k)
        sags[k] = unloaded - MiddleHeight(pinned, ELoad(k + 1));
    std::printf("%s, %.0f kg at its middle: sag %.2f mm (contact), %.2f (attachment), %.2f (force), %.2f "
                "(impulse)\n",
                pinned.name.c_str(), pinned.load, 1e3 * sags[0], 1e3 * sags[1], 1e3 * sags[2], 1e3 * sags[3]);
    // Against the hung ball's sag: the host's force, and its impulse each step, within 10% (without the force
    // held in the pins' coupled solve, the plank sagged 1.4 mm under it); the resting ball within 20% (on the
    // slab it sags 18% more: not explained yet).
    const double hung = sags[1];
    ASSERT_GT(hung, 2e-3) << "a load hardly bends the " << pinned.name;
    const double tolerance[] = {0.2, 0.0, 0.1, 0.1};
    for (int k : {0, 2, 3})
        EXPECT_NEAR(sags[k], hung, tolerance[k] * hung) << names[k] << " against the attachment";
}

INSTANTIATE_TEST_SUITE_P(Bodies, WorldLoadSag,
                         ::testing::Values(Pinned{"plank", &PlankAsset, 60.0, btVector3(1.5f, 0.05f, 0.5f), 80.0},
                                           Pinned{"slab", &SlabAsset, 10.0, btVector3(0.5f, 0.05f, 0.5f), 20.0}),
                         [](const ::testing::TestParamInfo<Pinned>& inInfo) { return inInfo.param.name; });

} // namespace
} // namespace bdt
