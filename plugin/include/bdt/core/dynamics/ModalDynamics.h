#pragma once

#include <bdt/core/model/ModalProperties.h>
#include <bdt/core/model/Model.h>

#include <cstdint>
#include <span>
#include <vector>

namespace bdt
{

/// Settings of a body's modal vibration. Defaults suit a stiff plastic object of about a metre.
/// Tuning: docs/TUNING.md#modalsettings.
struct ModalSettings
{
    float stiffnessScale = 1.0f; ///< Multiplies every ω_j² (so ω_j by its square root). > 0.
    float dampingScale = 1.0f;   ///< Multiplies every damping ratio ζ_j. ≥ 0.
    /// Frequency (rad/s, > 0) of mode 0 for bases without physical modes (`ModeInfo::frequency` 0): mode j
    /// vibrates at fallbackFrequency·√(1 + j). 250 rad/s (40 Hz) is a stiff plastic object of about a metre.
    float fallbackFrequency = 250.0f;
    float fallbackDamping = 0.05f; ///< ζ_j for modes whose damping is 0 in the model. ≥ 0.
    /// No mode moves a vertex by more than this fraction of the bounding radius (|q_j| clamped). > 0.
    float strainLimit = 0.05f;
};

/// Counters of what the guards did (since construction).
struct ModalGuardStats
{
    /// Times a |q_j| was brought back to its strain limit, or a |q̇_j| to its speed limit (`SpeedLimit`).
    std::uint64_t clamped = 0;
    std::uint64_t rejectedImpulses = 0; ///< Generalised impulses or forces ignored for a non-finite entry.
    std::uint64_t resets = 0;           ///< Times q and q̇ were reset to 0 after becoming non-finite.
};

/// The reduced coordinates of one body as M decoupled damped oscillators (modal analysis):
/// μ_j(q̈_j + 2ζ_jω_j q̇_j + ω_j² q_j) = f_j, μ_j = m·s²·modalMass_j. `Step` is exact, stable for any h and
/// stiffness; impulses jump q̇. State in double; `Q()` rounds it to float for `TreeState::SetQ`.
class ModalDynamics
{
public:
    /// A body of `inMass` kg at uniform scale `inScale`; `inBoundingRadius` (model units) sets the strain
    /// limits. Throws `bdt::Error` for a mass, scale or radius not finite and > 0, bad settings, or properties
    /// not matching M.
    ModalDynamics(const Model& inModel, const ModalProperties& inProperties, double inBoundingRadius,
                  double inMass, double inScale, const ModalSettings& inSettings = {});

    std::uint32_t ModeCount() const { return static_cast<std::uint32_t>(mQ.size()); }

    /// Changes the settings (stiffness, damping, limits) keeping q and q̇. Throws as the constructor.
    void SetSettings(const ModalSettings& inSettings);
    const ModalSettings& Settings() const { return mSettings; }

    /// q̇_j += g_j/μ_j for a generalised impulse g (M entries, N·s·model unit), within the speed limits.
    /// Ignored and counted on a wrong size, a non-finite entry or an overflowing velocity.
    void ApplyImpulse(std::span<const double> inGeneralizedImpulse);
    /// `ApplyImpulse` of g = p·u (u: M entries) without forming g, as the contact constraint applies it per
    /// point. Ignored and counted as `ApplyImpulse`. O(M), no division.
    void ApplyImpulseAlong(std::span<const double> inCoupling, double inImpulse);

    /// Advances q, q̇ by `inTimeStep` s (> 0) under a constant generalised force (M entries or empty), then
    /// clamps to the strain and speed limits. A non-finite force is ignored, a non-finite state reset; counted.
    void Step(double inTimeStep, std::span<const double> inGeneralizedForce = {});

    /// How the next `Step(inTimeStep, g/h)` after `ApplyImpulse(p)` moves q, exactly:
    ///
    ///     q_j(h) − q_j = a_j + c_j·g_j + k_j·p_j,
    ///     a_j = (φ00_j − 1)·q_j + φ01_j·q̇_j,   c_j = (1 − φ00_j)/(μ_j ω_j² h),   k_j = φ01_j/μ_j,
    ///
    /// a into `outFree` (model units), c into `outHeld` (per N·s·model unit, held as a force), k into
    /// `outKicked` (per unit impulse at the start); 0 for modes that move no mass. φ: the step's transition.
    /// Each output has M entries; nothing is written for a step not finite and > 0. About 60M flops, plus an
    /// exp and a sincos a mode unless `inTimeStep` is the step `Step` last took.
    void StepParts(double inTimeStep, std::span<double> outFree, std::span<double> outHeld,
                   std::span<double> outKicked) const;
    /// The share α_j ∈ [0, 1] of a change of mode j's generalised impulse to kick in at the start of a step of
    /// `inTimeStep` (`ApplyImpulse`), the rest held as a force: 1 while damped ω_j h ≤ π/2 or ζ_j ≥ 1, down to
    /// 0 at ω_j h = π. O(1).
    double KickedShare(std::uint32_t inMode, double inTimeStep) const;

