#pragma once

// The constraint behind `World::Attach`: a point of a deformable body's deformed surface held to a point of
// another body (rigid, deformable, or the world), solved inside Bullet's solver iterations on the frame and the
// modes together.

#include <BulletDynamics/ConstraintSolver/btTypedConstraint.h>
#include <bdt/adapter/AttachmentSettings.h>
#include <bdt/bullet/ContactFeature.h>
#include <bdt/core/base/Math.h>
#include <cstdint>
#include <span>
#include <vector>

class btSolverBody;

namespace bdt
{
class DeformableShape;
}

namespace bdt::detail
{

class SolverConvergence;

/// One side of an attachment: a body and the point of it that is held. For a deformable side the point is a
/// surface point (tree-order triangle and barycentric weights) that moves with the modes; for a rigid side (or the
/// world, Bullet's fixed body) a point fixed in the body's frame.
/// The change of one deformable's generalised impulse that the attachments holding it make in the current solve,
/// summed over them: Σ_k U_kᵀ·δλ_k through the points' motion rows (`contact`) and through their impulse rows
/// (`inertial`, the frame's inertial share included), δλ_k = λ_k − λ°_k. Each attachment reads from it where the
/// others' impulses move its point through the shared modes, so that attachments sharing a body are solved
/// together (Gauss–Seidel over Bullet's iterations). `bdt::World` keeps one per body and zeroes it before each
/// solve (`Reset`).
struct AttachmentModes
{
    std::vector<double> contact, inertial;
    void Reset(std::size_t inModes)
    {
        contact.assign(inModes, 0.0);
        inertial.assign(inModes, 0.0);
    }
};

/// The cross-product matrix of `inVector`: Skew(a)·b = a × b.
inline Mat3d Skew(const Vec3d& inVector)
{
    Mat3d skew;
    skew << 0.0, -inVector.z(), inVector.y(), inVector.z(), 0.0, -inVector.x(), -inVector.y(), inVector.x(), 0.0;
    return skew;
}

/// The world position (m) of the point with barycentric `inWeights` on tree-order triangle `inTriangle` of
/// `inShape`'s deformed surface at its current q, for the body placed by `inWorldFromLocal`. O(M).
Vec3d DeformedSurfacePoint(const DeformableShape& inShape, const btTransform& inWorldFromLocal,
                           std::uint32_t inTriangle, const Vec3d& inWeights);

struct AttachmentSide
{
    btRigidBody* body = nullptr;
    DeformableShape* shape = nullptr; ///< Null for a rigid side.
    std::uint32_t triangle = 0;       ///< Tree order (deformable side).
    Vec3d weights = Vec3d::Zero();    ///< Barycentric (deformable side).
    btVector3 local{0, 0, 0};         ///< The point in the body's frame (rigid side).
    AttachmentModes* modes = nullptr; ///< The body's sum (deformable side); owned by `bdt::World`.
};

/// A ball joint between a deformable surface point (side A) and a point of side B, for Bullet's sequential
/// impulse solver. It has no solver rows of its own (`getInfo1` gives none): it solves itself in
/// `solveConstraintObsolete`, which the solver calls once per iteration, as one 3×3 block on where the held
/// points will be once the step is done, the frame's motion and the modes' together, as the contacts do
/// (`SetSolverGap`, `ShapeSolver::ResponseRows`):
///
///     h·(v_A(x_A) − v_B(x_B)) + (D_A − D_B) + (C_A + C_B)·(λ − λ°) + h·γ·λ  =  −β·(x_A − x_B)
///
/// x the deformed points at the step's start, v the frames' point velocities after the solve, λ the impulse of
/// this solve on A (−λ on B), λ° the last solve's; D a deformable side's predicted modal motion of its point over
/// the coming modal step with the loads it holds, and C (3×3) how far that motion moves per unit change of the
/// impulse, C_ab = Σ_j u_aj·(K_j·u_bj + c_j·(w_bj − u_bj)) (u, w the point's rows along the world axes,
/// K, c the step's change and held compliances): the modes take the attachment's impulse as they take a
/// contact's, through the pending generalised impulse (`AddPendingImpulse`, after the solve), held over the next
/// modal step. The changes the other attachments of the same body make move this point too: the modal term is
/// Σ_j u_aj·(K_j·G_j + c_j·(W_j − G_j)) over the body's `AttachmentModes` (G, W), this attachment's own C·(λ − λ°)
/// among them. A side that does not predict (static, asleep, rigid, `World::SetRigid`) has no modal term. The
/// frames' part of the block's effective mass is m⁻¹ − [r]× I⁻¹ [r]× per side. Softness: a spring of stiffness
/// k and damping c is γ = 1/(h(hk + c)), β = hk/(hk + c) (implicit Euler); a rigid pin has γ = 0 and
/// β = `AttachmentSettings::erp`.
class SurfaceAttachment final : public btTypedConstraint
{
public:
    /// `inB.body` is `btTypedConstraint::getFixedBody()` for the world. `ioConvergence` (the World's, which
    /// outlives the attachment; may be null) hears each iteration whether the attachment has converged, so that
    /// Bullet's solver keeps iterating over its group until it has.
    SurfaceAttachment(const AttachmentSide& inA, const AttachmentSide& inB, const AttachmentSettings& inSettings,
                      SolverConvergence* ioConvergence);

