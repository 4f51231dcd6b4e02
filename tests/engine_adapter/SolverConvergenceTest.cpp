// SolverConvergence: Bullet's solver keeps iterating over a group while an attachment in it has not converged,
// and leaves other groups to the host's residual threshold. The class is driven as Bullet's sequential-impulse
// loop drives it, then watched in a world: a group of plain ball joints iterates exactly as often beside a hung,
// attached slab as without it, and the slab's own group iterates until its two pins agree.
#include "../../engine_adapter/src/SolverConvergence.h"

#include "support/BulletScenes.h"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletDynamics/ConstraintSolver/btContactSolverInfo.h>
#include <BulletDynamics/ConstraintSolver/btPoint2PointConstraint.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <bdt/adapter/World.h>
#include <bdt/samples/SampleWorld.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <memory>

namespace bdt
{
namespace
{

using detail::SolverConvergence;

TEST(SolverConvergence, AnUnconvergedReportHoldsTheIterationAndAConvergedOneGivesItBack)
{
    btContactSolverInfo info;
    info.m_numIterations = 10;
    info.m_leastSquaresResidualThreshold = btScalar(1e-6);
    SolverConvergence convergence(info);
    convergence.BeginStep();

    // Group 1: two attachments, the second converged from iteration 2 on, the first from iteration 3 on.
    const std::uint32_t group = convergence.SetUpGroup();
    EXPECT_EQ(convergence.SetUpGroup(), group); // both set up before the iterations
    for (int iteration = 0; iteration < 5; ++iteration)
    {
        convergence.Report(group, iteration, iteration >= 3);
        convergence.Report(group, iteration, iteration >= 2);
        // Bullet reads the threshold here, after the iteration.
        const bool held = info.m_leastSquaresResidualThreshold < btScalar(0);
        EXPECT_EQ(held, iteration < 3) << "iteration " << iteration;
        if (!held)
        {
            EXPECT_EQ(info.m_leastSquaresResidualThreshold, btScalar(1e-6)) << "iteration " << iteration;
        }
    }

    // Group 2 is a new group; an attachment that never converges lets go at the last iteration, so a group
    // without attachments after it runs on the host's threshold.
    const std::uint32_t next = convergence.SetUpGroup();
    EXPECT_NE(next, group);
    for (int iteration = 0; iteration < info.m_numIterations; ++iteration)
    {
        convergence.Report(next, iteration, false);
        if (iteration + 1 < info.m_numIterations)
        {
            EXPECT_LT(info.m_leastSquaresResidualThreshold, btScalar(0)) << "iteration " << iteration;
        }
    }
    EXPECT_EQ(info.m_leastSquaresResidualThreshold, btScalar(1e-6));

    // Left raised mid-group (a solve cut short), the step's end restores the host's value.
    convergence.Report(convergence.SetUpGroup(), 0, false);
    EXPECT_LT(info.m_leastSquaresResidualThreshold, btScalar(0));
    convergence.EndStep();
    EXPECT_EQ(info.m_leastSquaresResidualThreshold, btScalar(1e-6));

    // A value the host sets between steps is the one kept from then on.
    info.m_leastSquaresResidualThreshold = 0;
    convergence.BeginStep();
    const std::uint32_t third = convergence.SetUpGroup();
    convergence.Report(third, 0, false);
    convergence.Report(third, 1, true);
    EXPECT_EQ(info.m_leastSquaresResidualThreshold, btScalar(0));
}

/// A constraint with no rows that counts the solver's iterations over the group it is in.
class IterationCount final : public btTypedConstraint
{
public:
    explicit IterationCount(btRigidBody& ioBody) : btTypedConstraint(MAX_CONSTRAINT_TYPE, ioBody) {}
    int count = 0;

