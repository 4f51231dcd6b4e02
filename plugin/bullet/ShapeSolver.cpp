// ShapeSolver: the step's solver hooks on a deformable body: the prediction of the coming modal step, the
// contact responses and couplings the solver reads, and the impulses it writes back.

#include "ShapeSolver.h"

#include "PieceMemory.h"

#include <algorithm>
#include <bdt/bullet/Conversions.h>
#include <bdt/core/base/Prefetch.h>
#include <cmath>
#include <limits>

namespace bdt
{

ShapeSolver::ShapeSolver(DeformableShape& inShape)
    : mShape(inShape), mPendingImpulse(inShape.Asset().Tree().ModeCount(), 0.0),
      mStepDisplacement(mPendingImpulse.size(), 0.0), mStepHeld(mPendingImpulse.size(), 0.0),
      mStepChange(mPendingImpulse.size(), 0.0), mStepBase(mPendingImpulse.size(), 0.0)
{
}

bool ShapeSolver::ModeRow(const ContactFeature& inFeature, std::span<double> outRow) const
{
    const std::uint32_t modes = mShape.mState.ModeCount();
    if (outRow.size() < 3 * std::size_t(modes))
        return false;
    if (inFeature.OnSurface())
    {
        const Model& model = mShape.mAsset->GetModel();
        if (inFeature.triangle >= model.TriangleCount())
            return false;
        const Triangle& corners = model.Triangles()[inFeature.triangle];
        const std::span<const float> basis = model.Basis();
        std::fill(outRow.begin(), outRow.begin() + 3 * modes, 0.0);
        for (int k = 0; k < 3; ++k)
        {
            const double weight = inFeature.barycentric[k];
            const float* u = basis.data() + std::size_t(corners[k]) * modes * 3;
            for (std::uint32_t i = 0; i < 3 * modes; ++i)
                outRow[i] += weight * double(u[i]);
        }
        return true;
    }
    if (inFeature.node >= mShape.mState.Tree().NodeCount())
        return false;
    const float* row = mShape.mState.Proxies().Row(inFeature.node);
    for (std::uint32_t j = 0; j < modes; ++j)
        for (int c = 0; c < 3; ++c)
            outRow[3 * j + c] = double(row[4 * (j + 1) + c]);
    return true;
}

void ShapeSolver::ForgetPieceUse()
{
    if (mShape.mPieceUse)
        mShape.mPieceUse->Clear();
}

void ShapeSolver::PredictStep(const StepPrediction& inPrediction)
{
    if (!std::isfinite(inPrediction.timeStep) || !(inPrediction.timeStep > 0.0) ||
        !(inPrediction.contactErp > 0.0 && inPrediction.contactErp <= 1.0) || mShape.mDynamics.ModeCount() == 0)
    {
        ClearPrediction();
        return;
    }
    const std::uint32_t modes = mShape.mDynamics.ModeCount();
    const std::span<const double> held = inPrediction.heldImpulse;
    const std::span<const double> force = inPrediction.heldForce;
    const std::span<const float> previous = inPrediction.previousQ;
    if ((!held.empty() && held.size() != modes) || (!force.empty() && force.size() != modes) ||
        (!previous.empty() && previous.size() != modes))
    {
        ClearPrediction();
        return;
    }
    // a goes to mStepDisplacement first: then a + c⊙(H + h·F°), and b = a + (c − K)⊙H, where K = α k + (1 − α) c
    // is the response to a change of the contacts' impulse, its share α kicked and the rest held.
    mShape.mDynamics.StepParts(inPrediction.timeStep, mStepDisplacement, mStepHeld, mStepChange);
    for (std::uint32_t j = 0; j < modes; ++j)
    {
        const double share = mShape.mDynamics.KickedShare(j, inPrediction.timeStep);
        mStepChange[j] = share * mStepChange[j] + (1.0 - share) * mStepHeld[j];
        const double impulse = held.empty() ? 0.0 : held[j];
        const double inertial = force.empty() ? 0.0 : force[j] * inPrediction.timeStep;
        const double free = mStepDisplacement[j];
        mStepBase[j] = free + (mStepHeld[j] - mStepChange[j]) * impulse;
        mStepDisplacement[j] = free + mStepHeld[j] * (impulse + inertial);
        // A mode held at its strain limit by a steady load (at the limit before and after the last modal step,
        // on one side) that the held loads press further out stays there (`ModalDynamics::Step` stops it):
        // linearised about these loads, it takes no share of a change of them. A mode an impact has just
        // carried to its limit keeps the linear prediction: the impact's load mostly ends in this solve.
        const double q = mShape.mDynamics.QDouble()[j];
        const double limit = mShape.mDynamics.StrainLimit(j);
        const bool steady = !previous.empty() && std::abs(double(previous[j])) >= (1.0 - 1e-6) * limit &&
                            double(previous[j]) * q > 0.0;
        if (steady && std::abs(q) >= limit && q * mStepDisplacement[j] > 0.0)
        {
            mStepDisplacement[j] = std::copysign(limit, q) - q;
            mStepBase[j] = mStepDisplacement[j];
            mStepHeld[j] = mStepChange[j] = 0.0;
        }
    }
    mPrediction = inPrediction;
    mPrediction.heldImpulse = {}; // read, not kept
    mPrediction.heldForce = {};
    mPrediction.previousQ = {};
    mPredicting = true;
}

Vec3d ShapeSolver::ModalVelocity(const ContactFeature& inFeature, const Mat3d& inRestToWorld) const
{
    thread_local std::vector<double> row;
    row.resize(3 * std::size_t(mShape.mState.ModeCount()));
    if (!ModeRow(inFeature, row))
        return Vec3d::Zero();
    const std::span<const double> qDot = mShape.mDynamics.QDot();
    Vec3d rest = Vec3d::Zero();
    for (std::uint32_t j = 0; j < mShape.mState.ModeCount(); ++j)
        rest += qDot[j] * Vec3d(row[3 * j], row[3 * j + 1], row[3 * j + 2]);
    return mShape.Scale() * (inRestToWorld * rest);
}

Vec3d ShapeSolver::NodeModalVelocity(std::uint32_t inNode, const Mat3d& inRestToWorld, double& outSpread) const
{
    outSpread = 0.0;
    const BDTree& tree = mShape.mState.Tree();
    if (inNode >= tree.NodeCount())
        return Vec3d::Zero();
    const float* row = tree.Row(inNode);
    const std::span<const double> qDot = mShape.mDynamics.QDot();
    const std::uint32_t modes = std::min<std::uint32_t>(mShape.mState.ModeCount(), std::uint32_t(qDot.size()));
    Vec3d rest = Vec3d::Zero();
    double spread = 0.0;
    for (std::uint32_t j = 0; j < modes; ++j)
    {
        const float* mode = row + 4 * (j + 1);
        rest += qDot[j] * Vec3d(mode[0], mode[1], mode[2]);
        spread += double(mode[3]) * std::abs(qDot[j]);
    }
    outSpread = mShape.Scale() * spread;
    return mShape.Scale() * (inRestToWorld * rest);
}

void ShapeSolver::Prefetch() const
{
    mShape.mState.Prefetch();
    PrefetchBytes(mStepDisplacement.data(), 64);
    PrefetchBytes(mStepChange.data(), 64);
}

bool ShapeSolver::ProxyCoupling(std::uint32_t inNode, const Vec3d& inDirection,
                                const Mat3d& inRestToWorld, std::span<double> outCoupling) const
{
    return Coupling(ContactFeature{inNode}, inDirection, inRestToWorld, outCoupling);
}

bool ShapeSolver::Coupling(const ContactFeature& inFeature, const Vec3d& inDirection,
                           const Mat3d& inRestToWorld, std::span<double> outCoupling) const
{
    const std::uint32_t modes =
        std::min<std::uint32_t>(mShape.mState.ModeCount(), std::uint32_t(outCoupling.size()));
    thread_local std::vector<double> row;
    row.resize(3 * std::size_t(mShape.mState.ModeCount()));
    if (!ModeRow(inFeature, row))
    {
        std::fill(outCoupling.begin(), outCoupling.end(), 0.0);
        return false;
    }
    const Vec3d rest = mShape.Scale() * (inRestToWorld.transpose() * inDirection);
    for (std::uint32_t j = 0; j < modes; ++j)
        outCoupling[j] = row[3 * j] * rest.x() + row[3 * j + 1] * rest.y() + row[3 * j + 2] * rest.z();
    return true;
}

double ShapeSolver::ModalVelocityAlong(std::span<const double> inCoupling) const
{
    const std::span<const double> qDot = mShape.mDynamics.QDot();
    const std::size_t modes = std::min(inCoupling.size(), qDot.size());
    double velocity = 0.0;
    for (std::size_t j = 0; j < modes; ++j)
        velocity += inCoupling[j] * qDot[j];
    return velocity;
}

double ShapeSolver::ModalMobilityAlong(std::span<const double> inCoupling) const
{
    const std::span<const double> inverseMass = mShape.mDynamics.InverseModalMasses();
    const std::size_t modes = std::min(inCoupling.size(), inverseMass.size());
    double mobility = 0.0;
    for (std::size_t j = 0; j < modes; ++j)
        mobility += inCoupling[j] * inCoupling[j] * inverseMass[j];
    return mobility;
}

void ShapeSolver::ApplyImpulse(const ContactFeature& inFeature, const Vec3d& inImpulse, const Mat3d& inRestToWorld)
{
    // g_j = s·U_jᵀRᵀJ, the coupling along J itself; a non-finite impulse gives a non-finite g, which the dynamics
    // count and ignore.
    mScratch.resize(mShape.mState.ModeCount());
    if (Coupling(inFeature, inImpulse, inRestToWorld, mScratch))
        mShape.mDynamics.ApplyImpulse(mScratch);
}

void ShapeSolver::ApplyImpulse(std::span<const double> inCoupling, double inImpulse)
{
    if (inCoupling.size() == mShape.mDynamics.ModeCount())
    {
        mShape.mDynamics.ApplyImpulseAlong(inCoupling, inImpulse);
        return;
    }
    // A shorter coupling: the missing modes take nothing.
    mScratch.assign(mShape.mDynamics.ModeCount(), 0.0);
    for (std::size_t j = 0; j < std::min(inCoupling.size(), mScratch.size()); ++j)
        mScratch[j] = inImpulse * inCoupling[j];
    mShape.mDynamics.ApplyImpulse(mScratch);
}

ProxyStepResponse ShapeSolver::ProxyResponse(std::uint32_t inNode, const Vec3d& inDirection,
                                             const Mat3d& inRestToWorld,
                                             const Vec3d* inFrameAngularPerImpulse) const
{
    return Response(ContactFeature{inNode}, inDirection, inRestToWorld, inFrameAngularPerImpulse);
}

bool ShapeSolver::ResponseRows(const ContactFeature& inFeature, const Vec3d& inDirection,
                               const Mat3d& inRestToWorld, const Vec3d* inFrameAngularPerImpulse,
                               std::span<double> outMotion, std::span<double> outImpulse) const
{
    const std::uint32_t modes = mShape.mState.ModeCount();
    thread_local std::vector<double> row;
    row.resize(3 * std::size_t(modes));
    if (!mPredicting || outMotion.size() != modes || outImpulse.size() != modes || !ModeRow(inFeature, row))
        return false;
    // u_j = s·(Rᵀd)·U_j: the point's world motion along d per unit q_j (the proxy's mean row Ū_j for a proxy
    // contact), and the generalised impulse an impulse λd there gives mode j (`AccumulateImpulse`). The
    // inertial force the next modal step adds (`InertialForce`, f = m·s·(s_j·Rᵀ(g − a) − s·⟨B, A_j⟩)) through
    // the frame acceleration this impulse causes, a = d·λ/(m h) and α = I⁻¹(r × d)·λ/h, takes per unit λ
    // s·s_j·Rᵀd + m·s²·⟨[Rᵀα]×, A_j⟩ off it (⟨[v]×, A⟩ = v·(A21 − A12, A02 − A20, A10 − A01)): w_j.
    const double scale = mShape.Scale();
    const Vec3d restDirection = inRestToWorld.transpose() * inDirection;
    const Vec3d direction = scale * restDirection;
    const bool inertial = mPrediction.inertialForcing;
    const Vec3d restAngular = inertial && inFrameAngularPerImpulse != nullptr
                                  ? Vec3d(inRestToWorld.transpose() * *inFrameAngularPerImpulse)
                                  : Vec3d::Zero();
    const std::span<const Vec3d> meanDisplacement = mShape.mAsset->Modal().meanDisplacement;
    const std::span<const Vec3d> axial = mShape.mAsset->FirstMomentAxial();
    const double momentScale = mShape.mSettings.mass * scale * scale;
    for (std::uint32_t j = 0; j < modes; ++j)
    {
        const double along =
            row[3 * j] * direction.x() + row[3 * j + 1] * direction.y() + row[3 * j + 2] * direction.z();
        outMotion[j] = along;
        outImpulse[j] = inertial ? along - (scale * meanDisplacement[j].dot(restDirection) +
                                            momentScale * restAngular.dot(axial[j]))
                                 : along;
    }
    return true;
}

ProxyStepResponse ShapeSolver::Response(const ContactFeature& inFeature, const Vec3d& inDirection,
                                        const Mat3d& inRestToWorld,
                                        const Vec3d* inFrameAngularPerImpulse) const
{
    ProxyStepResponse response;
    thread_local std::vector<double> motion, impulse;
    motion.resize(mShape.mState.ModeCount());
    impulse.resize(mShape.mState.ModeCount());
    if (!ResponseRows(inFeature, inDirection, inRestToWorld, inFrameAngularPerImpulse, motion, impulse))
        return response;
    // The response along d to a change of λ: through u into the modes (K: its kicked share and the rest held),
    // and held over the step through the inertial force of the frame's acceleration it causes (w − u):
    // Σ_j u_j (K_j u_j + c_j (w_j − u_j)).
    double compliance = 0.0;
    for (std::uint32_t j = 0; j < mShape.mState.ModeCount(); ++j)
    {
        response.displacement += motion[j] * mStepDisplacement[j];
        compliance += motion[j] * (mStepChange[j] * motion[j] + mStepHeld[j] * (impulse[j] - motion[j]));
    }
    // Symmetric and positive for modes orthogonal to the rigid motions; a basis that is not can make it
    // slightly negative, which the solver cannot take.
    response.compliance = std::max(compliance, 0.0);
    return response;
}

void ShapeSolver::AccumulateImpulse(std::uint32_t inNode, const btVector3& inImpulse,
                                    const btTransform& inWorldFromLocal)
{
    AccumulateImpulse(inNode, inImpulse, mShape.RestToWorld(inWorldFromLocal));
}

void ShapeSolver::AccumulateImpulse(std::uint32_t inNode, const btVector3& inImpulse,
                                    const Mat3d& inRestToWorld)
{
    AccumulateImpulse(ContactFeature{inNode}, inImpulse, inRestToWorld);
}

void ShapeSolver::AccumulateImpulse(const ContactFeature& inFeature, const btVector3& inImpulse,
                                    const Mat3d& inRestToWorld)
{
    const std::uint32_t modes = mShape.mState.ModeCount();
    if (!IsFinite(inImpulse))
    {
        CountRejectedImpulse();
        return;
    }
    thread_local std::vector<double> row;
    row.resize(3 * std::size_t(modes));
    if (!ModeRow(inFeature, row))
        return;
    // g_j += s · U_jᵀ Rᵀ J: the impulse in the rest frame's axes, then projected on the point's displacement
    // per mode (its world motion per unit q_j is s·R·U_j).
    const Vec3d restImpulse = inRestToWorld.transpose() * ToVec3d(inImpulse);
    const double scale = mShape.Scale();
    for (std::uint32_t j = 0; j < modes; ++j)
        mPendingImpulse[j] += scale * (row[3 * j] * restImpulse.x() + row[3 * j + 1] * restImpulse.y() +
                                       row[3 * j + 2] * restImpulse.z());
}

void ShapeSolver::AccumulateImpulse(std::span<const double> inCoupling, double inImpulse)
{
    if (!std::isfinite(inImpulse))
    {
        CountRejectedImpulse();
        return;
    }
    const std::size_t modes = std::min(inCoupling.size(), mPendingImpulse.size());
    for (std::size_t j = 0; j < modes; ++j)
        mPendingImpulse[j] += inImpulse * inCoupling[j];
}

void ShapeSolver::CountRejectedImpulse()
{
    // Counted where the dynamics count rejected impulses (a non-finite generalised impulse changes nothing
    // there), without spoiling the impulses already accumulated this step.
    const std::vector<double> rejected(mShape.mState.ModeCount(), std::numeric_limits<double>::quiet_NaN());
    mShape.mDynamics.ApplyImpulse(rejected);
}

void ShapeSolver::FlushImpulses()
{
    mShape.mDynamics.ApplyImpulse(mPendingImpulse);
    ClearImpulses();
}

bool ShapeSolver::SetPendingImpulse(std::span<const double> inImpulse)
{
    if (inImpulse.size() != mPendingImpulse.size() ||
        !std::all_of(inImpulse.begin(), inImpulse.end(), [](double v) { return std::isfinite(v); }))
        return false;
    std::copy(inImpulse.begin(), inImpulse.end(), mPendingImpulse.begin());
    return true;
}

void ShapeSolver::ClearImpulses()
{
    std::fill(mPendingImpulse.begin(), mPendingImpulse.end(), 0.0);
}

} // namespace bdt