    /// Whether impulses reach the modes of deformable sides (false in `World::SetRigid`).
    void SetModesTakePart(bool inModesTakePart) { mModesTakePart = inModesTakePart; }
    const AttachmentSide& SideA() const { return mSides[0]; }
    const AttachmentSide& SideB() const { return mSides[1]; }
    /// The held point of a side, world frame, deformed at its current q (m).
    btVector3 WorldPoint(int inSide) const;
    /// The impulse of the last solve on side A (N·s, world).
    const btVector3& LastImpulse() const { return mLastImpulse; }
    /// λ°, the impulse the next solve starts from (the last solve's, N·s, world, on side A): with `LastImpulse`,
    /// all of the attachment's state that a later step reads (`World::SaveState`).
    const Vec3d& HeldImpulse() const { return mHeld; }
    /// Restores what `HeldImpulse` and `LastImpulse` gave (`World::LoadState`); between steps only.
    void RestoreImpulses(const Vec3d& inHeld, const btVector3& inLast)
    {
        mHeld = inHeld;
        mLastImpulse = inLast;
    }

    // --- btTypedConstraint ---
    void buildJacobian() override;
    void getInfo1(btConstraintInfo1* outInfo) override;
    void getInfo2(btConstraintInfo2* outInfo) override;
    void solveConstraintObsolete(btSolverBody& ioBodyA, btSolverBody& ioBodyB, btScalar inTimeStep) override;
    void setParam(int inNum, btScalar inValue, int inAxis) override;
    btScalar getParam(int inNum, int inAxis) const override;

    /// Adds the last solve's impulse to the pending generalised impulse of each predicting deformable side (±λ),
    /// once per solve; `bdt::World`'s post-tick calls it. Remembers λ as λ° for the next solve.
    void AddPendingImpulse();

    /// A side as this solve saw it at the step's start, for the coupled contact solve (`CoupledContactSolver`),
    /// which solves the attachment once more with the contacts: the held point and its lever from the centre of
    /// mass (m, world) and, for a side whose modes take part, its shape and rows along the world axes (u_a, and
    /// w_a with the frame's inertial share: `ShapeSolver::ResponseRows` along +x, +y, +z; M entries each).
    struct SolveSide
    {
        btRigidBody* body = nullptr;
        DeformableShape* shape = nullptr; ///< Null where the modes take no part.
        Vec3d point = Vec3d::Zero(), lever = Vec3d::Zero();
        std::span<const double> motion[3], impulse[3];
    };
    /// Whether a solve ran whose impulse the modes have not taken yet (`AddPendingImpulse`): only then are
    /// `Side`, `Impulse` and `SetImpulse` meaningful.
    bool Solved() const { return mPending && !mInverseMass.isZero(0.0); }
    SolveSide Side(int inSide) const;
    /// This solve's λ on side A (N·s, world).
    const Vec3d& Impulse() const { return mImpulse; }
    /// Replaces this solve's λ (the coupled solve's); `AddPendingImpulse` then gives the modes this one.
    void SetImpulse(const Vec3d& inImpulse);
    /// The end-of-step gap this solve aims at, (1 − β)·(x_A − x_B), and its softness h·γ (m per N·s): the solve
    /// makes the gap plus h·γ·λ reach the target.
    Vec3d TargetGap() const { return (1.0 - mBeta) * (mPrepared[0].point - mPrepared[1].point); }
    double Softness() const { return mTimeStep * mSoftness; }

private:
    /// Per side and step: the point, its lever from the centre of mass, and for a predicting deformable side its
    /// feature, rest-to-world rotation and predicted motion D and compliance C.
    struct Prepared
    {
        Vec3d point = Vec3d::Zero();
        Vec3d lever = Vec3d::Zero();
        bool predicting = false;
        ContactFeature feature;
        Mat3d restToWorld = Mat3d::Identity();
        Vec3d motion = Vec3d::Zero();
        Mat3d compliance = Mat3d::Zero();
        std::vector<double> rows[6]; // u along x, y, z, then w (M entries each)
    };
    /// How far the modal impulse changes summed so far in this solve move the side's point over the coming modal
    /// step (m, world).
    Vec3d SummedModalMotion(int inSide) const;
    /// Adds `inImpulse` (N·s, world, on the side) changing by `inChange` to the side's body sum.
    void AddToSum(int inSide, const Vec3d& inChange);
    void Prepare(int inSide, Prepared& outPrepared);
    /// The step's block from the bodies as the step found them (the first iteration of each solve).
    void PrepareBlock(double inTimeStep);

    AttachmentSide mSides[2];
    AttachmentSettings mSettings;
    bool mModesTakePart = true;
    Prepared mPrepared[2];
    Mat3d mInverseMass = Mat3d::Zero(); // (K + C/h + γI)⁻¹ for this step
    double mSoftness = 0.0;             // γ
    double mBeta = 0.0;                 // β
    Vec3d mBias = Vec3d::Zero();        // −(β·(x_A − x_B) + D_A − D_B)/h
    Vec3d mImpulse = Vec3d::Zero();     // λ accumulated in this solve
    Vec3d mHeld = Vec3d::Zero();        // λ°, the last solve's
    btVector3 mLastImpulse{0, 0, 0};
    double mTimeStep = 0.0;             // 0 until the solve's first iteration
    SolverConvergence* mConvergence = nullptr; // the World's; null: Bullet's residual alone ends the solve
    std::uint32_t mGroup = 0;           // the solver group this solve is in (`SolverConvergence::SetUpGroup`)
    int mIteration = 0;                 // of this solve, from 0
    bool mPending = false;              // a solve ran whose impulse the modes have not taken yet
};

} // namespace bdt::detail
