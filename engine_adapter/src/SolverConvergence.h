#pragma once

// When Bullet's solver may stop iterating while constraints that solve outside its rows (the attachments) take
// part: only as long as they are converged, and only in the groups they are in.

#include <LinearMath/btScalar.h>
#include <cstdint>

struct btContactSolverInfo;

namespace bdt::detail
{

/// Keeps Bullet's sequential-impulse solver iterating over a group of islands while an attachment in it has not
/// converged, and leaves every other group to the host's rule.
///
/// Bullet ends a group's iterations once the largest squared residual of its own rows is at or below
/// `btContactSolverInfo::m_leastSquaresResidualThreshold` (0 by default: when no row changes), which it reads
/// from the world's solver info after each iteration. An attachment solves itself in `solveConstraintObsolete`,
/// with no rows, so its own error never reaches that residual: a group held only by attachments would stop after
/// one iteration. Each attachment reports every iteration whether its velocity error was within
/// `cConvergedSpeed`; the first report of an iteration puts the host's threshold back, and an unconverged one
/// sets a threshold no residual meets for the rest of that iteration. Groups are told apart by the
/// `buildJacobian` calls that set each one up. The last iteration puts the host's threshold back whatever the
/// reports, so a group that follows without attachments runs as the host asked.
///
/// One per `bdt::World`, shared by its attachments (which hold a pointer). Single-threaded, as Bullet's solver
/// calls its constraints. O(1) per call.
class SolverConvergence
{
public:
    /// An attachment whose velocity error along its held points is at most this (m/s) has converged: over a
    /// 1/60 s step, 0.2 µm.
    static constexpr double cConvergedSpeed = 1e-5;

    explicit SolverConvergence(btContactSolverInfo& ioInfo) : mInfo(ioInfo) {}

    /// Before Bullet's solve (the World's pre-tick): remembers the host's threshold, which `EndStep` restores.
    void BeginStep();
    /// After Bullet's solve: the host's threshold again, whatever the last group left.
    void EndStep();
    /// From an attachment's `buildJacobian`: the number of the group being set up.
    std::uint32_t SetUpGroup();
    /// From an attachment's `solveConstraintObsolete`, iteration `inIteration` (from 0) of group `inGroup`.
    void Report(std::uint32_t inGroup, int inIteration, bool inConverged);

private:
    btContactSolverInfo& mInfo;
    btScalar mHostThreshold = 0;
    std::uint32_t mGroup = 0;      // the group being set up or solved
    bool mIterating = false;       // a report came since the group was set up: the next set-up is a new group
    std::uint32_t mSeenGroup = ~0u; // the last report's group and iteration
    int mSeenIteration = -1;
};

} // namespace bdt::detail
