#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletDynamics/ConstraintSolver/btPoint2PointConstraint.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <bdt/samples/Scenes.h>
#include <bdt/core/base/Error.h>
#include <algorithm>
#include <cmath>
#include <random>

namespace bdt
{

std::vector<btTransform> PileTransforms(const DeformableAsset& inAsset, const PileSettings& inSettings)
{
    if (inSettings.layers == 0 || !(inSettings.spacing > 0.0) || !std::isfinite(inSettings.spacing) ||
        !std::isfinite(inSettings.dropHeight) || !std::isfinite(inSettings.maxTiltRadians))
        throw Error("pile: layers must be >= 1 and spacing, drop height and tilt finite (spacing > 0)");
    // The local frame's origin is the centre of mass; the bounding sphere of the root, about the centre of
    // mass, bounds the body in any orientation.
    const Vec3d center = inAsset.Mass().centerOfMass;
    const BDTree& tree = inAsset.Tree();
    const float* root = tree.Row(0);
    const double reach =
        inSettings.body.scale * ((Vec3d(root[0], root[1], root[2]) - center).norm() + double(root[3]));
    const double cell = 2.0 * reach * inSettings.spacing;
    const std::uint32_t perLayer = (inSettings.count + inSettings.layers - 1) / inSettings.layers;
    const std::uint32_t side =
        std::max<std::uint32_t>(1, std::uint32_t(std::ceil(std::sqrt(double(perLayer)))));

    std::mt19937 random(inSettings.seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<btTransform> transforms;
    transforms.reserve(inSettings.count);
    for (std::uint32_t i = 0; i < inSettings.count; ++i)
    {
        const std::uint32_t layer = i / (side * side);
        const std::uint32_t inLayer = i % (side * side);
        const double x = (double(inLayer % side) - 0.5 * double(side - 1)) * cell;
        const double z = (double(inLayer / side) - 0.5 * double(side - 1)) * cell;
        const double y = inSettings.dropHeight + reach + double(layer) * cell;
        const double yaw = 2.0 * M_PI * unit(random);
        const double tilt = inSettings.maxTiltRadians * unit(random);
        const double tiltAxis = 2.0 * M_PI * unit(random);
        btQuaternion orientation(btVector3(0, 1, 0), btScalar(yaw));
        orientation = btQuaternion(btVector3(btScalar(std::cos(tiltAxis)), 0, btScalar(std::sin(tiltAxis))),
                                   btScalar(tilt)) *
                      orientation;
        transforms.emplace_back(orientation, btVector3(btScalar(x), btScalar(y), btScalar(z)));
    }
    return transforms;
}

std::vector<btRigidBody*> AddPile(SampleWorld& ioWorld, const std::shared_ptr<const DeformableAsset>& inAsset,
                                  const PileSettings& inSettings)
{
    if (!inAsset)
        throw Error("pile: the asset is null");
    std::vector<btRigidBody*> bodies;
    bodies.reserve(inSettings.count);
    for (const btTransform& transform : PileTransforms(*inAsset, inSettings))
    {
        BodySettings desc = inSettings.body;
        desc.transform = MeshFromPrincipal(*inAsset, desc.scale, transform);
        bodies.push_back(ioWorld.Deformables().CreateBody(inAsset, desc));
    }
    return bodies;
}

namespace
{

// A deformable of `inAsset` placed as modelled (mesh frame at `inOrigin`), `inMass` kg.
btRigidBody* AddDeformable(SampleWorld& ioWorld, const std::shared_ptr<const DeformableAsset>& inAsset, double inMass,
                           const btVector3& inOrigin)
{
    BodySettings desc;
    desc.mass = inMass;
    desc.proxyLevel = 8;
    desc.transform.setOrigin(inOrigin);
    return ioWorld.Deformables().CreateBody(inAsset, desc);
}

// Holds the surface point of `inBody` nearest `inWorldPoint` to `inTarget` (null: the world) where that point is.
AttachmentId Hold(World& ioWorld, btRigidBody* inBody, const btVector3& inWorldPoint, btRigidBody* inTarget)
{
    const SurfacePoint point = ioWorld.ClosestSurfacePoint(inBody, inWorldPoint);
    const btVector3 at = ioWorld.SurfacePosition(inBody, point);
    return ioWorld.Attach(inBody, point, inTarget, inTarget != nullptr ? inTarget->getWorldTransform().inverse() * at : at);
}

} // namespace

HangScene AddHangScene(SampleWorld& ioWorld, const HangAssets& inAssets)
{
    if (!inAssets.curtain || !inAssets.chair || !inAssets.plank)
        throw Error("hang scene: an asset is null");
    World& deformables = ioWorld.Deformables();
    HangScene scene;
    ioWorld.AddGroundPlane();

    // The curtain (2 m wide, 2.5 m tall, centred on its mesh origin) under a rod 3.2 m up, held at nine points of
    // its top edge.
    const btVector3 curtainAt(-2.8f, 3.2f - 1.25f, 0.0f);
    btRigidBody* rod = ioWorld.AddStatic(std::make_unique<btCapsuleShapeX>(0.03f, 2.2f),
                                         btTransform(btQuaternion::getIdentity(), btVector3(-2.8f, 3.23f, 0.0f)));
    scene.curtain = AddDeformable(ioWorld, inAssets.curtain, 1.5, curtainAt);
    for (int i = 0; i < 9; ++i)
    {
        const btVector3 edge = curtainAt + btVector3(-1.0f + 0.25f * float(i), 1.25f, 0.0f);
        scene.attachments.push_back(Hold(deformables, scene.curtain, edge, rod));
    }

    // Two boxes 1 m apart, each on a ball joint at its top face's centre 3.5 m up, pushed the same way; a chair
    // (0.9 m tall, its middle at its mesh origin) hangs by its top back corner from each box's bottom corner: the
    // first held there by `World::Attach`, the second by Bullet's own ball joint (which bends it as much).
    const btVector3 half(0.15f, 0.15f, 0.15f);
    const btVector3 corner(0.225f, 0.45f, -0.225f); // the chair's top back corner, mesh frame
    const btVector3 boxCornerInBox(half.x(), -half.y(), -half.z()); // the box's bottom corner, its frame
    const auto swingingBox = [&](float inX)
    {
        btRigidBody* box = ioWorld.AddRigid(std::make_unique<btBoxShape>(half),
                                            btTransform(btQuaternion::getIdentity(), btVector3(inX, 3.35f, 0.0f)), 10.0);
        ioWorld.AddConstraint(std::make_unique<btPoint2PointConstraint>(*box, btVector3(0, half.y(), 0)));
        box->setLinearVelocity(btVector3(1.5f, 0, 0.5f));
        return box;
    };
    scene.box = swingingBox(0.0f);
    const btVector3 boxCorner = scene.box->getWorldTransform() * boxCornerInBox;
    scene.chair = AddDeformable(ioWorld, inAssets.chair, 4.0, boxCorner - corner);
    scene.attachments.push_back(Hold(deformables, scene.chair, boxCorner, scene.box));

    scene.jointBox = swingingBox(1.0f);
    const btVector3 jointCorner = scene.jointBox->getWorldTransform() * boxCornerInBox;
    scene.jointChair = AddDeformable(ioWorld, inAssets.chair, 4.0, jointCorner - corner);
    scene.joint = static_cast<btPoint2PointConstraint*>(ioWorld.AddConstraint(std::make_unique<btPoint2PointConstraint>(
        *scene.jointBox, *scene.jointChair, boxCornerInBox,
        scene.jointChair->getWorldTransform().inverse() * jointCorner)));

    // Two posts 1.8 m apart, 1 m tall; the plank (2 m × 0.2 m × 0.2 m) on them, held at both ends of its
    // underside, front and back; three crates dropped onto it.
    const btVector3 plankAt(3.3f, 1.1f, 0.0f);
    scene.plank = AddDeformable(ioWorld, inAssets.plank, 8.0, plankAt);
    for (const float side : {-0.9f, 0.9f})
    {
        btRigidBody* post =
            ioWorld.AddStatic(std::make_unique<btBoxShape>(btVector3(0.08f, 0.5f, 0.15f)),
                              btTransform(btQuaternion::getIdentity(), plankAt + btVector3(side, -0.6f, 0.0f)));
        for (const float depth : {-0.1f, 0.1f})
            scene.attachments.push_back(Hold(deformables, scene.plank, plankAt + btVector3(side, -0.1f, depth), post));
    }
    for (int i = 0; i < 3; ++i)
        scene.crates.push_back(ioWorld.AddRigid(
            std::make_unique<btBoxShape>(btVector3(0.08f, 0.08f, 0.08f)),
            btTransform(btQuaternion(btVector3(0, 1, 0), 0.3f * float(i)),
                        plankAt + btVector3(-0.5f + 0.5f * float(i), 0.6f + 0.4f * float(i), 0.0f)),
            2.0));
    return scene;
}

ShapeMesh BridgePlankMesh(std::uint32_t inTriangles)
{
    ShapeMesh mesh = MakeShape(EShape::Slab, inTriangles);
    for (Vec3f& position : mesh.positions)
        position.x() *= 3.0f;
    return mesh;
}

BridgeCar AddBridgeCar(SampleWorld& ioWorld, const btVector3& inAt)
{
    BridgeCar car;
    car.chassis = ioWorld.AddRigid(std::make_unique<btBoxShape>(btVector3(0.7f, 0.15f, 0.4f)),
                                   btTransform(btQuaternion::getIdentity(), inAt), 200.0);
    car.chassis->setActivationState(DISABLE_DEACTIVATION);
    btRaycastVehicle::btVehicleTuning tuning;
    tuning.m_suspensionStiffness = 100.0f; // per kg of chassis
    tuning.m_suspensionDamping = 8.0f;
    tuning.m_suspensionCompression = 8.0f;
    car.vehicle = ioWorld.AddRaycastVehicle(*car.chassis, tuning);
    car.vehicle->setCoordinateSystem(2, 1, 0);
    for (const float x : {0.55f, -0.55f})
        for (const float z : {0.35f, -0.35f})
            car.vehicle->addWheel(btVector3(x, -0.1f, z), btVector3(0, -1, 0), btVector3(0, 0, 1), 0.25f, 0.15f,
                                  tuning, x > 0.0f);
    return car;
}

BridgeScene AddBridgeScene(SampleWorld& ioWorld, const std::shared_ptr<const DeformableAsset>& inPlank)
{
    if (!inPlank)
        throw Error("bridge scene: the plank's asset is null");
    World& deformables = ioWorld.Deformables();
    BridgeScene scene;
    ioWorld.AddGroundPlane();

    // The deck: 3 m long, its top 1.05 m up, held at its four bottom corners; its frame damped a little, never
    // asleep (a car may drive onto it at any time).
    constexpr float cHalfLength = 1.5f, cHalfWidth = 0.5f;
    scene.deckHeight = 1.05f;
    scene.plank = AddDeformable(ioWorld, inPlank, 60.0, btVector3(0, scene.deckHeight - 0.05f, 0));
    scene.plank->setDamping(0.5f, 0.5f);
    scene.plank->setActivationState(DISABLE_DEACTIVATION);
    for (const float x : {-cHalfLength, cHalfLength})
        for (const float z : {-cHalfWidth, cHalfWidth})
            scene.pins.push_back(Hold(deformables, scene.plank, btVector3(x, scene.deckHeight - 0.1f, z), nullptr));
    scene.middle = deformables.ClosestSurfacePoint(scene.plank, btVector3(0, scene.deckHeight, 0));

    // The abutments: 3 m long, 2 m wide, level with the deck, 5 cm from its ends; the car on the one at −x.
    const btVector3 abutmentHalf(1.5f, 0.5f * scene.deckHeight, 1.0f);
    scene.abutmentX = cHalfLength + 0.05f + abutmentHalf.x();
    for (const float side : {-1.0f, 1.0f})
        ioWorld.AddStatic(std::make_unique<btBoxShape>(abutmentHalf),
                          btTransform(btQuaternion::getIdentity(),
                                      btVector3(side * scene.abutmentX, abutmentHalf.y(), 0)));

    const BridgeCar car = AddBridgeCar(ioWorld, btVector3(-scene.abutmentX, scene.deckHeight + 0.5f, 0));
    scene.chassis = car.chassis;
    scene.car = car.vehicle;
    return scene;
}

void DriveBridgeCar(const BridgeScene& inScene, float inTargetX)
{
    constexpr float cTopSpeed = 2.0f;      // m/s
    constexpr float cForcePerSpeed = 400.0f; // N per m/s of error
    constexpr float cMostForce = 600.0f;   // N a wheel
    const float distance = inTargetX - inScene.chassis->getCenterOfMassPosition().x();
    const float wanted = std::clamp(distance, -1.0f, 1.0f) * cTopSpeed;
    const float speed = inScene.chassis->getLinearVelocity().x();
    const float force = std::clamp(cForcePerSpeed * (wanted - speed), -cMostForce, cMostForce);
    for (int wheel = 0; wheel < inScene.car->getNumWheels(); ++wheel)
        inScene.car->applyEngineForce(force, wheel);
}

} // namespace bdt
