#pragma once

#include <bdt/core/ModalProperties.h>
#include <bdt/core/Model.h>

#include <cstdint>
#include <span>
#include <vector>

namespace bdt
{

/// Settings of a body's modal vibration. Defaults suit a stiff plastic object of about a metre.
struct ModalSettings
{
    float stiffnessScale = 1.0f; ///< Multiplies every ω_j² (so ω_j by its square root). > 0.
    float dampingScale = 1.0f;   ///< Multiplies every damping ratio ζ_j. ≥ 0.
    /// Frequency (rad/s) of mode 0 for bases without physical modes (`ModeInfo::frequency` 0, e.g. smooth
    /// procedural fields): mode j then vibrates at fallbackFrequency·√(1 + j). > 0. The default, 250 rad/s
    /// (40 Hz), is a stiff plastic object of about a metre. The step is exact for any frequency, and
    /// `bdt::World` hands the contact solver each contact's predicted motion and modal compliance
    /// (`DeformableShape::PredictStep`), so a contact no longer pumps the modes through the one-step lag that
    /// made softer modes or smaller steps gain energy. What is left explicit is how a contact's impulse moves
    /// the body's other contacts through the shared modes (seen a step later): in a deep pile it keeps a small
    /// residual vibration, which `World`'s coupled contact solve removes. A step
    /// much longer than the period (ωh ≫ 1) does not resolve the vibration: it is seen as a static
    /// deflection under the step's load.
    float fallbackFrequency = 250.0f;
    float fallbackDamping = 0.05f; ///< ζ_j for modes whose damping is 0 in the model. ≥ 0.
    /// Strain limiting: |q_j| is kept at most strainLimit·(bounding radius)/max_i|U_ij|, so no mode moves a
    /// vertex by more than this fraction of the model's size. > 0.
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

/// The reduced coordinates of one body as M decoupled damped oscillators (modal analysis, mass-orthogonal
/// modes): μ_j(q̈_j + 2ζ_jω_j q̇_j + ω_j² q_j) = f_j, μ_j = m·s²·modalMass_j.
///
/// `Step` integrates exactly over h for a force held constant over the step (the matrix exponential of the
/// 2×2 oscillator, in its under-, critically and over-damped forms), so it is stable for any h and any
/// stiffness: the free energy never grows. Contact impulses enter as jumps of q̇ (`ApplyImpulse`).
/// State in double; `Q()` gives it rounded to float for `TreeState::SetQ`.
class ModalDynamics
{
public:
    /// Dynamics of a body of `inMass` kg and uniform scale `inScale` using `inModel`'s basis and modes.
    /// `inBoundingRadius` (model units) sets the strain limits. Throws `bdt::Error` for a non-positive or
    /// non-finite mass, scale or radius, settings out of range, or properties not matching M.
    ModalDynamics(const Model& inModel, const ModalProperties& inProperties, double inBoundingRadius,
                  double inMass, double inScale, const ModalSettings& inSettings = {});

    std::uint32_t ModeCount() const { return static_cast<std::uint32_t>(mQ.size()); }

    /// Changes the settings (stiffness, damping, limits) keeping q and q̇. Throws as the constructor.
    void SetSettings(const ModalSettings& inSettings);
    const ModalSettings& Settings() const { return mSettings; }

    /// q̇_j += g_j/μ_j for a generalised impulse g (M entries, N·s·model unit), each q̇_j then kept within its
    /// speed limit. Ignored as a whole, and counted, if it has the wrong size, a non-finite entry, or would make
    /// a velocity overflow.
    void ApplyImpulse(std::span<const double> inGeneralizedImpulse);
    /// `ApplyImpulse` of the generalised impulse g = p·u (u: M entries, p: a scalar), as q̇_j += p·u_j·(1/μ_j)
    /// without forming g: the contact constraint's per-point update (`DeformableShape::ApplyModalImpulse`).
    /// Ignored as a whole, and counted, on the wrong size or a non-finite result; q̇ kept within the speed limits.
    /// O(M), no division.
    void ApplyImpulseAlong(std::span<const double> inCoupling, double inImpulse);

    /// Advances q, q̇ by `inTimeStep` seconds (> 0) under a constant generalised force (M entries, or empty
    /// for none), then applies the strain limit (a clamped mode also loses its outward velocity) and the speed
    /// limit. A
    /// non-finite force is ignored and counted; a non-finite state is reset to rest and counted.
    void Step(double inTimeStep, std::span<const double> inGeneralizedForce = {});

