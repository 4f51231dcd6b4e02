#pragma once

#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/base/Math.h>

#include <cstdint>
#include <span>
#include <vector>

namespace bdt
{

/// A compressed vertex animation, frame f ≈ p + U q_f (§2, eq. 1), in the animation's model units and frame.
struct AnimationBasis
{
    std::vector<Vec3f> rest; ///< The mean shape of the frames (model units): the rest positions p, N of them.
    std::uint32_t modeCount = 0; ///< M, the principal components kept.
    /// U in `ModelData::basis` layout, 3·N·M floats: orthogonal columns by decreasing singular value, each with
    /// a largest vertex displacement of exactly 1 model unit, its largest entry positive.
    std::vector<float> basis;
    /// q per frame, `track[f*M + j]`, F·M floats: the least-squares fit of each frame to the stored p and U.
    std::vector<float> track;
    /// All min(3N, F) singular values of the centred frame matrix, descending, model units.
    std::vector<double> singularValues;
    /// Max over frames and vertices of |p_i + U_i q_f − x_fi| (model units), as `Model::DeformedPosition`
    /// rebuilds.
    double maxError = 0.0;
    double rmsError = 0.0; ///< Root mean square of the same error over all frames and vertices (model units).
    double energyKept = 0.0; ///< Σ_{j<M} σ_j² / Σ σ_j²: the fraction of the variance kept (1 if all σ are 0).
};

/// PCA of an animation of F frames of N vertices, fixed topology (Alexa & Müller 2000; the paper's curtain, §4,
/// has M = 12): p is the mean frame, U the M leading components. Deterministic; O(N·F² + F³ + N·M·F), memory
/// O(F² + N·M); progress stage "pca". Throws `bdt::Error` for fewer than 2 frames, empty, mismatched or
/// non-finite frames, M = 0, or M above the rank (F − 1, 3N, and σ_k > 1e-9·σ_0).
AnimationBasis ComputeAnimationBasis(std::span<const std::vector<Vec3f>> inFrames, std::uint32_t inModes,
                                     const ProgressCallback& inProgress = {});

} // namespace bdt
