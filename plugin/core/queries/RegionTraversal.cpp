#include "TreeQueriesInternal.h"

#include "RegionTraversal.h"
#include <cmath>

namespace bdt
{

// The queries' own test and slack (`detail::SpheresOverlap`: 1e-9 of the radii plus 1e-13 of the coordinates).
bool BallsOverlap(const WorldBall& inA, const WorldBall& inB)
{
    return detail::SpheresOverlap({inA.center, inA.radius}, {inB.center, inB.radius});
}

BoxOverlapTest::BoxOverlapTest(const Mat3d& inRotationA, const Mat3d& inRotationB)
    : mRotationAT(inRotationA.transpose()), mR(inRotationA.transpose() * inRotationB),
      mAbsR(mR.cwiseAbs().array() + 1e-9)
{
}

bool BoxOverlapTest::operator()(const WorldBox& inA, const WorldBox& inB) const
{
    const Vec3d t = mRotationAT * (inB.center - inA.center); // B's centre in A's axes
    const Vec3d& a = inA.halfExtents;
    const Vec3d& b = inB.halfExtents;
    const double slack =
        detail::Slack(a.sum() + b.sum(), inA.center) + detail::cPositionSlack * inB.center.cwiseAbs().maxCoeff();
    // A's face normals, then B's.
    for (int i = 0; i < 3; ++i)
        if (std::abs(t[i]) > a[i] + mAbsR.row(i).dot(b) + slack)
            return false;
    for (int j = 0; j < 3; ++j)
        if (std::abs(mR.col(j).dot(t)) > mAbsR.col(j).dot(a) + b[j] + slack)
            return false;
    // Edge pairs: the axis A_i × B_j, written in A's axes.
    for (int i = 0; i < 3; ++i)
    {
        const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int j = 0; j < 3; ++j)
        {
            const int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            const double distance = std::abs(t[i2] * mR(i1, j) - t[i1] * mR(i2, j));
            const double reach =
                a[i1] * mAbsR(i2, j) + a[i2] * mAbsR(i1, j) + b[j1] * mAbsR(i, j2) + b[j2] * mAbsR(i, j1);
            if (distance > reach + slack)
                return false;
        }
    }
    return true;
}

} // namespace bdt
