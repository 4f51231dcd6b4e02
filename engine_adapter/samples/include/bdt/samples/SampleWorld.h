#pragma once

#include <BulletDynamics/Vehicle/btRaycastVehicle.h>
#include <bdt/adapter/World.h>
#include <memory>
#include <vector>

class btBroadphaseInterface;
class btCollisionDispatcher;
class btCollisionShape;
class btDiscreteDynamicsWorld;
class btRigidBody;
class btSequentialImpulseConstraintSolver;
class btTypedConstraint;

namespace bdt
{

class CollisionConfiguration;

/// Settings of a `SampleWorld`.
struct SampleWorldSettings
{
    btVector3 gravity{0, -9.81f, 0}; ///< m/s².
    int solverIterations = 10;       ///< Bullet's sequential-impulse iterations.
    /// Threads that generate deformable-vs-deformable contacts (`bdt::ParallelDispatcher`; 1: serial, 0:
    /// the machine's hardware threads). The results are the same for any count.
    unsigned narrowphaseThreads = 1;
    WorldSettings deformables;       ///< Settings of the attached `bdt::World`.
};

/// A complete Bullet dynamics world with the BD-Tree plugin attached, owning everything: the collision
/// configuration (`bdt::CollisionConfiguration`), dispatcher (`bdt::ParallelDispatcher`), broadphase
/// (btDbvtBroadphase), solver, the `btDiscreteDynamicsWorld`, the `bdt::World`, and any static bodies added
/// through it. What the tests, the benchmarks and the demo build their scenes on; a Bullet project that has
/// its own world needs only `bdt::World`.
class SampleWorld
{
public:
    explicit SampleWorld(const SampleWorldSettings& inSettings = {});
    ~SampleWorld();
    SampleWorld(const SampleWorld&) = delete;
    SampleWorld& operator=(const SampleWorld&) = delete;

    btDiscreteDynamicsWorld& Dynamics() { return *mDynamics; }
    World& Deformables() { return *mDeformables; }

    /// A static body of `inShape` (owned from now on) at `inTransform`, friction `inFriction`.
    btRigidBody* AddStatic(std::unique_ptr<btCollisionShape> inShape, const btTransform& inTransform,
                           float inFriction = 0.8f);
    /// A rigid body of `inShape` (owned) with `inMass` kg at `inTransform`.
    btRigidBody* AddRigid(std::unique_ptr<btCollisionShape> inShape, const btTransform& inTransform,
                          double inMass, float inFriction = 0.6f);
    /// Adds a Bullet constraint (owned from now on) between bodies of this world; `inDisableCollisions` as
    /// Bullet's `addConstraint`. Returns it.
    btTypedConstraint* AddConstraint(std::unique_ptr<btTypedConstraint> inConstraint, bool inDisableCollisions = true);
    /// A raycast vehicle (Bullet's btRaycastVehicle, owned with its raycaster) on `ioChassis`, a dynamic body of this
    /// world, added as an action and watched by the `World` (`World::WatchVehicle`: its wheels press the
    /// deformables they rest on). Add its wheels to the returned vehicle.
    btRaycastVehicle* AddRaycastVehicle(btRigidBody& ioChassis, const btRaycastVehicle::btVehicleTuning& inTuning);
    /// The ground: a static plane y = `inHeight`, normal +Y.
    btRigidBody* AddGroundPlane(double inHeight = 0.0, float inFriction = 0.8f);

    /// `inSteps` internal steps of exactly `inTimeStep` seconds each (Bullet's stepSimulation with no
    /// substepping, so the count never depends on float accumulation).
    void Step(int inSteps = 1, double inTimeStep = 1.0 / 60.0);

private:
    std::unique_ptr<CollisionConfiguration> mConfiguration;
    std::unique_ptr<btCollisionDispatcher> mDispatcher;
    std::unique_ptr<btBroadphaseInterface> mBroadphase;
    std::unique_ptr<btSequentialImpulseConstraintSolver> mSolver;
    std::unique_ptr<btDiscreteDynamicsWorld> mDynamics;
    std::unique_ptr<World> mDeformables;
    std::vector<std::unique_ptr<btCollisionShape>> mShapes;
    std::vector<std::unique_ptr<btRigidBody>> mBodies;
    std::vector<std::unique_ptr<btTypedConstraint>> mConstraints;
    std::vector<std::unique_ptr<btVehicleRaycaster>> mRaycasters;
    std::vector<std::unique_ptr<btRaycastVehicle>> mVehicles;
};

} // namespace bdt
