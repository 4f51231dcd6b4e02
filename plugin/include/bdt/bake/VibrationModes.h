#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <bdt/bake/VoxelElasticity.h>
#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/model/Model.h>
#include <cstdint>
#include <string>
#include <vector>

namespace bdt
{

/// How the modal bake factorises K − σM (`SolveVibrationModes`).
enum class EFactorisation : std::uint8_t
{
    /// CHOLMOD's supernodal LLᵀ on the system BLAS: modes differ between CPUs by rounding (bodies behave
    /// alike, not bit for bit).
    Fast,
    /// CHOLMOD's simplicial LLᵀ, no BLAS: every x86-64 CPU bakes the same `.bdt` bytes; several times slower.
    Reproducible,
};

/// The free vibration modes of a discretised solid: the solution of K φ = λ M φ nearest zero.
struct VibrationModes
{
    std::vector<double> rigidEigenvalues; ///< The six smallest eigenvalues, (rad/s)², skipped as rigid.
    std::vector<double> eigenvalues;      ///< λ_j = ω_j² of the M kept modes, ascending, (rad/s)².
    Eigen::MatrixXd shapes;               ///< Φ, dofs × M: mass-normalised (Φᵀ M Φ = I), m/√kg.
};

/// Throws `bdt::Error`, naming `inWhat` and ending with `inHint`, unless `inDofs` exceeds `inModes` + 6 (the
/// Lanczos solver needs more). Check before any expensive stage. O(1).
void CheckModeCount(std::uint32_t inModes, std::size_t inDofs, const std::string& inWhat,
                    const std::string& inHint = {});

/// The six rigid and next `inModes` modes of K φ = λ M φ (K in N/m, M in kg, symmetric, `CheckModeCount`
/// holds): shift-and-invert Lanczos at σ = −1e-3·(E/ρ)/L² (L = `inBodyLength`, m); |λ| ≤ 1e-10·(E/ρ)/h² is
/// rigid (h = `inElementLength`, m). Φᵀ M Φ = I to rounding, largest entries positive. Stages "factorise",
/// "eigensolve". Throws `bdt::Error` (naming `inWhat`) on a failed factorisation, no convergence or not six
/// rigid modes. One sparse factorisation plus a few hundred solves.
VibrationModes SolveVibrationModes(const Eigen::SparseMatrix<double>& inStiffness,
                                   const Eigen::SparseMatrix<double>& inMass, std::uint32_t inModes,
                                   const ElasticMaterial& inMaterial, double inBodyLength,
                                   double inElementLength, const char* inWhat,
                                   const ProgressCallback& inProgress = {},
                                   EFactorisation inFactorisation = EFactorisation::Fast);

/// Each node's lumped mass (kg), the row sums of a mass matrix with dofs `3·node + axis`. O(non-zeros).
std::vector<double> LumpedNodeMass(const Eigen::SparseMatrix<double>& inMass);

/// Per mode ω_j = √λ_j (rad/s, negative λ taken as 0) and the Rayleigh damping ratio
/// ζ_j = α / (2ω_j) + β ω_j / 2 (α in 1/s, β in s; α is ignored for ω_j = 0). O(M).
std::vector<ModeInfo> MakeModeInfos(std::span<const double> inEigenvalues, double inAlpha, double inBeta);

} // namespace bdt
