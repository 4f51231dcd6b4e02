// A deformable resting on the floor of a btDiscreteDynamicsWorld stays at rest on the narrowphase's
// region manifolds (q kept at 0: the rigid part of the body only).

#include "CollisionTestScenes.h"

#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/CollisionShapes/btStaticPlaneShape.h>
#include <BulletDynamics/ConstraintSolver/btSequentialImpulseConstraintSolver.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <algorithm>
#include <bdt/bullet/CollisionConfiguration.h>
#include <bdt/core/asset/DeformableAsset.h>
#include <gtest/gtest.h>
#include <limits>

namespace bdt::test::collision
{
namespace
{

double Bottom(const DeformableShape& inShape, const btTransform& inTransform)
{
    double bottom = std::numeric_limits<double>::infinity();
    for (const WorldProxy& proxy : WorldProxies(inShape, inTransform))
        bottom = std::min(bottom, proxy.center.y() - proxy.radius);
    return bottom;
}

void BeginStep(btDynamicsWorld* inWorld, btScalar)
{
    static_cast<DeformableShape*>(inWorld->getWorldUserInfo())->BeginStep();
}

// Steps a deformable box put flat `inDrop` above its resting height on a floor for 200 steps at 60 Hz and
// checks that it ends at rest on the floor.
void RestOnPlane(double inDrop)
{
    CollisionConfiguration configuration;
    btCollisionDispatcher dispatcher(&configuration);
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &configuration);
    world.setGravity(btVector3(0, -9.81, 0));

    btStaticPlaneShape planeShape(btVector3(0, 1, 0), 0);
    btRigidBody plane(btRigidBody::btRigidBodyConstructionInfo(0, nullptr, &planeShape));
    world.addRigidBody(&plane);

    const double margin = 0.005;
    DeformableObject deformable(margin);
    DeformableShape& shape = *deformable.shape;
    btVector3 inertia;
    shape.calculateLocalInertia(1, inertia);
    btRigidBody body(btRigidBody::btRigidBodyConstructionInfo(1, nullptr, &shape, inertia));
    body.setActivationState(DISABLE_DEACTIVATION); // no sleeping: rest must come from the contacts
    // The box's faces along the world axes (the shape's local frame is the rest shape's principal frame,
    // arbitrary for a cube), its lowest proxy spheres touching the floor through the margin.
    const Pose principal = shape.Asset().Mass().ToPrincipal();
    const Eigen::Quaterniond toWorld(principal.rotation.transpose());
    btTransform start;
    start.setIdentity();
    start.setRotation(btQuaternion(btScalar(toWorld.x()), btScalar(toWorld.y()), btScalar(toWorld.z()),
                                   btScalar(toWorld.w())));
    start.setOrigin(btVector3(0, btScalar(margin + inDrop - Bottom(shape, start)), 0));
    const btVector3 startOrigin = start.getOrigin() - btVector3(0, btScalar(inDrop), 0);
    body.setWorldTransform(start);
    world.addRigidBody(&body);
    world.setInternalTickCallback(&BeginStep, &shape, true);

    for (int step = 0; step < 200; ++step)
        world.stepSimulation(btScalar(1.0 / 60.0), 1, btScalar(1.0 / 60.0));

    // Resting on the proxy spheres grown by the margin, where it was put.
    EXPECT_NEAR(Bottom(shape, body.getWorldTransform()), margin, 1e-3);
    EXPECT_LT((body.getWorldTransform().getOrigin() - startOrigin).length(), 1e-2);
    EXPECT_LT(body.getLinearVelocity().length(), 0.01);
    EXPECT_LT(body.getAngularVelocity().length() * shape.Asset().BoundingRadius(), 0.01);
    EXPECT_GT(dispatcher.getNumManifolds(), 1); // several regions carry the weight
    std::size_t points = 0;
    for (int m = 0; m < dispatcher.getNumManifolds(); ++m)
        points += std::size_t(dispatcher.getManifoldByIndexInternal(m)->getNumContacts());
    EXPECT_GE(points, 3u);
    world.removeRigidBody(&body);
    world.removeRigidBody(&plane);
}

TEST(RestingContact, DeformableBoxStaysAtRestOnAStaticPlane)
{
    RestOnPlane(0.0);
}

TEST(RestingContact, DeformableBoxDroppedFlatComesToRestOnAStaticPlane)
{
    RestOnPlane(0.02);
}

} // namespace
} // namespace bdt::test::collision
