// bdt::World::Attach: a deformable's surface point held to the world, to a rigid body or to another deformable's
// surface point, frame and modes together. After 5 s hanging under gravity the deformed point is within 1 mm of
// its target (modal and smooth bases, proxy levels 6 and 14); a pinned chair swinging for 10,000 steps never
// gains energy; a spring attachment stretches by m·g/k; bad input is refused and DestroyBody detaches.
#include "support/BulletScenes.h"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletDynamics/ConstraintSolver/btPoint2PointConstraint.h>
#include <bdt/samples/SampleWorld.h>
#include <bdt/adapter/World.h>
#include <bdt/bake/ModalBasis.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/base/Error.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <btBulletDynamicsCommon.h>
#include <algorithm>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <limits>
#include <memory>
#include <string>

namespace bdt
{
namespace
{

constexpr double cStep = 1.0 / 60.0;
constexpr double cGravity = 9.81;
const btVector3 cBackCorner(0.225f, 0.45f, -0.225f); // the chair's top back corner, mesh frame (ChairParts)

std::shared_ptr<const DeformableAsset> Chair(bool inModal)
{
    return inModal ? test::ModalShapeAsset("chair", 1500, 8, 2e6) : test::ShapeAsset("chair", 1500, 8);
}

/// A 4 kg chair upright at `inOrigin` (mesh frame), proxies at `inLevel`, damped as a user settling a scene would,
/// kept awake.
btRigidBody* AddChair(SampleWorld& ioWorld, bool inModal, std::uint32_t inLevel, const btVector3& inOrigin,
                      float inDamping = 0.8f)
{
    BodySettings desc;
    desc.mass = 4.0;
    desc.proxyLevel = inLevel;
    desc.transform.setOrigin(inOrigin);
    btRigidBody* chair = ioWorld.Deformables().CreateBody(Chair(inModal), desc);
    chair->setDamping(inDamping, inDamping);
    chair->setActivationState(DISABLE_DEACTIVATION); // a slow swing is not rest: judge the hanging, not sleep
    return chair;
}

/// The surface point at the chair's top back corner.
SurfacePoint CornerOf(World& ioWorld, btRigidBody* inChair, const btVector3& inCorner = cBackCorner)
{
    return ioWorld.ClosestSurfacePoint(inChair, ioWorld.MeshTransform(inChair) * inCorner);
}

/// Frame kinetic and potential energy plus the modes' energy (J).
double Energy(btRigidBody& inBody)
{
    const double mass = 1.0 / double(inBody.getInvMass());
    const btVector3 local = inBody.getWorldTransform().getBasis().transpose() * inBody.getAngularVelocity();
    const btVector3 inverse = inBody.getInvInertiaDiagLocal();
    double rotation = 0.0;
    for (int k = 0; k < 3; ++k)
        rotation += 0.5 * double(local[k] * local[k] / inverse[k]);
    return 0.5 * mass * double(inBody.getLinearVelocity().length2()) + rotation +
           mass * cGravity * double(inBody.getCenterOfMassPosition().y()) +
           World::Shape(&inBody)->Dynamics().Energy();
}

struct Case
{
    bool modal;
    std::uint32_t level;
};

class WorldSurfaceAttachment : public ::testing::TestWithParam<Case>
{
};

// Pinned to the world where the corner is, the chair swings down and hangs from it.
TEST_P(WorldSurfaceAttachment, AChairHungFromTheWorldHoldsItsCornerOnThePin)
{
    SampleWorld world;
    btRigidBody* chair = AddChair(world, GetParam().modal, GetParam().level, btVector3(0, 2, 0));
    const SurfacePoint corner = CornerOf(world.Deformables(), chair);
    const btVector3 pin = world.Deformables().SurfacePosition(chair, corner);
    const AttachmentId id = world.Deformables().Attach(chair, corner, nullptr, pin);
    world.Step(300, cStep);
    EXPECT_LT((world.Deformables().SurfacePosition(chair, corner) - pin).length(), 1e-3f);
    EXPECT_NEAR(world.Deformables().AttachmentGap(id), double((world.Deformables().SurfacePosition(chair, corner) - pin).length()), 1e-6);
    // It hangs: its centre of mass under the pin.
    const btVector3 centre = chair->getCenterOfMassPosition();
    EXPECT_LT(std::hypot(centre.x() - pin.x(), centre.z() - pin.z()), 0.02f);
    EXPECT_LT(centre.y(), pin.y() - 0.2f);
}

// Hung from the bottom corner of a 20 kg box that itself hangs from the world by Bullet's ball joint.
TEST_P(WorldSurfaceAttachment, AChairHungFromARigidBoxHoldsItsCornerOnTheBox)
{
    SampleWorld world;
    const btVector3 half(0.2f, 0.2f, 0.2f);
    btRigidBody* box = world.AddRigid(std::make_unique<btBoxShape>(half),
                                      btTransform(btQuaternion::getIdentity(), btVector3(0, 3.5f, 0)), 20.0);
    box->setDamping(0.3f, 0.3f);
    auto hook = std::make_unique<btPoint2PointConstraint>(*box, btVector3(0, half.y(), 0));
    world.Dynamics().addConstraint(hook.get());
    btRigidBody* chair = AddChair(world, GetParam().modal, GetParam().level, btVector3(0.2f, 2.6f, 0.2f));
    const SurfacePoint corner = CornerOf(world.Deformables(), chair);
    const btVector3 onBox(half.x(), -half.y(), half.z());
    world.Deformables().Attach(chair, corner, box, onBox);
    world.Step(300, cStep);
    const btVector3 target = box->getWorldTransform() * onBox;
    EXPECT_LT((world.Deformables().SurfacePosition(chair, corner) - target).length(), 1e-3f);
    EXPECT_LT(chair->getCenterOfMassPosition().y(), target.y() - 0.2f);
    world.Dynamics().removeConstraint(hook.get());
}

// A chair hung by its back corner from the world, a second chair hung by its back corner from the first one's
// front leg: both deformed points held, both bodies' modes taking the impulses.
TEST_P(WorldSurfaceAttachment, AChairHungFromAnotherChairHoldsBothSurfacePoints)
{
    SampleWorld world;
    btRigidBody* upper = AddChair(world, GetParam().modal, GetParam().level, btVector3(0, 3, 0));
    btRigidBody* lower = AddChair(world, GetParam().modal, GetParam().level, btVector3(0.2f, 2.1f, 0.2f));
    World& deformables = world.Deformables();
    const SurfacePoint top = CornerOf(deformables, upper);
    const btVector3 pin = deformables.SurfacePosition(upper, top);
    deformables.Attach(upper, top, nullptr, pin);
    const SurfacePoint leg = CornerOf(deformables, upper, btVector3(0.2f, -0.45f, 0.2f));
    const SurfacePoint back = CornerOf(deformables, lower);
    deformables.Attach(lower, back, upper, leg);
    world.Step(300, cStep);
    EXPECT_LT((deformables.SurfacePosition(upper, top) - pin).length(), 1e-3f);
    EXPECT_LT((deformables.SurfacePosition(lower, back) - deformables.SurfacePosition(upper, leg)).length(), 1e-3f);
    EXPECT_LT(lower->getCenterOfMassPosition().y(), upper->getCenterOfMassPosition().y() - 0.2f);
}

INSTANTIATE_TEST_SUITE_P(Bases, WorldSurfaceAttachment,
                         ::testing::Values(Case{true, 6}, Case{true, 14}, Case{false, 6}, Case{false, 14}),
                         [](const ::testing::TestParamInfo<Case>& inInfo)
                         {
                             return std::string(inInfo.param.modal ? "Modal" : "Smooth") + "L" +
                                    std::to_string(inInfo.param.level);
                         });

/// How the energy of a chair swinging from a pin at its top back corner, placed where the corner stands (its
/// centre of mass is not under it, so it swings), undamped, goes over 10,000 steps (J).
struct Swing
{
    double start = 0.0, highest = 0.0, lowest = 0.0;
    double highestLate = 0.0; ///< Over the last 5000 steps.
    float pinError = 0.0f;    ///< m, at the end.
};

/// `inBulletPin`: the plugin's modes off (`SetRigid`) and Bullet's own ball joint on the frame, the reference;
/// otherwise `World::Attach` on the modal chair. Both correct the pin's error by `inErp`.
Swing SwingChair(bool inBulletPin, double inErp)
{
    SampleWorld world;
    btRigidBody* chair = AddChair(world, true, 8, btVector3(0, 2, 0), 0.0f);
    const SurfacePoint corner = CornerOf(world.Deformables(), chair);
    const btVector3 pin = world.Deformables().SurfacePosition(chair, corner);
    std::unique_ptr<btPoint2PointConstraint> joint;
    if (inBulletPin)
    {
        world.Deformables().SetRigid(true);
        joint = std::make_unique<btPoint2PointConstraint>(*chair, chair->getWorldTransform().inverse() * pin);
        joint->setParam(BT_CONSTRAINT_ERP, btScalar(inErp));
        world.Dynamics().addConstraint(joint.get());
    }
    else
    {
        AttachmentSettings settings;
        settings.erp = inErp;
        world.Deformables().Attach(chair, corner, nullptr, pin, settings);
    }
    Swing swing;
    swing.start = swing.highest = swing.lowest = Energy(*chair);
    swing.highestLate = -std::numeric_limits<double>::infinity();
    for (int i = 0; i < 10000; ++i)
    {
        world.Step(1, cStep);
        const double energy = Energy(*chair);
        EXPECT_TRUE(std::isfinite(energy)) << "step " << i;
        swing.highest = std::max(swing.highest, energy);
        swing.lowest = std::min(swing.lowest, energy);
        if (i >= 5000)
            swing.highestLate = std::max(swing.highestLate, energy);
    }
    swing.pinError = (world.Deformables().SurfacePosition(chair, corner) - pin).length();
    if (joint)
        world.Dynamics().removeConstraint(joint.get());
    return swing;
}

// The frame's kinetic and potential energy plus the modes' energy never rise above the start by more than they
// do for the same frame on Bullet's own ball joint with the same erp (its symplectic step with Baumgarte's
// correction gains a little on the first swing), and over the second half never above the start by more than
// Bullet's joint is (which, at erp 1, ends a little above it): no energy is pumped in over time, for a soft or
// a stiff correction. The pin holds as tightly as Bullet's.
TEST(WorldSurfaceAttachmentEnergy, ASwingingPinnedChairGainsNoEnergyOver10000Steps)
{
    for (const double erp : {0.05, 0.2, 1.0})
    {
        const Swing reference = SwingChair(true, erp);
        const Swing swing = SwingChair(false, erp);
        EXPECT_LT(swing.highest - swing.start, reference.highest - reference.start + 0.01)
            << "erp " << erp << ": start " << swing.start << ", highest " << swing.highest << "; Bullet's joint: "
            << reference.highest;
        EXPECT_LT(swing.highestLate - swing.start, std::max(0.0, reference.highestLate - reference.start) + 0.01)
            << "erp " << erp;
        EXPECT_LT(swing.lowest, swing.start - 0.1) << "erp " << erp << ": it did not swing";
        EXPECT_LT(swing.pinError, std::max(1e-3f, 1.2f * reference.pinError)) << "erp " << erp;
    }
}

// A spring attachment of stiffness k holding a 4 kg chair stretches by m·g/k once settled.
TEST(WorldSurfaceAttachmentEnergy, ASpringAttachmentStretchesByTheWeightOverTheStiffness)
{
    SampleWorld world;
    btRigidBody* chair = AddChair(world, false, 8, btVector3(0, 2, 0), 0.5f);
    const SurfacePoint corner = CornerOf(world.Deformables(), chair);
    const btVector3 pin = world.Deformables().SurfacePosition(chair, corner);
    AttachmentSettings spring;
    spring.stiffness = 2000.0;
    spring.damping = 20.0;
    const AttachmentId id = world.Deformables().Attach(chair, corner, nullptr, pin, spring);
    world.Step(600, cStep);
    const double stretch = double((pin - world.Deformables().SurfacePosition(chair, corner)).length());
    EXPECT_NEAR(stretch, 4.0 * cGravity / spring.stiffness, 0.05 * 4.0 * cGravity / spring.stiffness);
    // Its impulse per step carries the weight.
    EXPECT_NEAR(double(world.Deformables().AttachmentImpulse(id).y()) / cStep, 4.0 * cGravity, 0.05 * 4.0 * cGravity);
}

std::string AttachError(const std::function<void()>& inCall)
{
    try
    {
        inCall();
    }
    catch (const Error& error)
    {
        return error.what();
    }
    return "";
}

TEST(WorldSurfaceAttachmentInput, BadInputIsRefusedAndDestroyBodyDetaches)
{
    SampleWorld world, other;
    world.AddGroundPlane();
    btRigidBody* chair = AddChair(world, false, 6, btVector3(0, 2, 0));
    btRigidBody* second = AddChair(world, false, 6, btVector3(2, 2, 0));
    btRigidBody* foreign = AddChair(other, false, 6, btVector3(0, 2, 0));
    World& deformables = world.Deformables();
    const SurfacePoint corner = CornerOf(deformables, chair);
    const btVector3 at(0, 3, 0);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::uint32_t triangles = std::uint32_t(World::Shape(chair)->Asset().GetModel().TriangleCount());

    EXPECT_NE(AttachError([&] { deformables.Attach(nullptr, corner, nullptr, at); }).find("null"), std::string::npos);
    EXPECT_NE(AttachError([&] { deformables.Attach(foreign, corner, nullptr, at); }).find("not made by this"),
              std::string::npos);
    EXPECT_NE(AttachError([&] { deformables.Attach(chair, SurfacePoint{triangles, btVector3(1, 0, 0)}, nullptr, at); })
                  .find("outside the mesh"),
              std::string::npos);
    EXPECT_NE(AttachError([&] { deformables.Attach(chair, SurfacePoint{0, btVector3(nan, 0, 1)}, nullptr, at); })
                  .find("barycentric"),
              std::string::npos);
    EXPECT_NE(AttachError([&] { deformables.Attach(chair, SurfacePoint{0, btVector3(0.5f, 0.2f, 0.1f)}, nullptr, at); })
                  .find("barycentric"),
              std::string::npos);
    EXPECT_NE(AttachError([&] { deformables.Attach(chair, corner, nullptr, btVector3(nan, 0, 0)); }).find("not finite"),
              std::string::npos);
    EXPECT_NE(AttachError([&] { deformables.Attach(chair, corner, chair, at); }).find("itself"), std::string::npos);
    EXPECT_NE(AttachError([&] { deformables.Attach(chair, corner, foreign, at); }).find("not in this"),
              std::string::npos);
    EXPECT_NE(AttachError([&] { deformables.Attach(chair, corner, chair, corner); }).find("same body"),
              std::string::npos);
    EXPECT_NE(AttachError([&] { deformables.Attach(chair, corner, foreign, corner); }).find("not made by this"),
              std::string::npos);
    for (const double stiffness : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN()})
    {
        AttachmentSettings settings;
        settings.stiffness = stiffness;
        EXPECT_NE(AttachError([&] { deformables.Attach(chair, corner, nullptr, at, settings); }).find("stiffness"),
                  std::string::npos)
            << stiffness;
    }
    AttachmentSettings settings;
    settings.damping = -1.0;
    EXPECT_NE(AttachError([&] { deformables.Attach(chair, corner, nullptr, at, settings); }).find("damping"),
              std::string::npos);
    for (const double erp : {0.0, 1.5, std::numeric_limits<double>::quiet_NaN()})
    {
        settings = {};
        settings.erp = erp;
        EXPECT_NE(AttachError([&] { deformables.Attach(chair, corner, nullptr, at, settings); }).find("erp"),
                  std::string::npos)
            << erp;
    }
    EXPECT_EQ(deformables.AttachmentCount(), 0u);
    EXPECT_EQ(world.Dynamics().getNumConstraints(), 0);

    EXPECT_FALSE(deformables.Detach(AttachmentId::None));
    EXPECT_THROW(deformables.AttachmentImpulse(AttachmentId::None), Error);
    EXPECT_THROW(deformables.AttachmentGap(AttachmentId::None), Error);
    const AttachmentId toWorld = deformables.Attach(chair, corner, nullptr, at);
    const AttachmentId between = deformables.Attach(second, CornerOf(deformables, second), chair, corner);
    EXPECT_NE(toWorld, between);
    EXPECT_EQ(world.Dynamics().getNumConstraints(), 2);
    world.Step(10, cStep);
    // Destroying the chair removes both attachments that hold it; the second chair then falls freely.
    ASSERT_TRUE(deformables.DestroyBody(chair));
    EXPECT_EQ(deformables.AttachmentCount(), 0u);
    EXPECT_EQ(world.Dynamics().getNumConstraints(), 0);
    EXPECT_FALSE(deformables.Detach(toWorld));
    EXPECT_FALSE(deformables.Detach(between));
    world.Step(120, cStep);
    EXPECT_LT(second->getCenterOfMassPosition().y(), 1.0f);
}

} // namespace
} // namespace bdt
