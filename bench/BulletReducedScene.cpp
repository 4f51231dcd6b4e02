#include "BulletReducedScene.h"

#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <BulletSoftBody/BulletReducedDeformableBody/btReducedDeformableBody.h>
#include <BulletSoftBody/BulletReducedDeformableBody/btReducedDeformableBodyHelpers.h>
#include <BulletSoftBody/BulletReducedDeformableBody/btReducedDeformableBodySolver.h>
#include <BulletSoftBody/btDeformableMultiBodyConstraintSolver.h>
#include <BulletSoftBody/btDeformableMultiBodyDynamicsWorld.h>
#include <BulletSoftBody/btSoftBodyRigidBodyCollisionConfiguration.h>
#include <bdt/bake/BulletReducedFiles.h>
#include <bdt/core/base/Error.h>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>
#include <vector>

namespace bdt::bench
{

// Declared in the order they must be built; destroyed in reverse after the world lets go of the bodies.
struct BulletReducedScene::Parts
{
    std::unique_ptr<btSoftBodyRigidBodyCollisionConfiguration> configuration;
    std::unique_ptr<btCollisionDispatcher> dispatcher;
    std::unique_ptr<btDbvtBroadphase> broadphase;
    std::unique_ptr<btReducedDeformableBodySolver> deformableSolver;
    std::unique_ptr<btDeformableMultiBodyConstraintSolver> solver;
    std::unique_ptr<btDeformableMultiBodyDynamicsWorld> world;
    std::unique_ptr<btReducedDeformableBody> body;
    std::vector<std::unique_ptr<btCollisionShape>> shapes;
    std::vector<std::unique_ptr<btRigidBody>> rigids;

    ~Parts()
    {
        if (world)
        {
            for (const std::unique_ptr<btRigidBody>& rigid : rigids)
                world->removeRigidBody(rigid.get());
            if (body)
                world->removeSoftBody(body.get());
        }
    }

    btRigidBody* AddRigid(std::unique_ptr<btCollisionShape> inShape, const btTransform& inTransform,
                          double inMass)
    {
        btVector3 inertia(0, 0, 0);
        if (inMass > 0.0)
            inShape->calculateLocalInertia(btScalar(inMass), inertia);
        btRigidBody::btRigidBodyConstructionInfo info(btScalar(inMass), nullptr, inShape.get(), inertia);
        info.m_startWorldTransform = inTransform;
        info.m_friction = 0.6f;
        rigids.push_back(std::make_unique<btRigidBody>(info));
        shapes.push_back(std::move(inShape));
        world->addRigidBody(rigids.back().get());
        return rigids.back().get();
    }
};

BulletReducedScene::BulletReducedScene(const std::string& inFolder, int inModes, double inLift,
                                       double inAlpha, double inBeta, const std::vector<Vec3d>& inBallCentres,
                                       double inBallRadius)
    : mParts(std::make_unique<Parts>())
{
    Parts& p = *mParts;
    p.configuration = std::make_unique<btSoftBodyRigidBodyCollisionConfiguration>();
    p.dispatcher = std::make_unique<btCollisionDispatcher>(p.configuration.get());
    p.broadphase = std::make_unique<btDbvtBroadphase>();
    p.deformableSolver = std::make_unique<btReducedDeformableBodySolver>();
    p.solver = std::make_unique<btDeformableMultiBodyConstraintSolver>();
    p.solver->setDeformableSolver(p.deformableSolver.get());
    p.world = std::make_unique<btDeformableMultiBodyDynamicsWorld>(p.dispatcher.get(), p.broadphase.get(),
                                                                   p.solver.get(), p.configuration.get(),
                                                                   p.deformableSolver.get());
    const btVector3 gravity(0, btScalar(-9.81), 0);
    p.world->setGravity(gravity);
    p.world->getWorldInfo().m_gravity = gravity;
    p.deformableSolver->setGravity(gravity);

    {
        // Bullet's loader prints the mesh's counts on standard output: silenced, so the table stays readable.
        std::fflush(stdout);
        const int saved = dup(STDOUT_FILENO);
        const int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
        {
            dup2(null, STDOUT_FILENO);
            close(null);
        }
        p.body.reset(btReducedDeformableBodyHelpers::createReducedDeformableObject(
            p.world->getWorldInfo(), inFolder + "/", cBulletMeshFile, inModes, false));
        std::fflush(stdout);
        if (saved >= 0)
        {
            dup2(saved, STDOUT_FILENO);
            close(saved);
        }
    }
    if (!p.body)
        throw Error(inFolder + ": Bullet could not load the reduced deformable body");
    p.body->transform(btTransform(btQuaternion::getIdentity(), btVector3(0, btScalar(inLift), 0)));
    p.body->setDamping(btScalar(inAlpha), btScalar(inBeta));
    // Rigid-versus-deformable contacts by the rigid shapes' signed distance at the body's nodes (Bullet's
    // choice for these bodies).
    p.body->m_cfg.collisions = btSoftBody::fCollision::SDF_RD | btSoftBody::fCollision::SDF_RDN;
    p.body->m_cfg.kKHR = 1;
    p.body->m_cfg.kCHR = 1;
    p.body->m_cfg.kDF = 0.6f;
    p.body->getCollisionShape()->setMargin(0.01f);
    p.world->addSoftBody(p.body.get());

    // The ground: a static box (the signed distance needs a convex shape, not an infinite plane).
    p.AddRigid(std::make_unique<btBoxShape>(btVector3(5, 0.5f, 5)),
               btTransform(btQuaternion::getIdentity(), btVector3(0, -0.5f, 0)), 0.0);
    for (const Vec3d& centre : inBallCentres)
        p.AddRigid(std::make_unique<btSphereShape>(btScalar(inBallRadius)),
                   btTransform(btQuaternion::getIdentity(),
                               btVector3(btScalar(centre.x()), btScalar(centre.y()), btScalar(centre.z()))),
                   0.2);
}

BulletReducedScene::~BulletReducedScene() = default;

void BulletReducedScene::Step(double inTimeStep)
{
    mParts->world->stepSimulation(btScalar(inTimeStep), 0, btScalar(inTimeStep));
}

int BulletReducedScene::ContactPoints() const
{
    int points = 0;
    btCollisionDispatcher& dispatcher = *mParts->dispatcher;
    for (int m = 0; m < dispatcher.getNumManifolds(); ++m)
        points += dispatcher.getManifoldByIndexInternal(m)->getNumContacts();
    return points + mParts->body->m_nodeRigidContacts.size() + mParts->body->m_faceRigidContacts.size();
}

double BulletReducedScene::LowestNodeY() const
{
    double lowest = 1e300;
    for (int n = 0; n < mParts->body->m_nodes.size(); ++n)
        lowest = std::min(lowest, double(mParts->body->m_nodes[n].m_x.y()));
    return lowest;
}

const btCollisionWorld& BulletReducedScene::World() const
{
    return *mParts->world;
}

} // namespace bdt::bench
