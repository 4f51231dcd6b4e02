#pragma once

// A host's own Bullet joint solved with the modes of the deformable bodies it holds (issue 55): its rows, as the
// joint writes them, solved inside Bullet's iterations on the frames and the modes together, as an attachment is.

#include "SurfaceAttachment.h"

#include <BulletDynamics/ConstraintSolver/btTypedConstraint.h>
#include <bdt/core/base/Math.h>
#include <Eigen/Core>
#include <cstdint>
#include <span>
#include <vector>

namespace bdt
{
class DeformableShape;
}

namespace bdt::detail
{

/// Where a Bullet joint holds a deformable body, fixed when first seen: the joint's frame there as the host set it
/// (body frame; a ball joint's is its pivot), the rest surface's point nearest the pivot and up to six more about
/// it (tree-order triangles, barycentric weights), and the map from a torque about the anchor to forces at those
/// points that exert it with no net force (body frame, rest shape). Its transpose gives the material's rotation
/// there from the points' displacements, so the joint's load on the modes and its frame's motion are conjugate.
struct JointAnchor
{
    static constexpr int cMaxPoints = 7;

    btTransform frame = btTransform::getIdentity();
    int points = 0;
    std::uint32_t triangles[cMaxPoints] = {};
    Vec3d weights[cMaxPoints];
    Mat3d torqueToForce[cMaxPoints];
    Vec3d pivotArm = Vec3d::Zero(); ///< The pivot less the anchor, body frame, rest shape.
};

/// One side of a host joint for a solve: ours (a deformable made by `bdt::World`) or not (`shape` null).
struct HostJointSide
{
    DeformableShape* shape = nullptr;
    const JointAnchor* anchor = nullptr;
    AttachmentModes* modes = nullptr; ///< The body's sum, shared with its attachments; owned by `bdt::World`.
};

/// Stands in for a host's joint over one step: `bdt::World` disables the host's joint and adds this one, which asks
/// the host's joint for its rows (`getInfo1`, `getInfo2`, as Bullet's solver would) and solves them in
/// `solveConstraintObsolete`, once per iteration, each row on where the held surface will be once the step is
/// done:
///
///     J·v + (D_r + Σ_j u_rj·(K_j·G_j + c_j·(W_j − G_j)))/h + ε_r·λ_r  =  e_r,   λ_r clamped to the row's limits
///
/// J, e, ε and the limits the host joint's (the Jacobian on the frames, its error term with Bullet's erp, its
/// cfm), v the frames' velocities, u_r and w_r the row's modal rows on each of our sides (`ShapeSolver::
/// ResponseRows` of its force at the anchor and its torque about it spread over the anchor's points), D_r the
/// predicted modal motion along them, and G, W the body's sums (`AttachmentModes`), this solve's change of the
/// held impulse. With the host's frames following the surface they hold (`bdt::World` sets them), the joint sees
/// the modes' compliance and their coming motion: no lag for a stiff frame to pump (the added-mass effect of a
/// staggered solve). `Finish` gives the modes the impulse and the host its feedback, applied impulse and
/// breaking, as Bullet's solver would have.
class HostJointSolve final : public btTypedConstraint
{
public:
    explicit HostJointSolve(btTypedConstraint& ioHost);

    btTypedConstraint& Host() const { return mHost; }
    /// The sides for the coming solve and the solver's settings Bullet passes its joints (`btContactSolverInfo`).
    void SetSides(const HostJointSide& inA, const HostJointSide& inB, double inErp, double inDamping,
                  double inGlobalCfm, int inIterations);
    /// After the solve: the rows' impulses into the pending impulse of each side whose modes took part, and the
    /// host's feedback (if it has one), applied impulse and breaking (`setEnabled(false)` past its threshold).
    /// Remembers the generalised impulse as the next solve's held one.
    void Finish(double inTimeStep);
    /// The last solve's generalised impulse on side `inSide`'s modes, Σ_r λ_r·u_r and Σ_r λ_r·w_r (M entries, or
    /// none), which the next solve starts from; a snapshot saves and restores them.
    std::span<const double> Held(int inSide) const { return mHeld[inSide]; }
    std::span<const double> HeldInertial(int inSide) const { return mHeldInertial[inSide]; }
    void SetHeld(int inSide, std::span<const double> inHeld, std::span<const double> inInertial)
    {
        mHeld[inSide].assign(inHeld.begin(), inHeld.end());
        mHeldInertial[inSide].assign(inInertial.begin(), inInertial.end());
    }

