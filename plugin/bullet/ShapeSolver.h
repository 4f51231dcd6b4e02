#pragma once

// The step's solver hooks on a DeformableShape: not installed, called by `bdt::World` and the collision
// algorithms. A host sees only DeformableShape.h; these change with the solver.

#include <bdt/bullet/DeformableShape.h>

#include <span>
#include <vector>

namespace bdt
{

/// How a proxy or surface point of a deformable body moves over the coming step along a direction, as the
/// contact solver must see it (`ShapeSolver::Response`).
struct ProxyStepResponse
{
    /// World units: the motion along the direction if the contacts keep the held impulse and the frame its
    /// inertial force (`StepPrediction`).
    double displacement = 0.0;
    /// World units per N·s: the further motion per unit change of this solve's impulse there along the
    /// direction (the modes' kicked and held response, and the frame acceleration's). Normally ≥ 0.
    double compliance = 0.0;
};

/// How the coming step will treat a body's modes and its contacts (`ShapeSolver::PredictStep`).
struct StepPrediction
{
    double timeStep = 1.0 / 60.0; ///< s, > 0: the step the modes will be advanced by (`ModalDynamics::Step`).
    bool inertialForcing = true;   ///< The step adds the frame's inertial force (`WorldSettings::inertialForcing`).
    /// The solver's Baumgarte factor for penetrating contacts (m_erp2), in (0, 1]: the predicted motion is
    /// handed to the solver in full, not scaled by it.
    double contactErp = 0.2;
    /// The contacts' generalised impulse the step holds as a constant force, M entries (N·s·model unit; empty:
    /// none); the change this solve makes to it is kicked at the step's start. Read, not kept.
    std::span<const double> heldImpulse = {};
    /// The other generalised force the step holds (the frame's inertial force, the host's loads), M entries,
    /// N·model unit.
    std::span<const double> heldForce = {};
    /// q before the modal step just taken, M entries (empty: unknown): a mode at its strain limit before and
    /// after it is held there by a steady load, not carried there by a passing one.
    std::span<const float> previousQ = {};
};

/// The per-body data and calls of the step's solver, in the order `bdt::World` makes them each step:
/// `PredictStep`, the narrowphase (patches, surface cache, `Response`), the coupled solve (`ResponseRows`,
/// `Coupling`, the mobilities), the impulse read-back (`AccumulateImpulse`), then the modal step and
/// `DeformableShape::BeginStep`.
///
/// Impulses have two verbs: `Apply...` changes q̇ now; `Accumulate...` adds to the pending generalised impulse,
/// which `FlushImpulses` applies (or `bdt::World` holds as a force over the modal step that ends the step).
///
/// Owned by its shape and reached with `Of`, also from a const shape (Bullet hands the narrowphase const
/// shapes): like the sphere cache, it is mutable state behind a const face. Not thread-safe.
class ShapeSolver
{
public:
    explicit ShapeSolver(DeformableShape& inShape);

    /// The solver of `inShape`.
    static ShapeSolver& Of(const DeformableShape& inShape) { return *inShape.mSolver; }

    // --- The narrowphase's data ---

    /// The sphere cache, mutable (queries update it).
    TreeState& State() const { return mShape.mState; }
    /// The surface patches of the current proxy level; null until the body first uses the surface model.
    const ProxyPatches* Patches() const { return mShape.mPatches.get(); }
    /// The tree's BD-AABB box rows the surface model culls by; loaded with the patches.
    const BDAabbTree* SurfaceBoxes() const { return mShape.mSurfaceBoxes.get(); }
    /// The surface model's contact pieces; loaded with the patches.
    const ContactPieces* Pieces() const { return mShape.mPieces.get(); }
    /// The deformed vertices of the patches the surface contacts touched this step.
    SurfaceCache& Surface() const { return *mShape.mSurface; }
    /// Which contact pieces the narrowphase used last step and uses this one; null without pieces.
    PieceMemory* PieceUse() const { return mShape.mPieceUse.get(); }
    /// Forgets the pieces in use: the next step chooses them as a new body's would (a restored snapshot).
    void ForgetPieceUse();
    /// The work counters the queries and the narrowphase add to (`DeformableShape::Stats`, `Narrowphase`).
    QueryStats& WorkStats() const { return mShape.mStats; }
    NarrowphaseStats& NarrowphaseWork() const { return mShape.mNarrowphase; }
    /// Brings the shape's q, root sphere and prediction into the processor's cache ahead of a query: a hint.
    void Prefetch() const;