    /// How the next `Step(inTimeStep, g/h)`, after `ApplyImpulse(p)` at its start, will move q, in three exact
    /// parts (the step is the matrix exponential of the oscillator, the force held constant over the step):
    ///
    ///     q_j(h) − q_j = a_j + c_j·g_j + k_j·p_j,
    ///     a_j = (φ00_j − 1)·q_j + φ01_j·q̇_j,   c_j = (1 − φ00_j)/(μ_j ω_j² h),   k_j = φ01_j/μ_j,
    ///
    /// a (`outFree`, model units) the motion with no force, c (`outHeld`, model units per N·s·model unit) the
    /// displacement per unit generalised impulse held as a force over the step (→ h/(2μ_j) for a soft mode,
    /// ω_j h ≪ 1; → 1/(μ_j ω_j² h) for a stiff one), k (`outKicked`) the displacement per unit generalised impulse
    /// applied at the step's start (→ h/μ_j for a soft mode, as a rigid frame moves by h/m per unit impulse). φ
    /// are the entries of the step's transition (see `Step`); modes that move no mass get 0. The contact solver
    /// uses them to see the surface where, and as compliant as, the modes will make it at the end of the step
    /// (`DeformableShape::PredictStep`). Each output must have M entries; nothing is written for a non-positive
    /// or non-finite step. About 60M flops, plus an exp and a sincos per mode unless `inTimeStep` is the step
    /// `Step` last took (whose transition it keeps).
    void StepParts(double inTimeStep, std::span<double> outFree, std::span<double> outHeld,
                   std::span<double> outKicked) const;
    /// The share α_j ∈ [0, 1] of a change of mode j's generalised impulse that a step of `inTimeStep` should
    /// kick in at its start (`ApplyImpulse`), the rest being held as a force over the step with the impulse
    /// it had (`bdt::World`): 1 while the step resolves the mode's oscillation (damped ω_j h ≤ π/2, or ζ_j ≥ 1),
    /// so the mode takes a change of its load as a rigid frame takes an impulse, and a body resting on it moves
    /// with it instead of half a step ahead; down to 0 at ω_j h = π, beyond which a kick would land at an
    /// arbitrary phase of the oscillation by the step's end (its compliance k_j = φ01_j/μ_j even turns
    /// negative), and the held force's quasi-static response is the right one. O(1).
    double KickedShare(std::uint32_t inMode, double inTimeStep) const;

    /// q*_j = f_j/(μ_j ω_j²): the static deflection of the force held over the last `Step` (model units, M
    /// entries; 0 before the first step, after one without force, and after `Reset`). The modes oscillate
    /// about it during that step.
    std::span<const double> Equilibrium() const { return mEquilibrium; }

    /// `Step` under the force held over the last step again (the one `Equilibrium()` is the deflection of):
    /// the modes of a body whose loads do not change, e.g. one Bullet keeps asleep, ring down about it.
    void StepHeld(double inTimeStep);

    /// Current q (model units), rounded to float, M entries.
    std::span<const float> Q() const { return mQFloat; }
    std::span<const double> QDouble() const { return mQ; }
    std::span<const double> QDot() const { return mQDot; }
    /// Sets q and q̇ (M entries each, finite; q within the strain limits and q̇ within the speed limits after
    /// clamping). Returns false and
    /// changes nothing on wrong sizes or non-finite values.
    [[nodiscard]] bool SetState(std::span<const double> inQ, std::span<const double> inQDot);
    /// Sets the held force's deflection `Equilibrium()` (M finite entries, clamped to the strain limits), as a
    /// snapshot restores it (`StepHeld` rings down about it). False, and nothing changed, otherwise.
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
    /// The largest |q̇_j| kept (model units/s): 2·ω_j·`StrainLimit(j)`, twice the peak speed of a vibration at the
    /// strain limit. A faster mode would cross its whole range within a fraction of its period and be stopped
    /// at the limit anyway; the bound keeps a huge impulse (1e30) from reaching the contacts as a surface speed
    /// that overflows the solver's floats.
    double SpeedLimit(std::uint32_t inMode) const { return 2.0 * mOmega[inMode] * mLimit[inMode]; }

    /// Modal energy Σ ½μ_j(q̇_j² + ω_j² q_j²) in joules: the vibration and the elastic energy of the static
    /// deflection under a steady load (a loaded body at rest keeps the latter).
    double Energy() const;
    /// Vibration energy about the equilibrium of the last step's force, Σ ½μ_j(q̇_j² + ω_j²(q_j − q*_j)²) in
    /// joules (q* = `Equilibrium()`): 0 for a body at rest under a steady load, which `Energy` is not. Under
    /// a constant force the exact step conserves it but for the damping, so it measures what still rings.
    double VibrationEnergy() const;
    /// Kinetic energy of the modes Σ ½μ_j q̇_j² in joules.
    double KineticEnergy() const;

    const ModalGuardStats& GuardStats() const { return mGuard; }
    /// Continues the counters of `inPrevious` (the dynamics this one replaces when a body is rebuilt for a new
    /// scale or mass), so that totals read step after step never go back. O(1).
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
