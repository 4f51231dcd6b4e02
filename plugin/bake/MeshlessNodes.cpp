#include <algorithm>
#include <bdt/bake/MeshlessNodes.h>
#include <bdt/core/base/Error.h>
#include <cmath>
#include <limits>
#include <numeric>

namespace bdt
{

MeshlessNodes SampleMeshlessNodes(std::vector<Vec3f> inPositions, std::vector<Triangle> inTriangles,
                                  std::uint32_t inNodes, std::uint32_t inNeighbours)
{
    const std::size_t count = inPositions.size();
    if (count == 0 || inTriangles.empty())
        throw Error("meshless nodes: empty mesh");
    if (inNodes == 0 || inNodes > count)
        throw Error("meshless nodes: " + std::to_string(inNodes) + " nodes for " + std::to_string(count) +
                    " vertices");
    if (inNeighbours == 0)
        throw Error("meshless nodes: each vertex needs at least one node");
    const std::uint32_t neighbours = std::min(inNeighbours, inNodes);

    // Farthest-point sampling: each new node is the vertex farthest from the nodes so far.
    Eigen::AlignedBox3d box;
    for (const Vec3f& p : inPositions)
        box.extend(p.cast<double>());
    std::vector<double> distance(count, std::numeric_limits<double>::infinity());
    std::size_t next = 0;
    for (std::size_t k = 0; k < count; ++k)
        if ((inPositions[k].cast<double>() - box.center()).squaredNorm() <
            (inPositions[next].cast<double>() - box.center()).squaredNorm())
            next = k;
    MeshlessNodes out;
    for (std::uint32_t j = 0; j < inNodes; ++j)
    {
        const Vec3d x = inPositions[next].cast<double>();
        out.nodePositions.push_back(x);
        std::size_t farthest = 0;
        for (std::size_t k = 0; k < count; ++k)
        {
            distance[k] = std::min(distance[k], (inPositions[k].cast<double>() - x).squaredNorm());
            if (distance[k] > distance[farthest])
                farthest = k;
        }
        next = farthest;
    }

    // Weights: the kernel of the nearest nodes, normalised.
    out.mesh.nodeCount = inNodes;
    out.mesh.weightStart.push_back(0);
    std::vector<std::uint32_t> order(inNodes);
    std::vector<double> d2(inNodes);
    for (std::size_t k = 0; k < count; ++k)
    {
        const Vec3d p = inPositions[k].cast<double>();
        for (std::uint32_t j = 0; j < inNodes; ++j)
            d2[j] = (p - out.nodePositions[j]).squaredNorm();
        std::iota(order.begin(), order.end(), 0u);
        std::partial_sort(order.begin(), order.begin() + neighbours, order.end(),
                          [&](std::uint32_t inA, std::uint32_t inB) { return d2[inA] < d2[inB]; });
        const double rho2 = d2[order[neighbours - 1]] * 1.21 + 1e-24; // ρ 10% beyond the farthest neighbour
        double sum = 0.0;
        const std::size_t first = out.mesh.weights.size();
        for (std::uint32_t i = 0; i < neighbours; ++i)
        {
            const double s = 1.0 - d2[order[i]] / rho2;
            const double w = s * s * s;
            out.mesh.weights.push_back({order[i], float(w)});
            sum += w;
        }
        for (std::size_t i = first; i < out.mesh.weights.size(); ++i)
            out.mesh.weights[i].weight = float(double(out.mesh.weights[i].weight) / sum);
        out.mesh.weightStart.push_back(std::uint32_t(out.mesh.weights.size()));
    }
    out.mesh.positions = std::move(inPositions);
    out.mesh.triangles = std::move(inTriangles);
    return out;
}

std::vector<AffineTransform> TransformsOfMap(const DeformationMap& inMap, std::span<const Vec3d> inNodes,
                                             double inStep)
{
    std::vector<AffineTransform> transforms(inNodes.size());
    for (std::size_t j = 0; j < inNodes.size(); ++j)
    {
        const Vec3d& x = inNodes[j];
        AffineTransform& t = transforms[j];
        for (int c = 0; c < 3; ++c)
        {
            Vec3d e = Vec3d::Zero();
            e[c] = inStep;
            t.linear.col(c) = (inMap(x + e) - inMap(x - e)) / (2.0 * inStep);
        }
        t.translation = inMap(x) - t.linear * x;
    }
    return transforms;
}

} // namespace bdt
