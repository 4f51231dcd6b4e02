// Bullet's raycast vehicle on a deformable (issue 55): watched by bdt::World, each wheel presses the body under it
// with its suspension force, so a car parked on a modal plank bridge bends it as a rigid box of its mass does, and
// a car driving across stays on it. A snapshot carries the wheels' loads: a car on the bridge replays bit for bit;
// one narrowphase thread and two step the bridge alike.
#include "support/BulletScenes.h"

#include <BulletDynamics/Vehicle/btRaycastVehicle.h>
#include <bdt/adapter/World.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/base/Error.h>
#include <bdt/samples/Scenes.h>
#include <btBulletDynamicsCommon.h>
#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

namespace bdt
{
namespace
{

constexpr double cStep = 1.0 / 60.0;
constexpr float cPlankTop = 1.05f; // m: the plank's deck, world
constexpr float cCarMass = 200.0f; // kg
const btVector3 cWheelSpan(0.55f, 0.0f, 0.35f); // `AddBridgeCar`'s wheels' contact points about its centre, x and z

/// The plank bridge: the plank held at its four bottom corners to the world, damped.
struct Bridge
{
    SampleWorld world;
    btRigidBody* plank = nullptr;
    SurfacePoint middle; ///< The deck's middle.
    std::vector<AttachmentId> pins; ///< At the corners.
    float middleAtRest;  ///< Its height as made (m, world).

