// Modal vibration of a reduced body: decoupled damped oscillators integrated exactly.

#include <algorithm>
#include <bdt/core/base/Error.h>
#include <bdt/core/dynamics/ModalDynamics.h>
#include <cmath>
#include <string>

namespace bdt
{

namespace
{

bool IsFinitePositive(double inValue)
{
    return std::isfinite(inValue) && inValue > 0.0;
}
bool IsFiniteNonNegative(double inValue)
{
    return std::isfinite(inValue) && inValue >= 0.0;
}

void ValidateSettings(const ModalSettings& inSettings)
{
    if (!IsFinitePositive(inSettings.stiffnessScale))
        throw Error("modal settings: stiffnessScale must be finite and > 0");
    if (!IsFiniteNonNegative(inSettings.dampingScale))
        throw Error("modal settings: dampingScale must be finite and >= 0");
    if (!IsFinitePositive(inSettings.fallbackFrequency))
        throw Error("modal settings: fallbackFrequency must be finite and > 0");
    if (!IsFiniteNonNegative(inSettings.fallbackDamping))
        throw Error("modal settings: fallbackDamping must be finite and >= 0");
    if (!IsFinitePositive(inSettings.strainLimit))
        throw Error("modal settings: strainLimit must be finite and > 0");
}

// Keeps |ioQDot| within `inLimit` (`ModalDynamics::SpeedLimit`); true if it had to.
bool ClampSpeed(double& ioQDot, double inLimit)
{
    if (std::abs(ioQDot) <= inLimit)
        return false;
    ioQDot = std::copysign(inLimit, ioQDot);
    return true;
}

bool AllFinite(std::span<const double> inValues)
{
    return std::all_of(inValues.begin(), inValues.end(), [](double v) { return std::isfinite(v); });
}

// exp(A h) for the oscillator A = [0 1; −ω² −2ζω], written e^{−λh}(c·I + s·(A + λI)) with λ = ζω: since
// (A + λI)² = (λ² − ω²)·I, the exponential series splits into an even part c and an odd part s of
// κ² = λ² − ω² (cosh/sinh when over-damped, cos/sin when under-damped, a series near critical damping).
// The growing exponential of the over-damped case is folded into e^{−λh} (κ < λ), so nothing overflows.
void Transition(double inOmega, double inZeta, double inStep, double (&outPhi)[4])
{
    const double lambda = inZeta * inOmega;
    const double kappa2 = lambda * lambda - inOmega * inOmega;
    const double h = inStep;
    double ec = 0.0; // e^{−λh}·c
    double es = 0.0; // e^{−λh}·s
    const double x = kappa2 * h * h;
    if (std::abs(x) < 1e-6)
    {
        const double decay = std::exp(-lambda * h);
        ec = decay * (1.0 + x / 2.0 + x * x / 24.0);
        es = decay * h * (1.0 + x / 6.0 + x * x / 120.0);
    }
    else if (kappa2 > 0.0)
    {
        const double kappa = std::sqrt(kappa2);
        const double slow = std::exp((kappa - lambda) * h);
        const double fast = std::exp(-(kappa + lambda) * h);
        ec = 0.5 * (slow + fast);
        es = 0.5 * (slow - fast) / kappa;
    }
    else
    {
        const double omegaD = std::sqrt(-kappa2);
        const double decay = std::exp(-lambda * h);
        ec = decay * std::cos(omegaD * h);
        es = decay * std::sin(omegaD * h) / omegaD;
    }
    outPhi[0] = ec + lambda * es;
    outPhi[1] = es;
    outPhi[2] = -inOmega * inOmega * es;
    outPhi[3] = ec - lambda * es;
}

} // namespace

ModalDynamics::ModalDynamics(const Model& inModel, const ModalProperties& inProperties,
                             double inBoundingRadius, double inMass, double inScale,
                             const ModalSettings& inSettings)
{
    const std::uint32_t modes = inModel.ModeCount();
    if (!IsFinitePositive(inMass))
        throw Error("modal dynamics: the body mass must be finite and > 0");
    if (!IsFinitePositive(inScale))
        throw Error("modal dynamics: the scale must be finite and > 0");
    if (!IsFinitePositive(inBoundingRadius))
        throw Error("modal dynamics: the bounding radius must be finite and > 0");
    if (inProperties.modalMass.size() != modes || inProperties.maxDisplacement.size() != modes ||
        inProperties.meanDisplacement.size() != modes || inProperties.firstMoment.size() != modes)
        throw Error("modal dynamics: the modal properties do not have " + std::to_string(modes) + " modes");
    ValidateSettings(inSettings);
    mModes.assign(inModel.Modes().begin(), inModel.Modes().end());
    mProperties = inProperties;
    mBoundingRadius = inBoundingRadius;
    mMass = inMass;
    mScale = inScale;
    mSettings = inSettings;
    mQ.assign(modes, 0.0);
    mQDot.assign(modes, 0.0);
    mQFloat.assign(modes, 0.0f);
    mEquilibrium.assign(modes, 0.0);
    Configure();
}

void ModalDynamics::SetSettings(const ModalSettings& inSettings)
{
    ValidateSettings(inSettings);
    mSettings = inSettings;
    Configure();
}

void ModalDynamics::Configure()
{
    const std::size_t modes = mQ.size();
    mOmega.resize(modes);
    mZeta.resize(modes);
    mMu.resize(modes);
    mInverseMu.resize(modes);
    mLimit.resize(modes);
    for (std::size_t j = 0; j < modes; ++j)
    {
        const bool known = j < mModes.size() && mModes[j].frequency > 0.0f;
        const double omega = known ? double(mModes[j].frequency)
                                   : double(mSettings.fallbackFrequency) * std::sqrt(1.0 + double(j));
        const double zeta = (j < mModes.size() && mModes[j].damping > 0.0f)
                                ? double(mModes[j].damping)
                                : double(mSettings.fallbackDamping);
        mOmega[j] = omega * std::sqrt(double(mSettings.stiffnessScale));
        mZeta[j] = zeta * double(mSettings.dampingScale);
        // μ_j = m·s²·Σ w_i|U_ij|²: the kinetic energy of q̇_j is ½μ_j q̇_j² (world units).
        mMu[j] = mMass * mScale * mScale * mProperties.modalMass[j];
        mInverseMu[j] = mMu[j] > 0.0 ? 1.0 / mMu[j] : 0.0;
        // No vertex moves by more than strainLimit·radius: |q_j|·max_i|U_ij| ≤ strainLimit·R.
        const double maxDisplacement = mProperties.maxDisplacement[j];
        const double limit =
            maxDisplacement > 0.0 ? double(mSettings.strainLimit) * mBoundingRadius / maxDisplacement : 0.0;
        mLimit[j] = std::min(limit, 1e9);
    }
    mCachedStep = -1.0;
    // Keep the state inside the (possibly new) limits.
    for (std::size_t j = 0; j < modes; ++j)
    {
        mQ[j] = std::clamp(mQ[j], -mLimit[j], mLimit[j]);
        mQFloat[j] = float(mQ[j]);
    }
}

void ModalDynamics::ApplyImpulse(std::span<const double> inGeneralizedImpulse)
{
    if (inGeneralizedImpulse.size() != mQ.size() || !AllFinite(inGeneralizedImpulse))
    {
        ++mGuard.rejectedImpulses;
        return;
    }
    // All or nothing: an impulse that would overflow a velocity is rejected like a non-finite one.
    for (std::size_t j = 0; j < mQ.size(); ++j)
        if (mMu[j] > 0.0 && !std::isfinite(mQDot[j] + inGeneralizedImpulse[j] / mMu[j]))
        {
            ++mGuard.rejectedImpulses;
            return;
        }
    for (std::size_t j = 0; j < mQ.size(); ++j)
        if (mMu[j] > 0.0)
        {
            mQDot[j] += inGeneralizedImpulse[j] / mMu[j];
            mGuard.clamped += ClampSpeed(mQDot[j], SpeedLimit(std::uint32_t(j)));
        }
}

void ModalDynamics::ApplyImpulseAlong(std::span<const double> inCoupling, double inImpulse)
{
    const std::size_t modes = mQ.size();
    if (inCoupling.size() != modes)
    {
        ++mGuard.rejectedImpulses;
        return;
    }
    // All or nothing, as `ApplyImpulse`: a non-finite impulse or coupling, or an overflowing velocity, shows
    // as a non-finite new velocity (a NaN coupling of a massless mode too: NaN·0 is NaN).
    bool finite = std::isfinite(inImpulse);
    for (std::size_t j = 0; j < modes; ++j)
        finite &= std::isfinite(mQDot[j] + inImpulse * inCoupling[j] * mInverseMu[j]);
    if (!finite)
    {
        ++mGuard.rejectedImpulses;
        return;
    }
    for (std::size_t j = 0; j < modes; ++j)
    {
        mQDot[j] += inImpulse * inCoupling[j] * mInverseMu[j];
        mGuard.clamped += ClampSpeed(mQDot[j], SpeedLimit(std::uint32_t(j)));
    }
}

void ModalDynamics::Step(double inTimeStep, std::span<const double> inGeneralizedForce)
{
    const std::size_t modes = mQ.size();
    if (!IsFinitePositive(inTimeStep) || modes == 0)
        return;
    bool useForce = !inGeneralizedForce.empty();
    if (useForce && (inGeneralizedForce.size() != modes || !AllFinite(inGeneralizedForce)))
    {
        ++mGuard.rejectedImpulses;
        useForce = false;
    }
    if (inTimeStep != mCachedStep)
    {
        mPhi.resize(4 * modes);
        for (std::size_t j = 0; j < modes; ++j)
        {
            double phi[4];
            Transition(mOmega[j], mZeta[j], inTimeStep, phi);
            std::copy(phi, phi + 4, mPhi.begin() + 4 * j);
        }
        mCachedStep = inTimeStep;
    }
    bool finite = true;
    for (std::size_t j = 0; j < modes; ++j)
    {
        if (mMu[j] <= 0.0)
        {
            mQ[j] = mQDot[j] = 0.0; // a mode that moves no mass takes no force and stays at rest
            continue;
        }
        // Constant force: oscillate about the static deflection q* = f/(μω²).
        const double equilibrium = useForce ? inGeneralizedForce[j] / (mMu[j] * mOmega[j] * mOmega[j]) : 0.0;
        // Remembered for `VibrationEnergy` and `StepHeld`; where the strain limit stops the mode short of
        // it, the limit is where the mode comes to rest.
        mEquilibrium[j] = std::clamp(equilibrium, -mLimit[j], mLimit[j]);
        const double x = mQ[j] - equilibrium;
        const double v = mQDot[j];
        const double* phi = mPhi.data() + 4 * j;
        double q = equilibrium + phi[0] * x + phi[1] * v;
        double qDot = phi[2] * x + phi[3] * v;
        if (!std::isfinite(q) || !std::isfinite(qDot))
        {
            finite = false; // reset below, before the clamp could hide it
            break;
        }
        // Strain limiting: the mode stops at its limit and loses its outward velocity.
        if (std::abs(q) > mLimit[j])
        {
            q = std::copysign(mLimit[j], q);
            if (qDot * q > 0.0)
                qDot = 0.0;
            ++mGuard.clamped;
        }
        mGuard.clamped += ClampSpeed(qDot, SpeedLimit(std::uint32_t(j)));
        mQ[j] = q;
        mQDot[j] = qDot;
    }
    if (!finite)
    {
        ++mGuard.resets;
        std::fill(mQ.begin(), mQ.end(), 0.0);
        std::fill(mQDot.begin(), mQDot.end(), 0.0);
        std::fill(mEquilibrium.begin(), mEquilibrium.end(), 0.0);
    }
    for (std::size_t j = 0; j < modes; ++j)
        mQFloat[j] = float(mQ[j]);
}

void ModalDynamics::StepHeld(double inTimeStep)
{
    mHeldForce.resize(mQ.size());
    for (std::size_t j = 0; j < mQ.size(); ++j)
        mHeldForce[j] = mMu[j] * mOmega[j] * mOmega[j] * mEquilibrium[j];
    Step(inTimeStep, mHeldForce);
}

void ModalDynamics::StepParts(double inTimeStep, std::span<double> outFree, std::span<double> outHeld,
                              std::span<double> outKicked) const
{
    const std::size_t modes = mQ.size();
    if (!IsFinitePositive(inTimeStep) || outFree.size() != modes || outHeld.size() != modes ||
        outKicked.size() != modes)
        return;
    for (std::size_t j = 0; j < modes; ++j)
    {
        if (mMu[j] <= 0.0)
        {
            outFree[j] = outHeld[j] = outKicked[j] = 0.0;
            continue;
        }
        // Step's update with the force f = g/h after the kick q̇ += p/μ: q(h) = q* + φ00 (q − q*) + φ01 (q̇ + p/μ),
        // q* = f/(μω²), so q(h) − q = (φ00 − 1) q + φ01 q̇ + (1 − φ00) g/(μω²h) + φ01 p/μ. The transition of the
        // step `Step` last took when it is this one (bdt::World's steps all are: no exp, sin or cos a step), else
        // made here (this is const), the same bits either way.
        double phi[4];
        if (inTimeStep == mCachedStep && mPhi.size() == 4 * modes)
            std::copy(mPhi.begin() + 4 * j, mPhi.begin() + 4 * j + 4, phi);
        else
            Transition(mOmega[j], mZeta[j], inTimeStep, phi);
        outFree[j] = (phi[0] - 1.0) * mQ[j] + phi[1] * mQDot[j];
        outHeld[j] = (1.0 - phi[0]) / (mMu[j] * mOmega[j] * mOmega[j] * inTimeStep);
        outKicked[j] = phi[1] / mMu[j];
    }
}

double ModalDynamics::KickedShare(std::uint32_t inMode, double inTimeStep) const
{
    const double zeta = mZeta[inMode];
    if (zeta >= 1.0)
        return 1.0;
    const double phase = mOmega[inMode] * std::sqrt(1.0 - zeta * zeta) * inTimeStep; // damped ω h
    constexpr double cHalfPi = 1.5707963267948966;
    return std::clamp((2.0 * cHalfPi - phase) / cHalfPi, 0.0, 1.0);
}

bool ModalDynamics::SetState(std::span<const double> inQ, std::span<const double> inQDot)
{
    if (inQ.size() != mQ.size() || inQDot.size() != mQ.size() || !AllFinite(inQ) || !AllFinite(inQDot))
        return false;
    for (std::size_t j = 0; j < mQ.size(); ++j)
    {
        mQ[j] = std::clamp(inQ[j], -mLimit[j], mLimit[j]);
        mQDot[j] = std::clamp(inQDot[j], -SpeedLimit(std::uint32_t(j)), SpeedLimit(std::uint32_t(j)));
        mQFloat[j] = float(mQ[j]);
    }
    return true;
}

bool ModalDynamics::SetEquilibrium(std::span<const double> inEquilibrium)
{
    if (inEquilibrium.size() != mQ.size() || !AllFinite(inEquilibrium))
        return false;
    for (std::size_t j = 0; j < mQ.size(); ++j)
        mEquilibrium[j] = std::clamp(inEquilibrium[j], -mLimit[j], mLimit[j]);
    return true;
}

void ModalDynamics::Reset()
{
    std::fill(mQ.begin(), mQ.end(), 0.0);
    std::fill(mQDot.begin(), mQDot.end(), 0.0);
    std::fill(mQFloat.begin(), mQFloat.end(), 0.0f);
    std::fill(mEquilibrium.begin(), mEquilibrium.end(), 0.0);
}

double ModalDynamics::Energy() const
{
    double energy = 0.0;
    for (std::size_t j = 0; j < mQ.size(); ++j)
        energy += 0.5 * mMu[j] * (mQDot[j] * mQDot[j] + mOmega[j] * mOmega[j] * mQ[j] * mQ[j]);
    return energy;
}

double ModalDynamics::KineticEnergy() const
{
    double energy = 0.0;
    for (std::size_t j = 0; j < mQ.size(); ++j)
        energy += 0.5 * mMu[j] * mQDot[j] * mQDot[j];
    return energy;
}

double ModalDynamics::VibrationEnergy() const
{
    double energy = 0.0;
    for (std::size_t j = 0; j < mQ.size(); ++j)
    {
        const double x = mQ[j] - mEquilibrium[j];
        energy += 0.5 * mMu[j] * (mQDot[j] * mQDot[j] + mOmega[j] * mOmega[j] * x * x);
    }
    return energy;
}

} // namespace bdt
