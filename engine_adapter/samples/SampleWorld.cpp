#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/CollisionShapes/btStaticPlaneShape.h>
#include <BulletDynamics/ConstraintSolver/btSequentialImpulseConstraintSolver.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <bdt/samples/SampleWorld.h>
#include <bdt/bullet/CollisionConfiguration.h>
#include <bdt/bullet/ParallelDispatcher.h>

namespace bdt
{

SampleWorld::SampleWorld(const SampleWorldSettings& inSettings)
{
    mConfiguration = std::make_unique<CollisionConfiguration>();
    mDispatcher = std::make_unique<ParallelDispatcher>(mConfiguration.get(), inSettings.narrowphaseThreads);
    mBroadphase = std::make_unique<btDbvtBroadphase>();
    mSolver = std::make_unique<btSequentialImpulseConstraintSolver>();
    mDynamics = std::make_unique<btDiscreteDynamicsWorld>(mDispatcher.get(), mBroadphase.get(), mSolver.get(),
                                                          mConfiguration.get());
    mDynamics->setGravity(inSettings.gravity);
    mDynamics->getSolverInfo().m_numIterations = inSettings.solverIterations;
    mDeformables = std::make_unique<World>(*mDynamics, inSettings.deformables);
}

SampleWorld::~SampleWorld()
{
    // Vehicles and constraints first (they may hold deformables), then the plugin's bodies while the Bullet world
    // is alive.
    for (std::unique_ptr<btRaycastVehicle>& vehicle : mVehicles)
    {
        mDeformables->UnwatchVehicle(vehicle.get());
        mDynamics->removeAction(vehicle.get());
    }
    mVehicles.clear();
    mRaycasters.clear();
    for (std::unique_ptr<btTypedConstraint>& constraint : mConstraints)
        mDynamics->removeConstraint(constraint.get());
    mConstraints.clear();
    mDeformables.reset();
    for (std::unique_ptr<btRigidBody>& body : mBodies)
        mDynamics->removeRigidBody(body.get());
    mBodies.clear();
    mDynamics.reset();
}

btTypedConstraint* SampleWorld::AddConstraint(std::unique_ptr<btTypedConstraint> inConstraint,
                                             bool inDisableCollisions)
{
    mDynamics->addConstraint(inConstraint.get(), inDisableCollisions);
    mConstraints.push_back(std::move(inConstraint));
    return mConstraints.back().get();
}

btRaycastVehicle* SampleWorld::AddRaycastVehicle(btRigidBody& ioChassis,
                                                const btRaycastVehicle::btVehicleTuning& inTuning)
{
    mRaycasters.push_back(std::make_unique<btDefaultVehicleRaycaster>(mDynamics.get()));
    mVehicles.push_back(std::make_unique<btRaycastVehicle>(inTuning, &ioChassis, mRaycasters.back().get()));
    btRaycastVehicle* vehicle = mVehicles.back().get();
    mDynamics->addAction(vehicle);
    mDeformables->WatchVehicle(vehicle);
    return vehicle;
}

btRigidBody* SampleWorld::AddStatic(std::unique_ptr<btCollisionShape> inShape, const btTransform& inTransform,
                                    float inFriction)
{
    return AddRigid(std::move(inShape), inTransform, 0.0, inFriction);
}

btRigidBody* SampleWorld::AddRigid(std::unique_ptr<btCollisionShape> inShape, const btTransform& inTransform,
                                   double inMass, float inFriction)
{
    btVector3 inertia(0, 0, 0);
    if (inMass > 0.0)
        inShape->calculateLocalInertia(btScalar(inMass), inertia);
    btRigidBody::btRigidBodyConstructionInfo info(btScalar(inMass), nullptr, inShape.get(), inertia);
    info.m_startWorldTransform = inTransform;
    info.m_friction = inFriction;
    auto body = std::make_unique<btRigidBody>(info);
    mDynamics->addRigidBody(body.get());
    mShapes.push_back(std::move(inShape));
    mBodies.push_back(std::move(body));
    return mBodies.back().get();
}

btRigidBody* SampleWorld::AddGroundPlane(double inHeight, float inFriction)
{
    return AddStatic(std::make_unique<btStaticPlaneShape>(btVector3(0, 1, 0), btScalar(inHeight)),
                     btTransform::getIdentity(), inFriction);
}

void SampleWorld::Step(int inSteps, double inTimeStep)
{
    for (int i = 0; i < inSteps; ++i)
        mDynamics->stepSimulation(btScalar(inTimeStep), 0, btScalar(inTimeStep));
}

} // namespace bdt