    Bridge()
    {
        World& deformables = world.Deformables();
        BodySettings desc;
        desc.mass = 60.0;
        desc.transform.setOrigin(btVector3(0, cPlankTop - 0.05f, 0));
        plank = deformables.CreateBody(test::BridgePlankAsset(), desc);
        plank->setDamping(0.5f, 0.5f);
        plank->setActivationState(DISABLE_DEACTIVATION);
        for (const float x : {-1.5f, 1.5f})
            for (const float z : {-0.5f, 0.5f})
            {
                const SurfacePoint corner =
                    deformables.ClosestSurfacePoint(plank, btVector3(x, cPlankTop - 0.1f, z));
                pins.push_back(deformables.Attach(plank, corner, nullptr, deformables.SurfacePosition(plank, corner)));
            }
        middle = deformables.ClosestSurfacePoint(plank, btVector3(0, cPlankTop, 0));
        middleAtRest = deformables.SurfacePosition(plank, middle).y();
    }
    /// The largest distance of a corner from its pin (m).
    double PinGap()
    {
        double gap = 0.0;
        for (const AttachmentId pin : pins)
            gap = std::max(gap, world.Deformables().AttachmentGap(pin));
        return gap;
    }
    /// How far the deck's middle is below where it was made (m): the plank held at its corners sags under its
    /// own weight and whatever it carries.
    double Sag() { return double(middleAtRest - world.Deformables().SurfacePosition(plank, middle).y()); }
};

/// The mean sag of the deck's middle over the last second of 4 s.
double SettledSag(Bridge& ioBridge)
{
    ioBridge.world.Step(180, cStep);
    double sum = 0.0;
    for (int i = 0; i < 60; ++i)
    {
        ioBridge.world.Step(1, cStep);
        sum += ioBridge.Sag();
    }
    return sum / 60.0;
}

// Parked in the middle, the car bends the plank as a rigid box of its mass standing on the wheels' footprint does
// (within 20%); unwatched, it bends it hardly at all (Bullet gives the ground none of the wheels' load).
TEST(WorldVehicle, AParkedCarBendsThePlankAsARigidBoxOfItsMass)
{
    double sags[3];
    {
        Bridge bridge;
        const BridgeCar car = AddBridgeCar(bridge.world, btVector3(0, cPlankTop + 0.5f, 0));
        sags[0] = SettledSag(bridge);
        ASSERT_TRUE(car.vehicle->getWheelInfo(0).m_raycastInfo.m_isInContact);
        // The pins hold the corners against the wheels' load (they meet it in the same solve).
        EXPECT_LT(bridge.PinGap(), 0.01) << 1e3 * bridge.PinGap() << " mm";
    }
    {
        Bridge bridge;
        const BridgeCar car = AddBridgeCar(bridge.world, btVector3(0, cPlankTop + 0.5f, 0));
        bridge.world.Deformables().UnwatchVehicle(car.vehicle);
        sags[1] = SettledSag(bridge);
    }
    {
        Bridge bridge;
        btBoxShape shape(btVector3(cWheelSpan.x(), 0.15f, cWheelSpan.z()));
        btVector3 inertia;
        shape.calculateLocalInertia(cCarMass, inertia);
        btRigidBody box(btRigidBody::btRigidBodyConstructionInfo(cCarMass, nullptr, &shape, inertia));
        box.setWorldTransform(btTransform(btMatrix3x3::getIdentity(), btVector3(0, cPlankTop + 0.16f, 0)));
        box.setActivationState(DISABLE_DEACTIVATION);
        bridge.world.Dynamics().addRigidBody(&box);
        sags[2] = SettledSag(bridge);
        bridge.world.Dynamics().removeRigidBody(&box);
    }
    ASSERT_GT(sags[2], 1e-3) << "the box does not bend the plank: nothing to compare";
    EXPECT_NEAR(sags[0], sags[2], 0.2 * sags[2])
        << "car " << 1e3 * sags[0] << " mm, box " << 1e3 * sags[2] << " mm, unwatched car " << 1e3 * sags[1] << " mm";
    EXPECT_LT(sags[1], 0.5 * sags[2]) << "unwatched car " << 1e3 * sags[1] << " mm, box " << 1e3 * sags[2] << " mm";
}

// A null vehicle is refused with a clear error; one not watched is not unwatched.
TEST(WorldVehicle, NullAndUnknownVehiclesAreRefused)
{
    Bridge bridge;
    World& deformables = bridge.world.Deformables();
    try
    {
        deformables.WatchVehicle(nullptr);
        ADD_FAILURE() << "a null vehicle was watched";
    }
    catch (const Error& inError)
    {
        EXPECT_NE(std::string(inError.what()).find("null vehicle"), std::string::npos) << inError.what();
    }
    const BridgeCar car = AddBridgeCar(bridge.world, btVector3(0, cPlankTop + 0.5f, 0));
    EXPECT_TRUE(deformables.UnwatchVehicle(car.vehicle));
    EXPECT_FALSE(deformables.UnwatchVehicle(car.vehicle));
}

// Driven from one end to the other, the car rides on the bending deck: never below it, never off its side.
TEST(WorldVehicle, ACarDrivenAcrossStaysOnThePlank)
{
    Bridge bridge;
    // Its wheels 0.15 m from the deck's end.
    const BridgeCar car = AddBridgeCar(bridge.world, btVector3(0.8f, cPlankTop + 0.5f, 0));
    bridge.world.Step(60, cStep); // settle onto the deck
    double peakSag = 0.0;
    for (int i = 0; i < 360 && car.chassis->getCenterOfMassPosition().x() > -0.8f; ++i)
    {
        for (int wheel = 0; wheel < 4; ++wheel)
            car.vehicle->applyEngineForce(-300.0f, wheel); // towards -x
        bridge.world.Step(1, cStep);
        const btVector3 at = car.chassis->getCenterOfMassPosition();
        ASSERT_GT(at.y(), cPlankTop + 0.1f) << "step " << i << ": the car sank into the deck at x = " << at.x();
        ASSERT_LT(std::abs(at.z()), 0.5f) << "step " << i << ": the car left the deck's side";
        peakSag = std::max(peakSag, bridge.Sag());
    }
    EXPECT_LT(car.chassis->getCenterOfMassPosition().x(), -0.8f) << "the car did not cross";
    EXPECT_GT(peakSag, 1e-3) << "the deck did not bend under the car";
}

// The plank (made 600 kg) lies loose on a frictionless floor and the car, parked on it, speeds up: its wheels'
// friction pushes the plank back as much as it pushes the car on (within 2%; the plank takes each step's friction in
// the next step's solve). Unwatched, Bullet gives the plank nothing and it stays where it is.
TEST(WorldVehicle, TheWheelsFrictionPushesTheGroundBack)
{
    constexpr double cLooseMass = 600.0; // kg: the plank slides back slowly and the car stays on it
    double plankMomentum[2], carMomentum[2];
    for (const bool watched : {true, false})
    {
        SampleWorld world;
        world.AddGroundPlane(0.0, 0.0f);
        World& deformables = world.Deformables();
        BodySettings desc;
        desc.mass = cLooseMass;
        desc.transform.setOrigin(btVector3(0, 0.05f, 0));
        btRigidBody* plank = deformables.CreateBody(test::BridgePlankAsset(), desc);
        plank->setFriction(0.0f);
        plank->setActivationState(DISABLE_DEACTIVATION);
        const BridgeCar car = AddBridgeCar(world, btVector3(0, 0.1f + 0.5f, 0));
        if (!watched)
            deformables.UnwatchVehicle(car.vehicle);
        world.Step(60, cStep); // parked: settled on its wheels
        const double plankStart = cLooseMass * double(plank->getLinearVelocity().x());
        const double carStart = cCarMass * double(car.chassis->getLinearVelocity().x());
        for (int i = 0; i < 30; ++i)
        {
            // The car's momentum as the plank will have taken it after this step: the last step's friction.
            carMomentum[watched ? 0 : 1] = cCarMass * double(car.chassis->getLinearVelocity().x()) - carStart;
            for (int wheel = 0; wheel < 4; ++wheel)
                car.vehicle->applyEngineForce(250.0f, wheel); // 1000 N: 5 m/s² for the car, short of skidding
            world.Step(1, cStep);
        }
        plankMomentum[watched ? 0 : 1] = cLooseMass * double(plank->getLinearVelocity().x()) - plankStart;
    }
    ASSERT_GT(carMomentum[0], 100.0) << "the car did not speed up";
    EXPECT_NEAR(plankMomentum[0], -carMomentum[0], 0.02 * carMomentum[0])
        << "plank " << plankMomentum[0] << " N·s, car " << carMomentum[0] << " N·s";
    EXPECT_LT(std::abs(plankMomentum[1]), 0.05 * carMomentum[1])
        << "unwatched: plank " << plankMomentum[1] << " N·s, car " << carMomentum[1] << " N·s";
}

/// The bridge scene's car's Bullet state, which the host saves itself (`World::SaveState` has the World's bodies):
/// its chassis, and its wheels (their turn and last ray, from which Bullet's next step starts).
struct CarState
{
    btTransform transform, interpolation;
    btVector3 linear, angular, interpolationLinear, interpolationAngular;
    std::vector<btWheelInfo> wheels;

