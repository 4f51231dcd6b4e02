#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <bdt/bake/VoxelElasticity.h>
#include <bdt/core/BDTree.h>
#include <bdt/core/Model.h>
#include <cstdint>
#include <string>
#include <vector>

namespace bdt
{

/// How the modal bake factorises K − σM (`SolveVibrationModes`).
enum class EFactorisation : std::uint8_t
{
    /// CHOLMOD's supernodal LLᵀ on the system BLAS, whose kernels OpenBLAS picks per CPU: the modes differ
    /// from CPU to CPU by rounding, which can flip a mode's sign or turn a pair of nearly equal frequencies
    /// into another pair spanning the same plane. Bodies behave alike, not bit for bit.
    Fast,
    /// CHOLMOD's simplicial LLᵀ, which calls no BLAS: every x86-64 CPU bakes the same `.bdt` bytes. Its
    /// factorisation is several times slower on compact solids (docs/BENCHMARKS.md, "Bake").
    Reproducible,
};

/// The free vibration modes of a discretised solid: the solution of K φ = λ M φ nearest zero.
struct VibrationModes
{
    std::vector<double> rigidEigenvalues; ///< The six smallest eigenvalues, (rad/s)², skipped as rigid.
    std::vector<double> eigenvalues;      ///< λ_j = ω_j² of the M kept modes, ascending, (rad/s)².
    Eigen::MatrixXd shapes;               ///< Φ, dofs × M: mass-normalised (Φᵀ M Φ = I), m/√kg.
};

/// Throws `bdt::Error` with a one-line message when `inModes` vibration modes and the six rigid ones need as
/// many degrees of freedom as `inDofs` or more (the Lanczos solver needs more), naming `inWhat` (e.g. "the
/// lattice model") and ending with `inHint`. Callers check before any expensive stage. O(1).
void CheckModeCount(std::uint32_t inModes, std::size_t inDofs, const std::string& inWhat,
                    const std::string& inHint = {});

/// Solves the generalised eigenproblem K φ = λ M φ of a free solid for its six rigid modes and the next
/// `inModes` vibration modes, with Spectra's shift-and-invert Lanczos on a sparse Cholesky factorisation of
/// K − σM (CHOLMOD, as `inFactorisation` says; no dense matrices). The shift σ = −1e-3·(E/ρ)/L², a little
/// below zero on the scale of the lowest modes of a body of length L (`inBodyLength`, metres), makes K − σM
/// positive definite, so the eigenvalues nearest σ are the smallest. Eigenvalues with |λ| ≤ 1e-10·(E/ρ)/h², a
/// tiny fraction of the stiffest element's scale (h = `inElementLength`, metres), count as rigid, far below
/// any elastic mode of a model at most a few hundred elements across; exactly six must come first and are
/// skipped. The kept modes are mass-orthonormalised again (modified Gram–Schmidt in the M inner product), so
/// ‖Φᵀ M Φ − I‖ is at rounding level even for repeated frequencies, and each mode's largest component is made
/// positive (a deterministic sign).
///
/// `inStiffness` (N/m) and `inMass` (kg) are symmetric, of the same size (`CheckModeCount` holds).
/// Progress stages: "factorise", "eigensolve". Throws `bdt::Error` with a one-line message when the
/// factorisation fails, the solver does not converge, or the rigid-mode count is not six (`inWhat` names the
/// model in the messages). Cost: one sparse factorisation plus a few hundred solves.
VibrationModes SolveVibrationModes(const Eigen::SparseMatrix<double>& inStiffness,
                                   const Eigen::SparseMatrix<double>& inMass, std::uint32_t inModes,
                                   const ElasticMaterial& inMaterial, double inBodyLength,
                                   double inElementLength, const char* inWhat,
                                   const ProgressCallback& inProgress = {},
                                   EFactorisation inFactorisation = EFactorisation::Fast);

/// The row sums of a mass matrix per node (3 degrees of freedom per node, `3·node + axis`): the lumped
/// (diagonal) mass of each node, kg. For a consistent mass the x, y and z rows of a node sum alike.
/// Cost O(non-zeros).
std::vector<double> LumpedNodeMass(const Eigen::SparseMatrix<double>& inMass);

/// Per mode ω_j = √λ_j (rad/s, negative λ taken as 0) and the Rayleigh damping ratio
/// ζ_j = α / (2ω_j) + β ω_j / 2 (α in 1/s, β in s; α is ignored for ω_j = 0). O(M).
std::vector<ModeInfo> MakeModeInfos(std::span<const double> inEigenvalues, double inAlpha, double inBeta);

} // namespace bdt
