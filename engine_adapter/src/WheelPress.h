#pragma once

// The load of a btRaycastVehicle's wheels on a body of bdt::World, given inside Bullet's solve as a contact's
// impulse is (WorldVehicles.cpp).

#include "SurfaceAttachment.h"

#include <BulletDynamics/ConstraintSolver/btTypedConstraint.h>
#include <bdt/core/base/Math.h>
#include <span>
#include <utility>
#include <vector>

namespace bdt
{
class DeformableShape;
}

namespace bdt::detail
{

/// The wheels' loads on one deformable over a step (world points and impulses, N·s), a known impulse the solve
/// applies once, at its first iteration: to the frame, and through the body's `AttachmentModes` sums to the
/// modes' coming motion, so that the attachments and joints holding the body meet it in the same solve (the
/// change from the last step's, as theirs). `Finish` gives the modes the impulse after the solve. No rows.
class WheelPress final : public btTypedConstraint
{
public:
    WheelPress(btRigidBody& ioBody, DeformableShape& ioShape, AttachmentModes& ioModes);

    /// This step's loads: the last step's forgotten, then each added (world point, impulse on the body).
    void ClearLoads() { mLoads.clear(); }
    void AddLoad(const btVector3& inPoint, const btVector3& inImpulse) { mLoads.emplace_back(inPoint, inImpulse); }
    /// This solve's generalised impulse of the loads on the modes (Σ u) and its inertial counterpart (Σ w), M
    /// entries; empty before the solve or where the modes take no part.
    std::span<const double> Solved() const { return Solving() ? mMotion : std::span<const double>(); }
    std::span<const double> SolvedInertial() const { return Solving() ? mImpulse : std::span<const double>(); }
    /// The body pressed.
    const DeformableShape& Shape() const { return mShape; }
    /// After the solve: the loads into the modes' pending impulse; remembered as the next solve's held ones.
    void Finish();
    /// The last solve's generalised impulses (Σ u, Σ w; M entries, or none), which the next solve's change is
    /// from: for snapshots.
    std::span<const double> Held() const { return mHeld; }
    std::span<const double> HeldInertial() const { return mHeldInertial; }
    void SetHeld(std::span<const double> inHeld, std::span<const double> inInertial)
    {
        mHeld.assign(inHeld.begin(), inHeld.end());
        mHeldInertial.assign(inInertial.begin(), inInertial.end());
    }

    // --- btTypedConstraint ---
    void buildJacobian() override { mApplied = false; }
    void getInfo1(btConstraintInfo1* outInfo) override;
    void getInfo2(btConstraintInfo2*) override {}
    void solveConstraintObsolete(btSolverBody& ioBody, btSolverBody& ioOther, btScalar inTimeStep) override;
    void setParam(int, btScalar, int) override {}
    btScalar getParam(int, int) const override { return 0; }

private:
    bool Solving() const { return mApplied && mPredicting; }

    DeformableShape& mShape;
    AttachmentModes& mModes;
    std::vector<std::pair<btVector3, btVector3>> mLoads;
    std::vector<double> mMotion, mImpulse; // Σ over the loads of the modal rows u, w (generalised impulse)
    std::vector<double> mHeld, mHeldInertial; // the last solve's
    bool mApplied = false;
    bool mPredicting = false;
};

} // namespace bdt::detail