    explicit CarState(const BridgeScene& inScene)
        : transform(inScene.chassis->getWorldTransform()),
          interpolation(inScene.chassis->getInterpolationWorldTransform()),
          linear(inScene.chassis->getLinearVelocity()), angular(inScene.chassis->getAngularVelocity()),
          interpolationLinear(inScene.chassis->getInterpolationLinearVelocity()),
          interpolationAngular(inScene.chassis->getInterpolationAngularVelocity())
    {
        for (int i = 0; i < inScene.car->getNumWheels(); ++i)
            wheels.push_back(inScene.car->getWheelInfo(i));
    }
    void RestoreTo(const BridgeScene& ioScene) const
    {
        btRigidBody& chassis = *ioScene.chassis;
        chassis.setCenterOfMassTransform(transform); // its inertia tensor in the world too
        chassis.setInterpolationWorldTransform(interpolation);
        chassis.setLinearVelocity(linear);
        chassis.setAngularVelocity(angular);
        chassis.setInterpolationLinearVelocity(interpolationLinear);
        chassis.setInterpolationAngularVelocity(interpolationAngular);
        for (std::size_t i = 0; i < wheels.size(); ++i)
            ioScene.car->getWheelInfo(int(i)) = wheels[i];
    }
};

// Saved with the car on the deck, the World's snapshot holds the wheels' loads for the next solve and the presses'
// last impulses: loaded into a fresh bridge (the host putting its car back itself), the two step alike, bit for bit,
// as the car drives on.
TEST(WorldVehicle, ACarOnTheBridgeReplaysBitForBitFromASnapshot)
{
    SampleWorld original;
    const BridgeScene a = AddBridgeScene(original, test::BridgePlankAsset());
    for (int i = 0; i < 100; ++i)
    {
        DriveBridgeCar(a, a.abutmentX);
        original.Step(1, cStep);
    }
    ASSERT_LT(std::abs(a.chassis->getCenterOfMassPosition().x()), 1.0f) << "the car is not on the deck";
    ASSERT_TRUE(a.car->getWheelInfo(0).m_raycastInfo.m_isInContact);
    const std::vector<std::uint8_t> snapshot = original.Deformables().SaveState();
    const CarState car(a);

    SampleWorld loaded;
    const BridgeScene b = AddBridgeScene(loaded, test::BridgePlankAsset());
    car.RestoreTo(b);
    loaded.Deformables().LoadState(snapshot);
    EXPECT_EQ(loaded.Deformables().SaveState(), snapshot);
    for (int i = 0; i < 120; ++i)
    {
        DriveBridgeCar(a, a.abutmentX);
        DriveBridgeCar(b, b.abutmentX);
        original.Step(1, cStep);
        loaded.Step(1, cStep);
        ASSERT_EQ(loaded.Deformables().StateHash(), original.Deformables().StateHash()) << "step " << i;
        ASSERT_EQ(b.chassis->getWorldTransform().getOrigin(), a.chassis->getWorldTransform().getOrigin())
            << "step " << i;
    }
}

// A modal chair dropped on the deck beside the car: the narrowphase between the two deformables on one thread and
// on two gives the same steps, wheels and all.
TEST(WorldVehicle, TheBridgeStepsAlikeOnOneAndTwoThreads)
{
    std::uint64_t hashes[2];
    for (const unsigned threads : {1u, 2u})
    {
        SampleWorldSettings settings;
        settings.narrowphaseThreads = threads;
        SampleWorld world(settings);
        const BridgeScene scene = AddBridgeScene(world, test::BridgePlankAsset());
        BodySettings desc;
        desc.mass = 4.0;
        desc.transform.setOrigin(btVector3(1.0f, scene.deckHeight + 0.6f, 0.0f));
        world.Deformables().CreateBody(test::ModalShapeAsset("chair", 1500, 8, 2e6), desc);
        for (int i = 0; i < 200; ++i)
        {
            DriveBridgeCar(scene, -0.3f);
            world.Step(1, cStep);
        }
        EXPECT_GT(world.Dynamics().getDispatcher()->getNumManifolds(), 0);
        EXPECT_TRUE(scene.car->getWheelInfo(0).m_raycastInfo.m_isInContact);
        hashes[threads - 1] = world.Deformables().StateHash();
    }
    EXPECT_EQ(hashes[0], hashes[1]);
}

} // namespace
} // namespace bdt