    void buildJacobian() override {}
    void getInfo1(btConstraintInfo1* outInfo) override
    {
        outInfo->m_numConstraintRows = 0;
        outInfo->nub = 0;
    }
    void getInfo2(btConstraintInfo2*) override {}
    void solveConstraintObsolete(btSolverBody&, btSolverBody&, btScalar) override { ++count; }
    void setParam(int, btScalar, int) override {}
    btScalar getParam(int, int) const override { return 0; }
};

struct Iterations
{
    int plain = 0; ///< Over the ball-joint pair's group, all steps.
    int slab = 0;  ///< Over the hung slab's group, all steps (0 without it).
};

/// A pair of boxes on a ball joint falling freely, alone or beside a modal slab hung by two corners from the
/// world (its own group: `m_minimumSolverBatchSize` 1 solves each island apart); the iterations each group gets
/// over `inSteps` steps, and the slab's pins' largest gap at the end (m).
Iterations CountIterations(bool inSlab, int inSteps, float* outPinGap = nullptr)
{
    SampleWorld world;
    world.Dynamics().getSolverInfo().m_minimumSolverBatchSize = 1;
    const btTransform at(btQuaternion::getIdentity(), btVector3(0, -50, 0));
    btRigidBody* a = world.AddRigid(std::make_unique<btBoxShape>(btVector3(0.1f, 0.1f, 0.1f)), at, 1.0);
    btRigidBody* b = world.AddRigid(std::make_unique<btBoxShape>(btVector3(0.1f, 0.1f, 0.1f)),
                                    btTransform(at.getBasis(), at.getOrigin() + btVector3(0.5f, 0, 0)), 1.0);
    a->setActivationState(DISABLE_DEACTIVATION);
    world.AddConstraint(
        std::make_unique<btPoint2PointConstraint>(*a, *b, btVector3(0.25f, 0, 0), btVector3(-0.25f, 0, 0)));
    auto* plain = static_cast<IterationCount*>(world.AddConstraint(std::make_unique<IterationCount>(*a)));
    IterationCount* slabCount = nullptr;
    World& deformables = world.Deformables();
    btRigidBody* slab = nullptr;
    SurfacePoint corners[2];
    btVector3 pins[2];
    if (inSlab)
    {
        BodySettings desc;
        desc.mass = 10.0;
        desc.transform.setOrigin(btVector3(0, 3, 0));
        slab = deformables.CreateBody(test::ModalShapeAsset("slab", 800, 6, 2e6), desc);
        slab->setActivationState(DISABLE_DEACTIVATION);
        for (int k = 0; k < 2; ++k)
        {
            corners[k] = deformables.ClosestSurfacePoint(slab, desc.transform * btVector3(k == 0 ? 0.5f : -0.5f,
                                                                                         0.05f, 0.5f));
            pins[k] = deformables.SurfacePosition(slab, corners[k]);
            deformables.Attach(slab, corners[k], nullptr, pins[k]);
        }
        slabCount = static_cast<IterationCount*>(world.AddConstraint(std::make_unique<IterationCount>(*slab)));
    }
    world.Step(inSteps);
    if (outPinGap != nullptr && slab != nullptr)
        *outPinGap = std::max((deformables.SurfacePosition(slab, corners[0]) - pins[0]).length(),
                              (deformables.SurfacePosition(slab, corners[1]) - pins[1]).length());
    return {plain->count, slabCount != nullptr ? slabCount->count : 0};
}

TEST(SolverConvergence, APlainGroupIteratesAsOftenBesideAttachmentsAsWithout)
{
    constexpr int cSteps = 120;
    const int iterations = btContactSolverInfo().m_numIterations;
    const Iterations alone = CountIterations(false, cSteps);
    float gap = 0.0f;
    const Iterations beside = CountIterations(true, cSteps, &gap);
    // The test means something only if the plain group stops early on its own.
    ASSERT_LT(alone.plain, cSteps * iterations);
    EXPECT_GE(alone.plain, cSteps);
    EXPECT_EQ(beside.plain, alone.plain);
    // The slab's group, with no Bullet rows (its residual 0 after one iteration), iterates while its two pins,
    // which share the body, disagree, and no more than the solver's budget; the pins hold.
    EXPECT_GT(beside.slab, cSteps);
    EXPECT_LE(beside.slab, cSteps * iterations);
    EXPECT_LT(gap, 2e-3f);
}

} // namespace
} // namespace bdt
