#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <bdt/core/BDTree.h>
#include <bdt/core/Model.h>
#include <cstdint>
#include <vector>

namespace bdt
{

/// The free vibration modes of a discretised solid: the solution of K φ = λ M φ nearest zero.
struct VibrationModes
{
    std::vector<double> rigidEigenvalues; ///< The six smallest eigenvalues, (rad/s)², skipped as rigid.
    std::vector<double> eigenvalues;      ///< λ_j = ω_j² of the M kept modes, ascending, (rad/s)².
    Eigen::MatrixXd shapes;               ///< Φ, dofs × M: mass-normalised (Φᵀ M Φ = I), m/√kg.
};

/// Solves the generalised eigenproblem K φ = λ M φ of a free solid for its six rigid modes and the next
/// `inModes` vibration modes, with Spectra's shift-and-invert Lanczos on a sparse Cholesky factorisation of
/// K − σM (CHOLMOD supernodal; no dense matrices). `inShift` σ must be a little below zero, on the scale of
/// the lowest eigenvalues, so K − σM is positive definite and the eigenvalues nearest σ are the smallest.
/// Eigenvalues with |λ| ≤ `inRigidBound` count as rigid; exactly six must come first and are skipped. The
/// kept modes are mass-orthonormalised again (modified Gram–Schmidt in the M inner product), so
/// ‖Φᵀ M Φ − I‖ is at rounding level even for repeated frequencies, and each mode's largest component is
/// made positive (a deterministic sign).
///
/// `inStiffness` (N/m) and `inMass` (kg) are symmetric, of the same size, with more than `inModes` + 6
/// degrees of freedom. Progress stages: "factorise", "eigensolve". Throws `bdt::Error` with a one-line
/// message when the factorisation fails, the solver does not converge, or the rigid-mode count is not six
/// (`inWhat` names the model in the messages, e.g. "the lattice model"). Cost: one sparse factorisation plus
/// a few hundred solves.
VibrationModes SolveVibrationModes(const Eigen::SparseMatrix<double>& inStiffness,
                                   const Eigen::SparseMatrix<double>& inMass, std::uint32_t inModes,
                                   double inShift, double inRigidBound, const char* inWhat,
                                   const ProgressCallback& inProgress = {});

/// The row sums of a mass matrix per node (3 degrees of freedom per node, `3·node + axis`): the lumped
/// (diagonal) mass of each node, kg. For a consistent mass the x, y and z rows of a node sum alike.
/// Cost O(non-zeros).
std::vector<double> LumpedNodeMass(const Eigen::SparseMatrix<double>& inMass);

/// Per mode ω_j = √λ_j (rad/s, negative λ taken as 0) and the Rayleigh damping ratio
/// ζ_j = α / (2ω_j) + β ω_j / 2 (α in 1/s, β in s; α is ignored for ω_j = 0). O(M).
std::vector<ModeInfo> MakeModeInfos(std::span<const double> inEigenvalues, double inAlpha, double inBeta);

} // namespace bdt
