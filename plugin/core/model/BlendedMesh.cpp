#include <bdt/core/model/BlendedMesh.h>
#include <bdt/core/base/Error.h>
#include <cmath>
#include <string>

namespace bdt
{

BlendedMesh BlendedMesh::Create(BlendedMeshData inData)
{
    const std::size_t n = inData.positions.size();
    if (n == 0 || inData.triangles.empty())
        throw Error("blended mesh: no vertices or no triangles");
    if (inData.nodeCount == 0)
        throw Error("blended mesh: no simulation nodes");
    for (std::size_t k = 0; k < n; ++k)
        if (!inData.positions[k].allFinite())
            throw Error("blended mesh: vertex " + std::to_string(k) + " is not finite");
    for (std::size_t t = 0; t < inData.triangles.size(); ++t)
        for (std::uint32_t v : inData.triangles[t])
            if (v >= n)
                throw Error("blended mesh: triangle " + std::to_string(t) + " has vertex index " +
                            std::to_string(v) + " out of range (" + std::to_string(n) + " vertices)");
    if (inData.weightStart.size() != n + 1 || inData.weightStart[0] != 0 ||
        inData.weightStart.back() != inData.weights.size())
        throw Error(
            "blended mesh: weightStart must have one entry per vertex plus one, from 0 to the weight count");
    std::vector<std::uint32_t> seen(inData.nodeCount, std::uint32_t(-1));
    for (std::size_t k = 0; k < n; ++k)
    {
        const std::uint32_t begin = inData.weightStart[k], end = inData.weightStart[k + 1];
        if (end <= begin)
            throw Error("blended mesh: vertex " + std::to_string(k) + " has no weight");
        double sum = 0.0;
        for (std::uint32_t i = begin; i < end; ++i)
        {
            const BlendWeight& w = inData.weights[i];
            if (w.node >= inData.nodeCount)
                throw Error("blended mesh: vertex " + std::to_string(k) + " names node " +
                            std::to_string(w.node) + " of " + std::to_string(inData.nodeCount));
            if (seen[w.node] == k)
                throw Error("blended mesh: vertex " + std::to_string(k) + " names node " +
                            std::to_string(w.node) + " twice");
            seen[w.node] = std::uint32_t(k);
            if (!std::isfinite(w.weight) || w.weight < 0.0f)
                throw Error("blended mesh: vertex " + std::to_string(k) +
                            " has a negative or non-finite weight");
            sum += w.weight;
        }
        if (std::abs(sum - 1.0) > 1e-3)
            throw Error("blended mesh: the weights of vertex " + std::to_string(k) + " sum to " +
                        std::to_string(sum) + ", not 1");
        for (std::uint32_t i = begin; i < end; ++i)
            inData.weights[i].weight = float(double(inData.weights[i].weight) / sum);
    }
    BlendedMesh mesh;
    mesh.mData = std::move(inData);
    return mesh;
}

Vec3d BlendedMesh::DeformedPosition(std::size_t inVertex, std::span<const AffineTransform> inTransforms) const
{
    const Vec3d rest = mData.positions[inVertex].cast<double>();
    Vec3d sum = Vec3d::Zero();
    for (const BlendWeight& w : Weights(inVertex))
        sum += double(w.weight) * inTransforms[w.node].Apply(rest);
    return sum;
}

Model BlendedMesh::ToReducedModel() const
{
    const std::uint32_t m = 12 * mData.nodeCount;
    ModelData data;
    data.positions = mData.positions;
    data.triangles = mData.triangles;
    data.modeCount = m;
    data.basis.assign(std::size_t(3) * VertexCount() * m, 0.0f);
    for (std::size_t k = 0; k < VertexCount(); ++k)
    {
        const Vec3f& rest = mData.positions[k];
        for (const BlendWeight& w : Weights(k))
        {
            // Mode 12j + 3r + c moves coordinate r by w·v⁰_c (entry (r, c) of A_j − I); 12j + 9 + r by w
            // (t_j).
            float* u = data.basis.data() + (k * m + 12 * std::size_t(w.node)) * 3;
            for (int r = 0; r < 3; ++r)
            {
                for (int c = 0; c < 3; ++c)
                    u[(3 * r + c) * 3 + r] = w.weight * rest[c];
                u[(9 + r) * 3 + r] = w.weight;
            }
        }
    }
    return Model::Create(std::move(data));
}

std::vector<float> BlendedMesh::ReducedCoordinates(std::span<const AffineTransform> inTransforms) const
{
    std::vector<float> q(12 * std::size_t(mData.nodeCount));
    for (std::uint32_t j = 0; j < mData.nodeCount; ++j)
    {
        const Mat3d change = inTransforms[j].linear - Mat3d::Identity();
        for (int r = 0; r < 3; ++r)
        {
            for (int c = 0; c < 3; ++c)
                q[12 * j + 3 * r + c] = float(change(r, c));
            q[12 * j + 9 + r] = float(inTransforms[j].translation[r]);
        }
    }
    return q;
}

} // namespace bdt
