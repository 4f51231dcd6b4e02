#pragma once

// The contacts of deformable bodies solved once more after Bullet's solve, coupled through the modes they share,
// private to the engine adapter (`bdt::World`).

#include <bdt/core/base/Math.h>
#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

class btCollisionObject;
class btDiscreteDynamicsWorld;
class btManifoldPoint;
class btRigidBody;

namespace bdt
{
class DeformableShape;
}

namespace bdt::detail
{
class SurfaceAttachment;

/// A body whose modes the coupled solve moves: its shape (with a prediction, `ShapeSolver::Predicting`) and
/// the inertial impulse of the frame's motion as Bullet solved it (`InertialForce` times the step), which its modes
/// hold over the coming modal step besides the contacts' impulses, M entries.
struct CoupledBody
{
    DeformableShape* shape = nullptr;
    std::span<const double> baseImpulse;
    /// What this solve's joints and wheel loads, settled before the coupled solve, add to the modes' pending
    /// impulse (Σ λ·u) and its inertial counterpart (Σ λ·w), M entries or none: held fixed by it.
    std::span<const double> fixedImpulse, fixedInertial;
};

/// What the last `CoupledContactSolver::Solve` did.
struct CoupledStats
{
    std::uint64_t rows = 0;   ///< Contact points solved (those of manifolds with a predicting deformable side).
    std::uint64_t sweeps = 0; ///< Gauss-Seidel sweeps over them.
    double residual = 0.0;    ///< Largest gap change (m) of the last sweep.
};

/// Bullet's solver sees each contact of a vibrating body with the modal give of that contact alone (its
/// compliance c_ii, `PredictContacts`): one contact's impulse also moves the body's other contacts through the
/// modes they share (C_ik = u_i·(c⊙w_k), `ShapeSolver::ResponseRows`), and a body resting on N contacts that
/// all load one mode gives N times as much to a change of their common load as the solver assumed. The modes
/// then move farther than any contact expected, the contacts open or close by the difference a step later, and
/// the loop feeds the modes: a modal body on the ground rings for good instead of ringing down.
///
/// After Bullet's solve (and its integration), this solves the normal impulses of every contact point touching a
/// predicting body once more, by projected Gauss-Seidel from Bullet's impulses, with the whole coupling: the end-
/// of-step gap of point i is
///
///     g_i = d_i + h·(v_A(p_A) − v_B(p_B))·n_i + Σ_sides u_i·(b + c⊙F + K⊙G),   G = Σ_k u_k λ_k,
///
/// the frames' velocities and each predicting body's whole modal step (`ShapeSolver::StepBase` b, the
/// frame's inertial impulse F held over the step with `StepHeldCompliance` c, the contacts' generalised impulse
/// G with `StepChangeCompliance` K: exactly what `World` steps the modes with; a change of λ_k also changes F
/// through the frame's acceleration, `ShapeSolver::ResponseRows`).
/// Each λ_i ≥ 0 makes g_i reach Bullet's own target (d + erp·penetration for a shallow penetration, d for a deep
/// one Bullet leaves to split impulses, 0 apart: speculative), or is 0 with the gap beyond it. Frames take the
/// change of their impulses as a change of velocity and, since Bullet has already integrated them, of position
/// (h·δv, and the rotation of h·δω). Points with restitution that separate faster than Bullet's restitution
/// threshold, and soft contacts (a contact ERP: stiffness and damping), keep Bullet's impulse. Friction keeps
/// Bullet's impulses. The contact is then implicit in the modes as in the frames: no lag, nothing fed.
///
/// The attachments (`SurfaceAttachment`) holding a predicting body are solved in the same sweeps: three
/// bilateral rows each, one per world axis, with the same gap (their points at the step's start, the frames'
/// velocities, the modes' motion) and their own target and softness (`SurfaceAttachment::TargetGap`,
/// `Softness`): g_a + h·γ·λ_a = (1 − β)·(x_A − x_B)_a. A body carrying a load on contacts while held by
/// attachments is then solved as one system through its modes; solved apart, each side's impulses move the
/// other's points a step later, and a soft body between them rings for seconds.
///
/// Not thread-safe (Bullet's bodies and manifolds are written); one instance keeps its scratch between steps.
class CoupledContactSolver
{
public:
    /// Solves the contacts of the world's manifolds that touch one of `inBodies` (others are left as Bullet
    /// solved them), `inMaxSweeps` sweeps at most, fewer once no gap changes by more than `inTolerance` (m) in a
    /// sweep. `inTimeStep` is the step Bullet just took.
    CoupledStats Solve(btDiscreteDynamicsWorld& ioWorld, std::span<const CoupledBody> inBodies,
                       std::span<SurfaceAttachment* const> inAttachments, double inTimeStep, int inMaxSweeps,
                       double inTolerance);

private:
    struct Frame
    {
        btRigidBody* body = nullptr; // null: static
        bool dynamic = false;        // moved by the solve (else static or kinematic: its velocity is read only)
        Vec3d linear = Vec3d::Zero(), angular = Vec3d::Zero();
        Vec3d deltaLinear = Vec3d::Zero(), deltaAngular = Vec3d::Zero();
        Vec3d linearFactor = Vec3d::Zero(); // inverse mass times Bullet's linear factor
        Vec3d angularFactor = Vec3d::Zero();
        Mat3d inverseInertia = Mat3d::Zero();
    };
    struct Modal
    {
        DeformableShape* shape = nullptr;
        std::size_t offset = 0; // of its M entries in mEnd
        std::uint32_t modes = 0;
    };
    struct Side
    {
        int frame = -1;
        int modal = -1;         // index in mModal, -1 if the side's modes take no part
        std::size_t rows = 0;   // offset of u and c⊙w in mMotion, mResponse
        Vec3d lever = Vec3d::Zero(), angularPerImpulse = Vec3d::Zero();
    };
    struct Row
    {
        btManifoldPoint* point = nullptr;        // a contact's, or
        SurfaceAttachment* attachment = nullptr; // an attachment's row along world axis `axis` (bilateral)
        int axis = 0;
        Side sides[2];
        Vec3d normal = Vec3d::Zero(); // from B to A
        double distance = 0.0, target = 0.0, diagonal = 0.0, impulse = 0.0;
        double softness = 0.0; // h·γ of an attachment
        bool fixed = false;    // keeps Bullet's impulse (restitution, soft contact)
    };

