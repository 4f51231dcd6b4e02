#include "SolverConvergence.h"

#include <BulletDynamics/ConstraintSolver/btContactSolverInfo.h>

namespace bdt::detail
{

namespace
{
constexpr btScalar cEveryIteration = -1; // a threshold no squared residual meets
}

void SolverConvergence::BeginStep()
{
    mHostThreshold = mInfo.m_leastSquaresResidualThreshold;
    ++mGroup;
    mIterating = false;
    mSeenIteration = -1;
}

void SolverConvergence::EndStep()
{
    mInfo.m_leastSquaresResidualThreshold = mHostThreshold;
}

std::uint32_t SolverConvergence::SetUpGroup()
{
    // Bullet sets a group up (every constraint's buildJacobian) before it iterates over it, one group at a time.
    if (mIterating)
    {
        ++mGroup;
        mIterating = false;
    }
    return mGroup;
}

void SolverConvergence::Report(std::uint32_t inGroup, int inIteration, bool inConverged)
{
    mIterating = true;
    if (inGroup != mSeenGroup || inIteration != mSeenIteration)
    {
        mSeenGroup = inGroup;
        mSeenIteration = inIteration;
        mInfo.m_leastSquaresResidualThreshold = mHostThreshold;
    }
    // Attachments solve only in the first m_numIterations iterations; after the last the group ends anyway.
    if (!inConverged && inIteration + 1 < mInfo.m_numIterations)
        mInfo.m_leastSquaresResidualThreshold = cEveryIteration;
}

} // namespace bdt::detail
