#pragma once

// Display of reduced deformable bodies: the rest mesh and its bases on the GPU, deformed per vertex by
// shaders/deform.vert, many bodies sharing one model drawn in one instanced call.

#include "GlObjects.h"
#include "ShaderProgram.h"

#include <Eigen/Core>
#include <bdt/core/model/Model.h>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace bdt::demo
{

/// One body drawn with a model: where it is, how it is deformed, its colour.
struct MeshInstance
{
    /// The model's rest frame to world: rotation · uniform scale | translation, metres.
    Eigen::Matrix<float, 3, 4> modelToWorld = Eigen::Matrix<float, 3, 4>::Identity();
    std::span<const float> q;                                        ///< The body's M reduced coordinates.
    Eigen::Vector4f color = Eigen::Vector4f(0.8f, 0.8f, 0.8f, 1.0f); ///< Linear RGB and alpha.
    /// Where the body was a step earlier, for motion vectors and the motion view: its model-to-world transform
    /// and q then (`World::PreviousMeshTransform`, `PreviousQ`). Unset or empty: as now (no motion).
    std::optional<Eigen::Matrix<float, 3, 4>> previousModelToWorld;
    std::span<const float> previousQ;
};

/// What a renderer sent to the GPU, for the stats.
struct MeshUploadStats
{
    std::uint64_t meshBytes = 0;      ///< Rest mesh, normals, U and N: once, at creation.
    /// Per-instance data (transforms, colours, q, and their previous values) of the last draw.
    std::uint64_t lastFrameBytes = 0;
    /// Vertex positions or normals the renderer computed on the CPU and uploaded after creation: the
    /// deformation is the vertex shader's, so nothing ever adds to it (0 is what the demo's stats show).
    std::uint64_t cpuDeformedVertices = 0;
};

/// The GPU copy of one model (shared by all its bodies) and its instanced draw.
///
/// Buffers: rest positions and unit area-weighted rest normals (vertex attributes 0 and 1), triangles
/// (uint32 indices), and U and N interleaved in an RGBA32F buffer texture, texel 2(iM + j) = U_ij and
/// 2(iM + j) + 1 = N_ij; per draw, each instance's transform and colour (attributes 2-5, one per instance),
/// its previous transform (attributes 6-8), and its q and previous q (R32F buffer textures, M floats per
/// instance). N is the model's normal basis, or
/// `MakeNormalBasis` of its U when the model has none. Memory on the GPU: 24 V + 12 T + 32 V·M bytes.
/// Needs the GL context it was made in to be current for every call and when destroyed.
class DeformedMeshRenderer
{
public:
    /// Uploads `inModel` (kept alive by the renderer). Throws `bdt::Error` on a null model.
    explicit DeformedMeshRenderer(std::shared_ptr<const Model> inModel);

    const Model& GetModel() const { return *mModel; }

    /// Draws `inInstances` with `inProgram` (deform.vert with a fragment shader), which must be in use with
    /// its view uniforms set; the renderer binds texture units 0 (basis), 1 (q) and 2 (previous q) and sets
    /// uBasis, uQ, uPreviousQ and uModeCount. Each instance's q must have M entries (shorter ones are padded
    /// with 0). Cost on the CPU: O(instances · M) to pack the per-instance data.
    void Draw(const ShaderProgram& inProgram, std::span<const MeshInstance> inInstances);

    /// What the vertex shader computes for `inInstances`, captured by transform feedback: `cCaptureFloats`
    /// floats per vertex (world position xyz, unit normal xyz, colour RGBA in linear light, previous world
    /// position xyz), instance-major. `inProgram` must be deform.vert linked to capture vWorldPosition,
    /// vWorldNormal, vColor and vPreviousWorldPosition (`BuildCaptureProgram`), with its uniforms other than the
    /// renderer's set. For tests.
    std::vector<float> Capture(const ShaderProgram& inProgram, std::span<const MeshInstance> inInstances);

    const MeshUploadStats& Stats() const { return mStats; }

private:
    void UploadInstances(std::span<const MeshInstance> inInstances);
    void BindForDraw(const ShaderProgram& inProgram);

    std::shared_ptr<const Model> mModel;
    GlVertexArray mVertexArray;
    GlBuffer mVertices;  // position, normal per vertex
    GlBuffer mIndices;   // triangles
    GlBuffer mInstances; // transform rows and colour per instance
    GLsizeiptr mInstanceCapacity = 0;
    GlBufferTexture mBasis; // U and N, RGBA32F
    GlBufferTexture mQ;         // q per instance, R32F
    GlBufferTexture mPreviousQ; // previous q per instance, R32F
    std::vector<float> mInstanceScratch;
    std::vector<float> mQScratch, mPreviousQScratch;
    MeshUploadStats mStats;
};

/// Floats per vertex in `DeformedMeshRenderer::Capture`'s result.
constexpr std::size_t cCaptureFloats = 13;

/// deform.vert linked alone, capturing vWorldPosition, vWorldNormal, vColor and vPreviousWorldPosition (for
/// `DeformedMeshRenderer::Capture`).
ShaderProgram BuildCaptureProgram();

/// Unit area-weighted vertex normals of a mesh (the normalised sum of the cross products of its triangles),
/// +Y where a vertex has no area: the n of n' = n + N q, as `MakeNormalBasis` differentiates it.
std::vector<Eigen::Vector3f> RestVertexNormals(const Model& inModel);

} // namespace bdt::demo