    /// Adds this solve's generalised impulse on side `inSide`'s modes, Σ_r λ_r·u_r and Σ_r λ_r·w_r, to the two
    /// vectors (M entries); nothing where the side's modes took no part.
    void AddSolved(int inSide, std::vector<double>& ioImpulse, std::vector<double>& ioInertial) const;
    /// The body on side `inSide` whose modes took part in the solve, or null.
    const DeformableShape* SolvedShape(int inSide) const
    {
        return mSolved && mPredicting[inSide] ? mSides[inSide].shape : nullptr;
    }

    // --- btTypedConstraint ---
    void buildJacobian() override;
    void getInfo1(btConstraintInfo1* outInfo) override;
    void getInfo2(btConstraintInfo2* outInfo) override;
    void solveConstraintObsolete(btSolverBody& ioBodyA, btSolverBody& ioBodyB, btScalar inTimeStep) override;
    void setParam(int inNum, btScalar inValue, int inAxis) override;
    btScalar getParam(int inNum, int inAxis) const override;

private:
    static constexpr int cMaxRows = 6;
    /// One row of the host joint for this solve.
    struct Row
    {
        btVector3 linear[2], angular[2];      // J on A and B
        btVector3 linearStep[2], angularStep[2]; // the velocity change per unit impulse
        double target = 0.0, cfm = 0.0, lower = 0.0, upper = 0.0;
        double inverseMass = 0.0;            // 1/(J M⁻¹ Jᵀ + Σ C_rr/h + ε)
        double motion = 0.0;                 // Σ_sides D_r
        double impulse = 0.0;                // λ_r
        std::vector<double> u[2], w[2];       // modal rows on our predicting sides (M entries)
    };
    void Prepare(btSolverBody& ioBodyA, btSolverBody& ioBodyB, double inTimeStep);
    /// The host's rows as its `getInfo2` writes them, into `mRows` (its Jacobians, limits, softness and target),
    /// with their modal couplings where a side is predicting.
    void ReadHostRows(btSolverBody& ioBodyA, btSolverBody& ioBodyB, double inTimeStep);
    /// The rows' coupling matrix (`mCoupling`) through the frames and the modes, and each row's inverse mass.
    void BuildCoupling(double inTimeStep);
    /// The row's modal rows on side `inSide`, and its predicted motion along them; false where the modes take no part.
    bool ModalRows(int inSide, Row& ioRow) const;

    btTypedConstraint& mHost;
    HostJointSide mSides[2];
    bool mPredicting[2] = {false, false};
    double mErp = 0.2, mDamping = 1.0, mGlobalCfm = 0.0;
    int mIterations = 10;
    /// The rows' velocity (frames and modes) at this point of the solve, less their targets and softness: the
    /// residual e_r − J·v − motion/h − ε_r·λ_r.
    double Residual(const btSolverBody& inBodyA, const btSolverBody& inBodyB, const Row& inRow) const;
    /// Applies the change `inDelta` of row `ioRow`'s impulse to the frames and the modal sums.
    void ApplyChange(btSolverBody& ioBodyA, btSolverBody& ioBodyB, Row& ioRow, double inDelta);

    Row mRows[cMaxRows];
    int mRowCount = 0;
    /// The rows are solved together each iteration through their coupling A = J M⁻¹ Jᵀ + C/h + ε (the frames' and
    /// the modes' between rows: a fixed joint's rows act through the same modes, which a row at a time would
    /// converge on slowly), the rows with limits held at the bound they pass (a small active-set solve).
    Eigen::Matrix<double, cMaxRows, cMaxRows> mCoupling;
    double mTimeStep = 0.0; // 0 until the solve's first iteration
    bool mSolved = false;   // a solve ran that `Finish` has not read
    std::vector<double> mHeld[2], mHeldInertial[2]; // Σ_r λ°_r u_r and Σ_r λ°_r w_r of the last solve, per side
};

} // namespace bdt::detail
