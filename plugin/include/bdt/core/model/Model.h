#pragma once

#include <bdt/core/base/Math.h>

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace bdt
{

/// Per-mode data of a displacement field, when it comes from a physical model (modal analysis) or an
/// animation. Bases without physics (smooth procedural fields) leave both at 0.
struct ModeInfo
{
    float frequency = 0.0f; ///< Angular frequency ω_j in rad/s (0: unknown or not a vibration mode).
    float damping = 0.0f;   ///< Damping ratio ζ_j (dimensionless, 0 = undamped).
};

/// Everything needed to make a `Model`, as plain arrays. Fill it, then call `Model::Create`.
struct ModelData
{
    std::vector<Vec3f> positions;   ///< Rest positions p_i, N of them, model units, rest (body) frame.
    std::vector<Triangle> triangles; ///< Vertex indices, counter-clockwise seen from outside.
    std::uint32_t modeCount = 0;    ///< M, the number of displacement fields (columns of U). 0 is a rigid body.
    /// U, 3·N·M floats, vertex-major (one vertex's M vectors contiguous, as the GPU reads them): the
    /// displacement of vertex i for unit q_j is `basis[(i*M + j)*3 + {0,1,2}]`.
    std::vector<float> basis;
    /// Optional normal basis N (same layout as `basis`): the first-order change of each vertex normal per
    /// unit q_j, for shading. Empty when absent.
    std::vector<float> normalBasis;
    /// Optional per-mode data, M entries or empty.
    std::vector<ModeInfo> modes;
    /// Optional animation track (a compressed animation, `bdt-bake --basis animation`): q per frame,
    /// frame-major, `animation[f*M + j]`, F·M floats; frame f is p + U q_f. Empty when absent.
    std::vector<float> animation;
};

/// A reduced deformable surface, p' = p + U q (BD-Tree paper §2, eq. 1): rest positions, triangles and a
/// displacement basis, all in the body's rest frame. Immutable once created and meant to be shared by every
/// body that uses it (through `std::shared_ptr<const Model>`).
///
/// Validation on creation (throws `bdt::Error` with a one-line message):
/// - at least one vertex and one triangle, every index < N;
/// - every position and basis entry finite, |value| < 1e18;
/// - `basis` of size 3·N·M, `normalBasis` empty or of the same size, `modes` empty or of size M;
/// - finite, non-negative mode frequencies and damping ratios;
/// - `animation` empty, or a whole number of frames of M finite values (M > 0).
/// Degenerate triangles (repeated index or zero area) are kept, counted and reported by
/// `DegenerateTriangleCount`; they are harmless to the tree.
class Model
{
public:
    /// Validates and takes ownership of `inData`. Cost O(N·M + T).
    static Model Create(ModelData inData);

    std::size_t VertexCount() const { return mData.positions.size(); }
    std::size_t TriangleCount() const { return mData.triangles.size(); }
    /// M, the number of reduced coordinates.
    std::uint32_t ModeCount() const { return mData.modeCount; }

    std::span<const Vec3f> Positions() const { return mData.positions; }
    std::span<const Triangle> Triangles() const { return mData.triangles; }
    /// U in the vertex-major layout described in `ModelData::basis`.
    std::span<const float> Basis() const { return mData.basis; }
    std::span<const float> NormalBasis() const { return mData.normalBasis; }
    std::span<const ModeInfo> Modes() const { return mData.modes; }
    bool HasNormalBasis() const { return !mData.normalBasis.empty(); }
    /// The animation track, frame-major (`ModelData::animation`); empty when absent.
    std::span<const float> AnimationTrack() const { return mData.animation; }
    /// F, the frames of the animation track (0 when absent).
    std::size_t AnimationFrameCount() const
    {
        return mData.modeCount == 0 ? 0 : mData.animation.size() / mData.modeCount;
    }

    /// U_ij, the displacement of vertex i per unit q_j.
    Vec3f BasisVector(std::size_t inVertex, std::size_t inMode) const
    {
        const float* u = mData.basis.data() + (inVertex * mData.modeCount + inMode) * 3;
        return {u[0], u[1], u[2]};
    }

    /// Deformed position p_i + Σ_j U_ij q_j in the rest frame, in double. `inQ` must have M entries.
    /// Cost 6M flops. This is the brute-force reference that every bound is tested against.
    Vec3d DeformedPosition(std::size_t inVertex, std::span<const float> inQ) const;

    /// Triangles with a repeated index or zero area.
    std::size_t DegenerateTriangleCount() const { return mDegenerateTriangles; }

    /// Axis-aligned box of the rest positions (model units).
    Eigen::AlignedBox3f RestBounds() const { return mRestBounds; }

    /// The arrays it was made from (for serialisation).
    const ModelData& Data() const { return mData; }

    /// A copy of this model with its triangles listed in the order `inOrder` (a permutation of
    /// 0..T-1: new triangle k is old triangle inOrder[k]). Used by the tree builder.
    Model WithTriangleOrder(std::span<const std::uint32_t> inOrder) const;

private:
    Model() = default;
    ModelData mData;
    std::size_t mDegenerateTriangles = 0;
    Eigen::AlignedBox3f mRestBounds;
};

} // namespace bdt