    // --- The prediction ---

    /// Tells the narrowphase that the modes will be stepped over `timeStep` as `bdt::World` steps them, so its
    /// contacts carry that motion (`Response`). A mode held at its strain limit by a steady load is predicted
    /// to stay there. Call after the modal step and `BeginStep`. An invalid step or erp clears it. O(M).
    void PredictStep(const StepPrediction& inPrediction);
    /// Forgets the prediction: the solver sees the surface rigid where q puts it (static, asleep, `SetQ`).
    void ClearPrediction() { mPredicting = false; }
    /// Whether a prediction is in force, and the one in force.
    bool Predicting() const { return mPredicting; }
    const StepPrediction& Prediction() const { return mPrediction; }
    /// The step's motion of a contact feature along the world unit vector `inDirection`, and its compliance
    /// Σ_j u_j (K_j u_j + c_j (w_j − u_j)) with u, w the rows of `ResponseRows`. `inFrameAngularPerImpulse`
    /// (world rad/s per N·s, I⁻¹(r × d)) is null if the solver does not move the frame. Zero without a
    /// prediction or outside the tree. ~22M flops at a surface point.
    ProxyStepResponse Response(const ContactFeature& inFeature, const Vec3d& inDirection, const Mat3d& inRestToWorld,
                               const Vec3d* inFrameAngularPerImpulse = nullptr) const;
    /// `Response` at proxy `inNode`, through its mean displacement row Ū.
    ProxyStepResponse ProxyResponse(std::uint32_t inNode, const Vec3d& inDirection, const Mat3d& inRestToWorld,
                                    const Vec3d* inFrameAngularPerImpulse = nullptr) const;
    /// The two rows of `Response`, M entries each: `outMotion` u_j = s·(Rᵀd)·U_j(x), the point's motion along d
    /// per unit q_j, and `outImpulse` w_j, the generalised impulse mode j takes over the step per unit impulse
    /// along d (u_j less the inertial impulse of the frame acceleration it causes). False without a prediction
    /// or outside the tree. ~14M flops.
    bool ResponseRows(const ContactFeature& inFeature, const Vec3d& inDirection, const Mat3d& inRestToWorld,
                      const Vec3d* inFrameAngularPerImpulse, std::span<double> outMotion,
                      std::span<double> outImpulse) const;
    /// a_j + c_j⊙(H_j + h·F°_j): mode j's motion over the coming step if the loads stay as held; `Response`'s
    /// displacement is Σ_j u_j times it. M entries; empty without a prediction.
    std::span<const double> StepDisplacement() const { return Predicted(mStepDisplacement); }
    /// b_j = a_j + (c_j − K_j)·H_j: the coming step moves mode j by b_j + c_j·F_j + K_j·G_j for this solve's
    /// generalised impulse G and the frame's inertial impulse F. M entries; empty without a prediction.
    std::span<const double> StepBase() const { return Predicted(mStepBase); }
    /// c_j of `ModalDynamics::StepParts`: displacement per unit generalised impulse held over the step.
    std::span<const double> StepHeldCompliance() const { return Predicted(mStepHeld); }
    /// K_j = α_j k_j + (1 − α_j) c_j: displacement per unit change of the contacts' generalised impulse, its
    /// share α_j (`ModalDynamics::KickedShare`) kicked at the step's start.
    std::span<const double> StepChangeCompliance() const { return Predicted(mStepChange); }

    // --- Couplings: a point's modal rows along one direction ---