    int FrameOf(const btCollisionObject* inObject);
    /// Side `inSide` of `ioRow` at `inLever` from `inObject`'s centre of mass: its frame and the frame's spin per
    /// unit impulse along the row.
    void SetUpFrame(Row& ioRow, int inSide, const btCollisionObject* inObject, const Vec3d& inLever);
    /// The frame's spin per unit impulse along side `inSide`'s direction (+n on A, −n on B), or null for a frame
    /// the solve does not move: what `ShapeSolver::ResponseRows` takes.
    const Vec3d* SideSpin(const Row& inRow, int inSide, Vec3d& outSpin) const;
    /// Side `inSide`'s modes (body `inModal`) take part, with u at `inOffset` of `mMotion` and w in `mScratch`:
    /// its response K⊙u + c⊙(w − u), and the impulse Bullet gave the row in the modes' motion.
    void SetUpModes(Row& ioRow, int inSide, int inModal, std::size_t inOffset);
    /// Finishes `ioRow` (its diagonal; fixed where that is not positive) and adds it.
    void AddRow(Row& ioRow);
    void AddContactRows(btDiscreteDynamicsWorld& ioWorld);
    void AddAttachmentRows(std::span<SurfaceAttachment* const> inAttachments);
    /// Gives the solved impulses back: the contacts' manifold points, the attachments' λ.
    void WriteImpulses();
    double Gap(const Row& inRow) const;
    void Apply(const Row& inRow, double inDelta);
    void WriteBack(double inTimeStep);

    std::vector<Frame> mFrames;
    std::unordered_map<const btCollisionObject*, int> mFrameIndex;
    std::vector<Modal> mModal;
    std::unordered_map<const DeformableShape*, int> mModalIndex;
    std::vector<double> mEnd;      // per modal body: b + c⊙F + K⊙G, the modes' motion over the step
    std::vector<double> mMotion;   // per row side: u
    std::vector<double> mResponse; // per row side: K⊙u + c⊙(w − u)
    std::vector<double> mScratch;  // w of one side
    std::vector<Row> mRows;
    double mTimeStep = 0.0;
};

} // namespace bdt::detail
