// Bullet's raycast vehicle on a deformable (issue 55): watched by bdt::World, each wheel presses the body under it
// with its suspension force, so a car parked on a modal plank bridge bends it as a rigid box of its mass does, and
// a car driving across stays on it.
#include "support/BulletScenes.h"

#include <BulletDynamics/Vehicle/btRaycastVehicle.h>
#include <bdt/adapter/World.h>
#include <bdt/bake/ModalBasis.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/BDTree.h>
#include <bdt/core/Error.h>
#include <bdt/core/ProceduralShapes.h>
#include <bdt/samples/Scenes.h>
#include <btBulletDynamicsCommon.h>
#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <memory>
#include <string>

namespace bdt
{
namespace
{

constexpr double cStep = 1.0 / 60.0;
constexpr float cPlankTop = 1.05f; // m: the plank's deck, world
constexpr float cCarMass = 200.0f; // kg
const btVector3 cWheelSpan(0.55f, 0.0f, 0.35f); // the wheels' contact points about the car's centre, x and z

/// The bridge scene's 3 × 0.1 × 1 m modal plank (60 kg, 12 modes of a 300 MPa solid), baked once.
std::shared_ptr<const DeformableAsset> PlankAsset()
{
    static const std::shared_ptr<const DeformableAsset> asset = []
    {
        ShapeMesh mesh = BridgePlankMesh(3000);
        ModalBakeSettings bake;
        bake.modes = 12;
        bake.material = {3e8, 0.4, 200};
        bake.factorisation = EFactorisation::Reproducible;
        return DeformableAsset::Create(std::make_shared<const BDTree>(
            BDTree::Build(MakeModalModel(std::move(mesh.positions), std::move(mesh.triangles), bake))));
    }();
    return asset;
}

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
        plank = deformables.CreateBody(PlankAsset(), desc);
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

/// A 200 kg car on four raycast wheels at ±0.55 m, ±0.35 m, its centre at (x, z), watched by the bridge's World.
struct Car
{
    btBoxShape body{btVector3(0.7f, 0.15f, 0.4f)};
    std::unique_ptr<btRigidBody> chassis;
    std::unique_ptr<btDefaultVehicleRaycaster> raycaster;
    std::unique_ptr<btRaycastVehicle> vehicle;
    btDiscreteDynamicsWorld& dynamics;
    World& deformables;

    Car(Bridge& ioBridge, float inX) : dynamics(ioBridge.world.Dynamics()), deformables(ioBridge.world.Deformables())
    {
        btVector3 inertia;
        body.calculateLocalInertia(cCarMass, inertia);
        chassis = std::make_unique<btRigidBody>(
            btRigidBody::btRigidBodyConstructionInfo(cCarMass, nullptr, &body, inertia));
        chassis->setWorldTransform(btTransform(btMatrix3x3::getIdentity(), btVector3(inX, cPlankTop + 0.5f, 0)));
        chassis->setActivationState(DISABLE_DEACTIVATION);
        dynamics.addRigidBody(chassis.get());
        raycaster = std::make_unique<btDefaultVehicleRaycaster>(&dynamics);
        btRaycastVehicle::btVehicleTuning tuning;
        tuning.m_suspensionStiffness = 100.0f; // per kg of chassis: 10 cm under its weight
        tuning.m_suspensionDamping = 8.0f;
        tuning.m_suspensionCompression = 8.0f;
        vehicle = std::make_unique<btRaycastVehicle>(tuning, chassis.get(), raycaster.get());
        vehicle->setCoordinateSystem(2, 1, 0); // right z, up y, forward x
        for (const float x : {cWheelSpan.x(), -cWheelSpan.x()})
            for (const float z : {cWheelSpan.z(), -cWheelSpan.z()})
                vehicle->addWheel(btVector3(x, -0.1f, z), btVector3(0, -1, 0), btVector3(0, 0, 1), 0.25f, 0.15f,
                                  tuning, x > 0.0f);
        dynamics.addAction(vehicle.get());
        deformables.WatchVehicle(vehicle.get());
    }
    ~Car()
    {
        deformables.UnwatchVehicle(vehicle.get());
        dynamics.removeAction(vehicle.get());
        dynamics.removeRigidBody(chassis.get());
    }
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
        Car car(bridge, 0.0f);
        sags[0] = SettledSag(bridge);
        ASSERT_TRUE(car.vehicle->getWheelInfo(0).m_raycastInfo.m_isInContact);
        // The pins hold the corners against the wheels' load (they meet it in the same solve).
        EXPECT_LT(bridge.PinGap(), 0.01) << 1e3 * bridge.PinGap() << " mm";
    }
    {
        Bridge bridge;
        Car car(bridge, 0.0f);
        bridge.world.Deformables().UnwatchVehicle(car.vehicle.get());
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
    Car car(bridge, 0.0f);
    EXPECT_TRUE(deformables.UnwatchVehicle(car.vehicle.get()));
    EXPECT_FALSE(deformables.UnwatchVehicle(car.vehicle.get()));
    deformables.WatchVehicle(car.vehicle.get()); // watched again for the car's teardown
}

// Driven from one end to the other, the car rides on the bending deck: never below it, never off its side.
TEST(WorldVehicle, ACarDrivenAcrossStaysOnThePlank)
{
    Bridge bridge;
    Car car(bridge, 0.8f); // its wheels 0.15 m from the deck's end
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

} // namespace
} // namespace bdt
