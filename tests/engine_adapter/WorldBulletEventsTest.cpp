// A deformable body takes part in Bullet's events, filters and queries as any Bullet body does: the contact
// callbacks fire for its contacts (with the touched triangle and barycentric coordinates reachable from the
// point), collision filter groups and masks decide which pairs collide, and ghost objects see it overlap.
#include "support/BulletScenes.h"

#include <BulletCollision/CollisionDispatch/btGhostObject.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <bdt/samples/SampleWorld.h>
#include <bdt/adapter/World.h>
#include <bdt/bullet/ContactFeature.h>
#include <bdt/bullet/DeformableShape.h>
#include <btBulletDynamicsCommon.h>
#include <gtest/gtest.h>
#include <memory>

namespace bdt
{
namespace
{

constexpr double cStep = 1.0 / 60.0;

struct CallbackCounts
{
    int added = 0, started = 0, ended = 0;
    int badSurfacePoints = 0; ///< Added points on the deformable whose surface point is not a valid one.
    const btCollisionObject* deformable = nullptr;
    std::uint32_t triangles = 0;
};
CallbackCounts sCounts;

bool OnAdded(btManifoldPoint& ioPoint, const btCollisionObjectWrapper* inA, int, int,
             const btCollisionObjectWrapper* inB, int, int)
{
    ++sCounts.added;
    const int side = inA->getCollisionObject() == sCounts.deformable ? 0 : 1;
    const btCollisionObject* object = side == 0 ? inA->getCollisionObject() : inB->getCollisionObject();
    SurfacePoint point;
    const bool found = ContactSurfacePoint(ioPoint, side, *object, point);
    const btScalar sum = point.barycentric.x() + point.barycentric.y() + point.barycentric.z();
    if (object != sCounts.deformable || !found || point.triangle >= sCounts.triangles || std::abs(sum - 1) > 1e-4f ||
        point.barycentric.x() < -1e-4f || point.barycentric.y() < -1e-4f || point.barycentric.z() < -1e-4f)
        ++sCounts.badSurfacePoints;
    return false;
}
void OnStarted(btPersistentManifold* const&)
{
    ++sCounts.started;
}
void OnEnded(btPersistentManifold* const&)
{
    ++sCounts.ended;
}

/// Sets Bullet's global contact callbacks for one test and clears them after.
struct ScopedCallbacks
{
    ScopedCallbacks()
    {
        sCounts = {};
        gContactAddedCallback = &OnAdded;
        gContactStartedCallback = &OnStarted;
        gContactEndedCallback = &OnEnded;
    }
    ~ScopedCallbacks()
    {
        gContactAddedCallback = nullptr;
        gContactStartedCallback = nullptr;
        gContactEndedCallback = nullptr;
    }
};

btRigidBody* AddBox(SampleWorld& ioWorld, btVector3 inOrigin)
{
    BodySettings desc;
    desc.proxyLevel = 8;
    desc.transform.setOrigin(inOrigin);
    return ioWorld.Deformables().CreateBody(test::ShapeAsset("box", 300, 4), desc);
}

/// Contact points between `inA` and `inB` in the dispatcher's manifolds.
int ContactsBetween(btDiscreteDynamicsWorld& inWorld, const btCollisionObject* inA, const btCollisionObject* inB)
{
    int count = 0;
    btDispatcher& dispatcher = *inWorld.getDispatcher();
    for (int i = 0; i < dispatcher.getNumManifolds(); ++i)
    {
        const btPersistentManifold* manifold = dispatcher.getManifoldByIndexInternal(i);
        if ((manifold->getBody0() == inA && manifold->getBody1() == inB) ||
            (manifold->getBody0() == inB && manifold->getBody1() == inA))
            count += manifold->getNumContacts();
    }
    return count;
}

// Added (with CF_CUSTOM_MATERIAL_CALLBACK, as Bullet asks), started when the box lands, ended when it is lifted off;
// every added point names a triangle of the box and barycentric coordinates on it.
TEST(WorldBulletEvents, ContactCallbacksFireWithTheTouchedTriangle)
{
    ScopedCallbacks callbacks;
    SampleWorld world;
    world.AddGroundPlane();
    btRigidBody* box = AddBox(world, btVector3(0, 0.8f, 0));
    box->setCollisionFlags(box->getCollisionFlags() | btCollisionObject::CF_CUSTOM_MATERIAL_CALLBACK);
    sCounts.deformable = box;
    sCounts.triangles = World::Shape(box)->Asset().GetModel().TriangleCount();
    world.Step(60, cStep);
    EXPECT_GT(sCounts.added, 0);
    EXPECT_GE(sCounts.started, 1);
    EXPECT_EQ(sCounts.badSurfacePoints, 0);
    const int endedBefore = sCounts.ended;
    box->setLinearVelocity(btVector3(0, 6, 0));
    box->activate(true);
    world.Step(20, cStep);
    EXPECT_GT(sCounts.ended, endedBefore);
}

// Two boxes dropped on one another and the ground: with the default filter they touch; with the top one's mask
// leaving out the bottom one's group it falls through it to the ground; with masks leaving out the ground's
// group it falls through the ground as well. The filter is Bullet's, set as for any body (re-added with a group
// and a mask).
TEST(WorldBulletEvents, CollisionFilterGroupsAndMasksDecideWhichPairsCollide)
{
    for (const int variant : {0, 1, 2})
    {
        SampleWorld world;
        btRigidBody* ground = world.AddGroundPlane();
        btRigidBody* bottom = AddBox(world, btVector3(0, 0.6f, 0));
        btRigidBody* top = AddBox(world, btVector3(0, 1.8f, 0));
        constexpr int cGroundGroup = 1 << 6, cBottomGroup = 1 << 7, cTopGroup = 1 << 8;
        world.Dynamics().removeRigidBody(ground);
        world.Dynamics().addRigidBody(ground, cGroundGroup, -1);
        world.Dynamics().removeRigidBody(bottom);
        world.Dynamics().addRigidBody(bottom, cBottomGroup, -1);
        const int topMask = variant == 0 ? -1 : variant == 1 ? ~cBottomGroup : ~(cBottomGroup | cGroundGroup);
        world.Dynamics().removeRigidBody(top);
        world.Dynamics().addRigidBody(top, cTopGroup, topMask);
        int topOnBottom = 0;
        for (int step = 0; step < 90; ++step)
        {
            world.Step(1, cStep);
            topOnBottom += ContactsBetween(world.Dynamics(), top, bottom);
        }
        const float height = top->getWorldTransform().getOrigin().y();
        if (variant == 0)
        {
            // They collide (whether the top one then stays on the bottom one or topples off depends on rounding).
            EXPECT_GT(topOnBottom, 0);
        }
        else
        {
            EXPECT_EQ(topOnBottom, 0) << variant;
            if (variant == 1)
                EXPECT_NEAR(height, 0.5f, 0.1f); // through the bottom box, on the ground
            else
                EXPECT_LT(height, -1.0f); // through the ground too
        }
    }
}

// A ghost object (Bullet's trigger volume) around a deformable body counts it among its overlaps, and stops once
// the body has left it.
TEST(WorldBulletEvents, GhostObjectsSeeDeformablesOverlap)
{
    SampleWorld world;
    btGhostPairCallback ghostPairs;
    world.Dynamics().getPairCache()->setInternalGhostPairCallback(&ghostPairs);
    btRigidBody* box = AddBox(world, btVector3(0, 5, 0));
    btBoxShape volume(btVector3(1, 1, 1));
    btPairCachingGhostObject ghost;
    ghost.setCollisionShape(&volume);
    ghost.setWorldTransform(btTransform(btQuaternion::getIdentity(), btVector3(0, 5, 0)));
    ghost.setCollisionFlags(ghost.getCollisionFlags() | btCollisionObject::CF_NO_CONTACT_RESPONSE);
    world.Dynamics().addCollisionObject(&ghost, btBroadphaseProxy::SensorTrigger,
                                        btBroadphaseProxy::AllFilter & ~btBroadphaseProxy::SensorTrigger);
    world.Step(1, cStep);
    bool seen = false;
    for (int i = 0; i < ghost.getNumOverlappingObjects(); ++i)
        seen |= ghost.getOverlappingObject(i) == box;
    EXPECT_TRUE(seen);
    world.Step(60, cStep); // falls 5 m out of it
    seen = false;
    for (int i = 0; i < ghost.getNumOverlappingObjects(); ++i)
        seen |= ghost.getOverlappingObject(i) == box;
    EXPECT_FALSE(seen);
    world.Dynamics().removeCollisionObject(&ghost);
    world.Dynamics().getPairCache()->setInternalGhostPairCallback(nullptr);
}

} // namespace
} // namespace bdt
