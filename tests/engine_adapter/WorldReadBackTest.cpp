// The post-solve read-back (`World`): with a `ParallelDispatcher` of two threads its two walks over the
// manifolds (impulses into the pending generalised impulses, the modal contact constraint into q̇) run at
// once, and the world steps bit for bit as with one walk doing both; a non-finite impulse is still ignored
// and counted once.
#include "support/BulletScenes.h"

#include <BulletDynamics/ConstraintSolver/btSequentialImpulseConstraintSolver.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <bdt/samples/SampleWorld.h>
#include <bdt/samples/Scenes.h>
#include <bdt/adapter/World.h>
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <limits>
#include <memory>
#include <vector>

namespace bdt
{
namespace
{

constexpr double cStep = 1.0 / 60.0;
constexpr int cSplitFrom = 128; // manifolds: the read-back splits from here on (a few hundred in this pile)

// Bullet's solver, after which the first point of the first manifold holding one gets a NaN impulse at
// chosen solves: what the read-back must ignore without spreading it.
class PoisoningSolver : public btSequentialImpulseConstraintSolver
{
public:
    btScalar solveGroup(btCollisionObject** bodies, int numBodies, btPersistentManifold** manifolds,
                        int numManifolds, btTypedConstraint** constraints, int numConstraints,
                        const btContactSolverInfo& info, btIDebugDraw* debugDrawer,
                        btDispatcher* dispatcher) override
    {
        const btScalar result = btSequentialImpulseConstraintSolver::solveGroup(
            bodies, numBodies, manifolds, numManifolds, constraints, numConstraints, info, debugDrawer, dispatcher);
        if (poison && !poisoned)
            for (int m = 0; m < numManifolds && !poisoned; ++m)
                if (manifolds[m]->getNumContacts() > 0)
                {
                    manifolds[m]->getContactPoint(0).m_appliedImpulse = std::numeric_limits<btScalar>::quiet_NaN();
                    poisoned = true;
                }
        return result;
    }

    bool poison = false;   ///< Poison one point in the next solves.
    bool poisoned = false; ///< One was, since `poison` was set.
};

// 80 chairs (3000 triangles, 10 modes, proxies at level 7) dropped in four layers onto the ground: several
// hundred manifolds once the pile lands, enough for the read-back to split from `cSplitFrom`.
struct ReadBackPile
{
    PoisoningSolver solver; // outlives the world that uses it
    std::unique_ptr<SampleWorld> world;
    std::vector<btRigidBody*> bodies;

    explicit ReadBackPile(unsigned inThreads)
    {
        SampleWorldSettings settings;
        settings.narrowphaseThreads = inThreads;
        world = std::make_unique<SampleWorld>(settings);
        WorldSettings readBack = world->Deformables().Settings();
        readBack.parallelReadBackManifolds = cSplitFrom;
        world->Deformables().SetSettings(readBack);
        world->Dynamics().setConstraintSolver(&solver);
        world->AddGroundPlane();
        bodies = test::AddChairPile(*world, 80, 4);
    }

    std::vector<double> State() const
    {
        std::vector<double> state = test::RawBodyState(bodies);
        for (btRigidBody* body : bodies)
            for (double v : World::Shape(body)->Dynamics().QDot())
                state.push_back(v);
        return state;
    }
};

TEST(WorldReadBack, TwoWalksAtOnceStepAsOne)
{
    ReadBackPile serial(1);
    ReadBackPile parallel(2);
    std::uint64_t mostManifolds = 0, rejectedAtPoison = 0;
    for (int step = 0; step < 150; ++step)
    {
        // A NaN impulse at step 100, in both worlds.
        serial.solver.poison = parallel.solver.poison = step == 100;
        serial.world->Step(1, cStep);
        parallel.world->Step(1, cStep);
        const StepStats& a = serial.world->Deformables().Stats();
        const StepStats& b = parallel.world->Deformables().Stats();
        mostManifolds = std::max(mostManifolds, b.manifolds);
        ASSERT_EQ(a.manifolds, b.manifolds) << "step " << step;
        ASSERT_EQ(a.contacts, b.contacts) << "step " << step;
        ASSERT_EQ(a.rejected, b.rejected) << "step " << step;
        if (step == 100)
            rejectedAtPoison = b.rejected;
        const std::vector<double> x = serial.State();
        const std::vector<double> y = parallel.State();
        ASSERT_EQ(x.size(), y.size());
        ASSERT_EQ(0, std::memcmp(x.data(), y.data(), x.size() * sizeof(double))) << "step " << step;
    }
    // The walks split (`cSplitFrom` manifolds or more), and the poisoned point was read back, ignored and counted (by
    // each deformable body it touched), in that step only: it is not carried on as the next step's warm start.
    EXPECT_GE(mostManifolds, std::uint64_t(2 * cSplitFrom));
    EXPECT_TRUE(parallel.solver.poisoned);
    EXPECT_GE(rejectedAtPoison, 1u);
    EXPECT_LE(rejectedAtPoison, 2u);
    EXPECT_EQ(parallel.world->Deformables().Stats().rejected, rejectedAtPoison);
    for (double v : parallel.State())
        ASSERT_TRUE(std::isfinite(v));
}

} // namespace
} // namespace bdt