    /// Writes u_j = s·(Rᵀd)·U_j(x) for the feature's point (its own row on the surface, the proxy's Ū for a
    /// proxy contact) to `outCoupling` (M entries): its velocity along d per unit q̇_j, and the generalised
    /// impulse mode j takes per unit impulse along d. False (u = 0) outside the tree.
    bool Coupling(const ContactFeature& inFeature, const Vec3d& inDirection, const Mat3d& inRestToWorld,
                  std::span<double> outCoupling) const;
    bool ProxyCoupling(std::uint32_t inNode, const Vec3d& inDirection, const Mat3d& inRestToWorld,
                       std::span<double> outCoupling) const;
    /// The world velocity of the feature's point due to the modes, s·R·Σ_j U_j(x) q̇_j, m/s; zero outside.
    Vec3d ModalVelocity(const ContactFeature& inFeature, const Mat3d& inRestToWorld) const;
    /// The world velocity (m/s) the modes give node `inNode`'s rest sphere centre, s·R·Σ_j Ū_j q̇_j, and in
    /// `outSpread` the most any vertex of the node can differ from it: s·Σ_j ΔR_j |q̇_j| (eq. 7's bound, on
    /// velocities). Zero for a node out of range. O(M).
    Vec3d NodeModalVelocity(std::uint32_t inNode, const Mat3d& inRestToWorld, double& outSpread) const;
    /// Σ_j u_j q̇_j (m/s) for a coupling u.
    double ModalVelocityAlong(std::span<const double> inCoupling) const;
    /// Σ_j u_j²/μ_j (m/s per N·s) for a coupling u; modes without mass add nothing.
    double ModalMobilityAlong(std::span<const double> inCoupling) const;

    // --- Impulses ---

    /// Applies the world impulse `inImpulse` (N·s) at the feature's point to the modes now: q̇_j jumps by
    /// s·U_j(x)ᵀRᵀJ/μ_j. Ignored outside the tree; a non-finite impulse is counted and ignored.
    void ApplyImpulse(const ContactFeature& inFeature, const Vec3d& inImpulse, const Mat3d& inRestToWorld);
    /// Applies the impulse p (N·s) along a coupling's direction at its point now: q̇_j jumps by p·u_j/μ_j. A
    /// coupling shorter than M leaves the other modes alone.
    void ApplyImpulse(std::span<const double> inCoupling, double inImpulse);
    /// Adds the generalised impulse of the world impulse `inImpulse` (N·s, on this body) at the feature's point
    /// to the pending one: g_j += s·U_j(x)ᵀRᵀJ. Non-finite impulses are counted and ignored. ~6M flops.
    void AccumulateImpulse(const ContactFeature& inFeature, const btVector3& inImpulse, const Mat3d& inRestToWorld);
    /// The same at proxy `inNode`, R from a Bullet transform of the shape or given.
    void AccumulateImpulse(std::uint32_t inNode, const btVector3& inImpulse, const btTransform& inWorldFromLocal);
    void AccumulateImpulse(std::uint32_t inNode, const btVector3& inImpulse, const Mat3d& inRestToWorld);
    /// Adds p·u_j for the impulse p (N·s) along a coupling's direction, without projecting it again. M flops.
    void AccumulateImpulse(std::span<const double> inCoupling, double inImpulse);
    /// Applies the pending generalised impulse to the dynamics (q̇ jumps) and clears it.
    void FlushImpulses();
    /// The generalised impulse accumulated since the last flush or clear (M entries, N·s·model unit).
    std::span<const double> PendingImpulse() const { return mPendingImpulse; }
    /// Replaces the pending impulse (M finite entries), as a snapshot restores it; false, nothing changed, else.
    [[nodiscard]] bool SetPendingImpulse(std::span<const double> inImpulse);
    /// Forgets the pending impulse (`bdt::World` holds it as a force over the next step instead).
    void ClearImpulses();

private:
    // The displacement of the feature's point per unit q_j, rest frame, model units, M × 3 doubles into
    // `outRow`; false (and nothing written) outside the tree.
    bool ModeRow(const ContactFeature& inFeature, std::span<double> outRow) const;
    void CountRejectedImpulse(); // a non-finite impulse: ignored, counted by the dynamics' guard
    std::span<const double> Predicted(const std::vector<double>& inValues) const
    {
        return mPredicting ? std::span<const double>(inValues) : std::span<const double>();
    }

    DeformableShape& mShape;
    std::vector<double> mPendingImpulse; // generalised impulse accumulated this step (M entries)
    // The coming step's motion if the contacts keep the held impulse H and the frame its inertial force F°,
    // a + c⊙(H + h·F°), c of `ModalDynamics::StepParts`, the change compliance K and b = a + (c − K)⊙H, M entries
    // each (`PredictStep`).
    std::vector<double> mStepDisplacement, mStepHeld, mStepChange, mStepBase;
    std::vector<double> mScratch; // one generalised impulse (M entries)
    bool mPredicting = false;
    StepPrediction mPrediction;
};

} // namespace bdt
