#pragma once

#include <bdt/core/BDTree.h>
#include <bdt/core/Math.h>

#include <cstdint>
#include <span>
#include <vector>

namespace bdt
{

/// A compressed vertex animation: rest shape, M principal displacement fields and one q per frame, such that
/// frame f is approximately p + U q_f (BD-Tree paper §2, eq. 1). Everything in the animation's model units
/// and in its (rest) frame; the struct owns all its arrays.
struct AnimationBasis
{
    std::vector<Vec3f> rest; ///< The mean shape of the frames (model units): the rest positions p, N of them.
    std::uint32_t modeCount = 0; ///< M, the principal components kept.
    /// U in `ModelData::basis` layout: vertex-major, `basis[(i*M + j)*3 + axis]`, 3·N·M floats. Columns are
    /// mutually orthogonal (to float rounding) and each has a largest vertex displacement max_i |U_ij| of
    /// exactly 1 model unit, its entry of largest magnitude positive; they are ordered by decreasing
    /// singular value.
    std::vector<float> basis;
    /// q per frame, frame-major: `track[f*M + j]`, F·M floats. q_j is the largest vertex displacement of
    /// component j in model units; q_f is the least-squares fit of frame f given the stored p and U.
    std::vector<float> track;
    /// The singular values of the centred frame matrix (frame f minus the mean, as one column of 3N),
    /// all min(3N, F) of them, descending, model units. Where F ≤ 3N the last is rounding noise (centring
    /// removes a dimension).
    std::vector<double> singularValues;
    /// Max over frames and vertices of |p_i + U_i q_f − x_fi| (model units), with p, U and q the stored
    /// floats and the sum in double, as `Model::DeformedPosition` reconstructs.
    double maxError = 0.0;
    double rmsError = 0.0; ///< Root mean square of the same error over all frames and vertices (model units).
    double energyKept = 0.0; ///< Σ_{j<M} σ_j² / Σ σ_j²: the fraction of the variance kept (1 if all σ are 0).
};

/// Principal component analysis of a vertex animation with fixed topology ("compressed animation",
/// Alexa & Müller 2000, "Representing Animations by Principal Components"; the BD-Tree paper's curtain
/// (James & Pai 2004, §4) is such an animation with M = 12). `inFrames` holds F frames of N vertex positions
/// each (model units); `inModes` is M. The rest shape p is the mean frame; U holds the M leading principal
/// components of the centred frames, each scaled to a largest vertex displacement of 1 model unit (see
/// `AnimationBasis`).
///
/// The components come from the F×F Gram matrix XᵀX of the centred 3N×F frame matrix X (the "method of
/// snapshots"), in double, so no 3N×3N matrix is formed and memory stays O(F² + N·M + a vertex block).
/// Deterministic: the same input gives bit-identical output. Cost O(N·F² + F³ + N·M·F): the Gram matrix, its
/// eigen-decomposition, then three passes over the frames (components, track, errors); seconds on one core
/// for a 10^5-vertex animation of a hundred frames.
///
/// Progress: stage "pca", fractions from 0 to 1. Throws `bdt::Error` with a one-line message for fewer than 2
/// frames, empty frames, a frame whose vertex count differs from frame 0's or that has a non-finite
/// coordinate (the frame index is named), M = 0, or M larger than the animation's rank: at most F − 1 (and
/// 3N), and numerically the number of leading components whose σ_k exceeds 1e-9·σ_0 (none when all frames
/// are equal), σ_k measured as |X v_k| orthogonalised against the earlier components rather than as the
/// square root of a Gram eigenvalue, which cannot resolve σ_k below about 1e-8·σ_0.
AnimationBasis ComputeAnimationBasis(std::span<const std::vector<Vec3f>> inFrames, std::uint32_t inModes,
                                     const ProgressCallback& inProgress = {});

} // namespace bdt