    /// q*_j = f_j/(μ_j ω_j²), the static deflection of the force held over the last `Step` (model units, M
    /// entries); 0 before the first step, after one without force, and after `Reset`.
    std::span<const double> Equilibrium() const { return mEquilibrium; }

    /// `Step` under the last step's held force again: a sleeping body's modes ring down about `Equilibrium()`.
    void StepHeld(double inTimeStep);

    /// Current q (model units), rounded to float, M entries.
    std::span<const float> Q() const { return mQFloat; }
    std::span<const double> QDouble() const { return mQ; }
    std::span<const double> QDot() const { return mQDot; }
    /// Sets q and q̇ (M finite entries each), clamped to the strain and speed limits. False, and nothing
    /// changed, on wrong sizes or non-finite values.
    [[nodiscard]] bool SetState(std::span<const double> inQ, std::span<const double> inQDot);
    /// Sets `Equilibrium()` (M finite entries, clamped to the strain limits), as a snapshot restores it.
    /// False, and nothing changed, otherwise.
    [[nodiscard]] bool SetEquilibrium(std::span<const double> inEquilibrium);
    /// Back to rest (q = q̇ = 0).
    void Reset();

    /// Angular frequency ω_j (rad/s) and damping ratio ζ_j in use, after scales and fallbacks.
    double Frequency(std::uint32_t inMode) const { return mOmega[inMode]; }
    double Damping(std::uint32_t inMode) const { return mZeta[inMode]; }
    /// μ_j (kg·(world/model unit)²).
    double ModalMass(std::uint32_t inMode) const { return mMu[inMode]; }
    /// 1/μ_j for every mode (0 for a mode that moves no mass), M entries.
    std::span<const double> InverseModalMasses() const { return mInverseMu; }
    /// Largest |q_j| allowed.
    double StrainLimit(std::uint32_t inMode) const { return mLimit[inMode]; }
    /// The largest |q̇_j| kept (model units/s): 2·ω_j·`StrainLimit(j)`, twice a vibration's peak speed at the
    /// strain limit, so a huge impulse cannot overflow the solver's floats.
    double SpeedLimit(std::uint32_t inMode) const { return 2.0 * mOmega[inMode] * mLimit[inMode]; }

    /// Modal energy Σ ½μ_j(q̇_j² + ω_j² q_j²) in joules, a steady load's static deflection included.
    double Energy() const;
    /// Vibration energy about `Equilibrium()` q*, Σ ½μ_j(q̇_j² + ω_j²(q_j − q*_j)²) in joules: what still
    /// rings (0 for a body at rest under a steady load).
    double VibrationEnergy() const;
    /// Kinetic energy of the modes Σ ½μ_j q̇_j² in joules.
    double KineticEnergy() const;

    const ModalGuardStats& GuardStats() const { return mGuard; }
    /// Continues the counters of `inPrevious` (the dynamics this one replaces), so totals never go back. O(1).
    void ContinueGuardStats(const ModalGuardStats& inPrevious) { mGuard = inPrevious; }

private:
    void Configure();

    std::vector<ModeInfo> mModes;  // the model's modes (copied; O(M))
    ModalProperties mProperties;   // copied once (small: O(M))
    double mBoundingRadius = 0.0;
    double mMass = 0.0;
    double mScale = 1.0;
    ModalSettings mSettings;

    std::vector<double> mQ, mQDot, mOmega, mZeta, mMu, mInverseMu, mLimit;
    std::vector<double> mEquilibrium; // q* of the force held over the last step
    std::vector<double> mHeldForce;   // scratch of StepHeld
    std::vector<float> mQFloat;
    // Transition matrices of the last time step, per mode: [φ00 φ01 φ10 φ11], recomputed when h changes.
    double mCachedStep = -1.0;
    std::vector<double> mPhi;
    ModalGuardStats mGuard;
};

} // namespace bdt
