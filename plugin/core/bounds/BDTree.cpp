#include "core/geometry/MinimalSphere.h"

#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/base/Error.h>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace bdt
{

double FloatUpdateSlack(std::uint32_t inModes) { return 4.0 * (inModes + 4.0) * std::ldexp(1.0, -24); }

float RoundUpToFloat(double inValue)
{
    const float f = static_cast<float>(inValue);
    return static_cast<double>(f) >= inValue ? f : std::nextafter(f, std::numeric_limits<float>::infinity());
}

double SpectralNorm(std::span<const Vec3d> inColumns)
{
    Mat3d gram = Mat3d::Zero();
    for (const Vec3d& column : inColumns)
        gram.noalias() += column * column.transpose();
    if (gram.isZero(0.0))
        return 0.0;
    Eigen::SelfAdjointEigenSolver<Mat3d> solver(gram, Eigen::EigenvaluesOnly);
    // Eigenvalues come back accurate to ~1e-15 of the largest; the 1e-9 margin keeps the bound above the
    // exact value.
    return std::sqrt(std::max(0.0, solver.eigenvalues().maxCoeff())) * (1.0 + 1e-9);
}

double SpectralNormBound(std::span<const Vec3d> inColumns)
{
    Mat3d gram = Mat3d::Zero();
    for (const Vec3d& column : inColumns)
        gram.noalias() += column * column.transpose();
    const double trace = gram.trace();
    if (!(trace > 0.0))
        return 0.0;
    Eigen::SelfAdjointEigenSolver<Mat3d> solver;
    solver.computeDirect(gram, Eigen::EigenvaluesOnly);
    // The closed form's rounding is a few ε of the trace; 1e-9 of it is far above. The trace bounds it too.
    const double largest = std::min(trace, solver.eigenvalues().maxCoeff() + 1e-9 * trace);
    return std::sqrt(std::max(largest, 0.0)) * (1.0 + 1e-9);
}

namespace
{

// The connected component of each triangle (triangles sharing a vertex are connected), numbered from 0, and
// their count in `outCount`.
std::vector<std::uint32_t> TriangleComponents(const Model& inModel, std::uint32_t& outCount)
{
    const auto triangles = inModel.Triangles();
    std::vector<std::uint32_t> parent(inModel.VertexCount());
    for (std::uint32_t v = 0; v < parent.size(); ++v)
        parent[v] = v;
    const auto find = [&](std::uint32_t inVertex)
    {
        while (parent[inVertex] != inVertex)
            inVertex = parent[inVertex] = parent[parent[inVertex]];
        return inVertex;
    };
    for (const Triangle& triangle : triangles)
        for (int k = 1; k < 3; ++k)
        {
            const std::uint32_t a = find(triangle[0]), b = find(triangle[std::size_t(k)]);
            if (a != b)
                parent[std::max(a, b)] = std::min(a, b);
        }
    std::vector<std::uint32_t> number(parent.size(), std::numeric_limits<std::uint32_t>::max());
    std::vector<std::uint32_t> components(triangles.size());
    outCount = 0;
    for (std::size_t t = 0; t < triangles.size(); ++t)
    {
        std::uint32_t& id = number[find(triangles[t][0])];
        if (id == std::numeric_limits<std::uint32_t>::max())
            id = outCount++;
        components[t] = id;
    }
    return components;
}

// Splits the triangles [inFirst, inLast) of a node holding several connected components (a chair's legs, seat
// and back) between its children whole, so that each part of a model made of parts gets subtrees of its own (a
// part that is a box is then one contact piece). The components are ordered by their centroids along
// `inAxis` and cut where the two sides' triangle counts come nearest, so the children stay compact; only where
// the smaller side holds at least a quarter of the triangles, which keeps the tree within a level or two of
// balanced. Returns the left child's count, or 0 where the node is not split this way.
std::uint32_t SplitByComponents(std::vector<std::uint32_t>::iterator inFirst,
                                std::vector<std::uint32_t>::iterator inLast,
                                const std::vector<std::uint32_t>& inComponents, const std::vector<Vec3f>& inCentroids,
                                int inAxis)
{
    struct Part
    {
        std::uint32_t component;
        std::uint32_t triangles;
        double sum; // of the triangles' centroids along the axis
    };
    std::vector<Part> parts;
    for (auto it = inFirst; it != inLast; ++it)
    {
        const std::uint32_t component = inComponents[*it];
        auto found = std::find_if(parts.begin(), parts.end(),
                                  [&](const Part& inPart) { return inPart.component == component; });
        if (found == parts.end())
        {
            if (parts.size() == 64)
                return 0; // many small parts: the geometric split serves
            parts.push_back({component, 0, 0.0});
            found = parts.end() - 1;
        }
        ++found->triangles;
        found->sum += double(inCentroids[*it][inAxis]);
    }
    if (parts.size() < 2)
        return 0;
    std::sort(parts.begin(), parts.end(),
              [](const Part& inA, const Part& inB)
              {
                  const double a = inA.sum / inA.triangles, b = inB.sum / inB.triangles;
                  return a < b || (a == b && inA.component < inB.component);
              });
    const std::uint64_t total = std::uint64_t(inLast - inFirst);
    const auto imbalance = [&](std::uint64_t inLeft)
    { return inLeft > total - inLeft ? 2 * inLeft - total : total - 2 * inLeft; };
    std::uint64_t left = 0, bestLeft = 0;
    std::size_t bestCut = 0;
    for (std::size_t cut = 1; cut < parts.size(); ++cut)
    {
        left += parts[cut - 1].triangles;
        if (bestCut == 0 || imbalance(left) < imbalance(bestLeft))
        {
            bestCut = cut;
            bestLeft = left;
        }
    }
    if (4 * std::min(bestLeft, total - bestLeft) < total)
        return 0;
    std::vector<std::uint32_t> leftComponents;
    for (std::size_t k = 0; k < bestCut; ++k)
        leftComponents.push_back(parts[k].component);
    std::stable_partition(inFirst, inLast,
                          [&](std::uint32_t inTriangle)
                          {
                              return std::find(leftComponents.begin(), leftComponents.end(),
                                               inComponents[inTriangle]) != leftComponents.end();
                          });
    return static_cast<std::uint32_t>(bestLeft);
}

// Breadth-first top-down split (§3.1 stage 1): a node holding several connected components whole is split
// between them (`SplitByComponents`), any other at the median of its triangles' centroids along the longest
// axis of their bounds. Fills nodes and the triangle permutation.
void BuildTopology(const Model& inModel, std::uint32_t inMaxLeaf, std::vector<BDTreeNode>& outNodes,
                   std::vector<std::uint32_t>& outOrder)
{
    const auto positions = inModel.Positions();
    const auto triangles = inModel.Triangles();
    const std::size_t triangleCount = triangles.size();
    std::vector<Vec3f> centroids(triangleCount);
    for (std::size_t t = 0; t < triangleCount; ++t)
        centroids[t] = (positions[triangles[t][0]] + positions[triangles[t][1]] + positions[triangles[t][2]]) / 3.0f;

    outOrder.resize(triangleCount);
    for (std::size_t t = 0; t < triangleCount; ++t)
        outOrder[t] = static_cast<std::uint32_t>(t);

    std::uint32_t componentCount = 0;
    const std::vector<std::uint32_t> components = TriangleComponents(inModel, componentCount);
    outNodes.clear();
    outNodes.reserve(2 * triangleCount);
    outNodes.push_back({0, 0, static_cast<std::uint32_t>(triangleCount), 0, 0});
    // Appending children while sweeping the array in order is a breadth-first traversal, so indices come out
    // level by level.
    for (std::size_t i = 0; i < outNodes.size(); ++i)
    {
        const BDTreeNode node = outNodes[i];
        if (node.triangleCount <= inMaxLeaf)
            continue;
        if (node.level == std::numeric_limits<std::uint16_t>::max())
            throw Error("tree deeper than 65535 levels");
        auto first = outOrder.begin() + node.firstTriangle;
        auto last = first + node.triangleCount;
        const auto childLevel = static_cast<std::uint16_t>(node.level + 1);
        Eigen::AlignedBox3f box;
        box.setEmpty();
        for (auto it = first; it != last; ++it)
            box.extend(centroids[*it]);
        int axis = 0;
        box.diagonal().maxCoeff(&axis);
        // A model of one piece (most meshes) splits at medians only: no node to sort by component.
        if (const std::uint32_t parts =
                componentCount > 1 ? SplitByComponents(first, last, components, centroids, axis) : 0;
            parts > 0)
        {
            outNodes[i].firstChild = static_cast<std::uint32_t>(outNodes.size());
            outNodes.push_back({0, node.firstTriangle, parts, childLevel, 0});
            outNodes.push_back({0, node.firstTriangle + parts, node.triangleCount - parts, childLevel, 0});
            continue;
        }
        const std::uint32_t leftCount = node.triangleCount / 2;
        // Ties broken by index so the split is deterministic and balanced even for equal centroids.
        std::nth_element(first, first + leftCount, last,
                         [&](std::uint32_t a, std::uint32_t b)
                         {
                             const float ka = centroids[a][axis];
                             const float kb = centroids[b][axis];
                             return ka < kb || (ka == kb && a < b);
                         });
        outNodes[i].firstChild = static_cast<std::uint32_t>(outNodes.size());
        outNodes.push_back({0, node.firstTriangle, leftCount, childLevel, 0});
        outNodes.push_back({0, node.firstTriangle + leftCount, node.triangleCount - leftCount, childLevel, 0});
    }
}

// §3.1 stage 2 and §3.2: the wrapped sphere and the per-mode update data of one node, from its vertices.
void ComputeRow(const Model& inModel, std::span<const std::uint32_t> inVertices, float* outRow)
{
    const std::uint32_t m = inModel.ModeCount();
    const double gamma = FloatUpdateSlack(m);
    const auto positions = inModel.Positions();

    std::vector<Vec3d> points(inVertices.size());
    for (std::size_t k = 0; k < inVertices.size(); ++k)
        points[k] = positions[inVertices[k]].cast<double>();
    // The centre is stored in float; the radius is measured from the stored centre (eq. 2), so the float
    // rounding of the centre costs nothing in conservativeness.
    const Vec3f center = MinimalEnclosingSphere(points).center.cast<float>();
    const Vec3d c = center.cast<double>();
    double radius = 0.0;
    for (const Vec3d& p : points)
        radius = std::max(radius, (p - c).norm());
    outRow[0] = center.x();
    outRow[1] = center.y();
    outRow[2] = center.z();
    outRow[3] = RoundUpToFloat((radius + gamma * c.norm()) * (1.0 + 2.0 * gamma));

    // Per mode: Ū_j, ΔR_j = max_i ‖U_ij − Ū_j‖ (eq. 7).
    std::vector<Vec3d> meanDisplacement(m);
    double meanNormSquared = 0.0;
    for (std::uint32_t j = 0; j < m; ++j)
    {
        for (std::size_t k = 0; k < inVertices.size(); ++k)
            points[k] = inModel.BasisVector(inVertices[k], j).cast<double>();
        const Vec3f ubar = MinimalEnclosingSphere(points).center.cast<float>();
        meanDisplacement[j] = ubar.cast<double>();
        double growth = 0.0;
        for (const Vec3d& u : points)
            growth = std::max(growth, (u - meanDisplacement[j]).norm());
        const double ubarNorm = meanDisplacement[j].norm();
        meanNormSquared += ubarNorm * ubarNorm;
        float* modeRow = outRow + 4 * (j + 1);
        modeRow[0] = ubar.x();
        modeRow[1] = ubar.y();
        modeRow[2] = ubar.z();
        modeRow[3] = RoundUpToFloat((growth + gamma * ubarNorm) * (1.0 + 2.0 * gamma));
    }

    // δR_tight = max_i ‖U_i − Ū‖₂ and δR (eq. 11) = max_i ‖U_i‖₂, spectral norms of 3×M blocks.
    double tight = 0.0;
    double coherence = 0.0;
    std::vector<Vec3d> columns(m);
    std::vector<Vec3d> deviations(m);
    for (std::uint32_t vertex : inVertices)
    {
        for (std::uint32_t j = 0; j < m; ++j)
        {
            columns[j] = inModel.BasisVector(vertex, j).cast<double>();
            deviations[j] = columns[j] - meanDisplacement[j];
        }
        tight = std::max(tight, SpectralNorm(deviations));
        coherence = std::max(coherence, SpectralNorm(columns));
    }
    float* tail = outRow + NodeRowLayout::TightOffset(m);
    tail[0] = RoundUpToFloat((tight + gamma * std::sqrt(meanNormSquared)) * (1.0 + 3.0 * gamma));
    tail[1] = RoundUpToFloat(coherence * (1.0 + 2.0 * gamma));
    tail[2] = 0.0f;
    tail[3] = 0.0f;
}

} // namespace

void ForEachNodeVertices(const Model& inModel, std::span<const BDTreeNode> inNodes, const NodeVerticesCallback& inCallback)
{
    // Unique vertices of each node, found with a per-vertex stamp (no sorting, no hashing).
    std::vector<std::uint32_t> stamp(inModel.VertexCount(), std::numeric_limits<std::uint32_t>::max());
    std::vector<std::uint32_t> vertices;
    const auto triangles = inModel.Triangles();
    for (std::uint32_t i = 0; i < inNodes.size(); ++i)
    {
        const BDTreeNode& node = inNodes[i];
        vertices.clear();
        for (std::uint32_t t = node.firstTriangle; t < node.firstTriangle + node.triangleCount; ++t)
            for (std::uint32_t v : triangles[t])
                if (stamp[v] != i)
                {
                    stamp[v] = i;
                    vertices.push_back(v);
                }
        inCallback(i, vertices);
    }
}

std::uint32_t BDTree::LevelEnd(std::uint32_t inLevel) const
{
    if (mLevelEnd.empty())
        return 0;
    return mLevelEnd[std::min<std::size_t>(inLevel, mLevelEnd.size() - 1)];
}

void BDTree::ComputeLevels()
{
    mLevelEnd.clear();
    for (std::uint32_t i = 0; i < mNodes.size(); ++i)
    {
        const std::uint32_t level = mNodes[i].level;
        if (level >= mLevelEnd.size())
            mLevelEnd.resize(level + 1, i);
        mLevelEnd[level] = i + 1;
    }
}

BDTree BDTree::Build(const Model& inModel, const BDTreeSettings& inSettings, const ProgressCallback& inProgress)
{
    if (inSettings.maxLeafTriangles == 0)
        throw Error("maxLeafTriangles must be at least 1");

    BDTree tree;
    if (inProgress)
        inProgress("tree topology", 0.0);
    BuildTopology(inModel, inSettings.maxLeafTriangles, tree.mNodes, tree.mTriangleOrder);
    tree.mModel = std::make_shared<const Model>(inModel.WithTriangleOrder(tree.mTriangleOrder));
    tree.ComputeLevels();

    const Model& model = *tree.mModel;
    const std::uint32_t m = model.ModeCount();
    tree.mRowStride = NodeRowLayout::RowStride(m);
    tree.mRows.assign(std::size_t(tree.mNodes.size()) * tree.mRowStride, 0.0f);

    const std::size_t nodeCount = tree.mNodes.size();
    ForEachNodeVertices(model, tree.mNodes, [&](std::uint32_t inNode, std::span<const std::uint32_t> inVertices) {
        ComputeRow(model, inVertices, tree.mRows.data() + std::size_t(inNode) * tree.mRowStride);
        if (inProgress && (inNode % 4096 == 0 || inNode + 1 == nodeCount))
            inProgress("tree spheres", double(inNode + 1) / double(nodeCount));
    });
    return tree;
}

BDTree BDTree::FromParts(std::shared_ptr<const Model> inModel, std::vector<BDTreeNode> inNodes,
                         std::span<const float> inRows, std::vector<std::uint32_t> inTriangleOrder)
{
    if (!inModel)
        throw Error("tree has no model");
    const std::size_t nodeCount = inNodes.size();
    const std::size_t triangleCount = inModel->TriangleCount();
    const std::uint32_t stride = NodeRowLayout::RowStride(inModel->ModeCount());
    if (nodeCount == 0)
        throw Error("tree has no nodes");
    if (inRows.size() != nodeCount * stride)
        throw Error("tree has " + std::to_string(inRows.size()) + " row values, expected " +
                    std::to_string(nodeCount * stride));
    if (inTriangleOrder.size() != triangleCount)
        throw Error("tree triangle order has the wrong size");
    {
        std::vector<bool> seen(triangleCount, false);
        for (std::uint32_t t : inTriangleOrder)
        {
            if (t >= triangleCount || seen[t])
                throw Error("tree triangle order is not a permutation");
            seen[t] = true;
        }
    }
    if (inNodes[0].level != 0 || inNodes[0].firstTriangle != 0 || inNodes[0].triangleCount != triangleCount)
        throw Error("tree root does not cover every triangle");
    for (std::size_t i = 0; i < nodeCount; ++i)
    {
        const BDTreeNode& node = inNodes[i];
        if (node.triangleCount == 0 || std::size_t(node.firstTriangle) + node.triangleCount > triangleCount)
            throw Error("tree node " + std::to_string(i) + " has an invalid triangle range");
        if (i > 0 && node.level < inNodes[i - 1].level)
            throw Error("tree nodes are not in breadth-first order");
        if (node.IsLeaf())
            continue;
        // Children come after their parent (no cycles), are in range, one level down, and split its range.
        if (node.firstChild <= i || std::size_t(node.firstChild) + 1 >= nodeCount)
            throw Error("tree node " + std::to_string(i) + " has an invalid child index");
        const BDTreeNode& left = inNodes[node.firstChild];
        const BDTreeNode& right = inNodes[node.firstChild + 1];
        if (left.level != node.level + 1 || right.level != node.level + 1 ||
            left.firstTriangle != node.firstTriangle ||
            right.firstTriangle != left.firstTriangle + left.triangleCount ||
            std::size_t(left.triangleCount) + right.triangleCount != node.triangleCount)
            throw Error("tree node " + std::to_string(i) + " has children that do not split its range");
    }
    for (std::size_t k = 0; k < inRows.size(); ++k)
    {
        const float value = inRows[k];
        const std::size_t column = k % stride;
        const bool isRadius = column % 4 == 3 || column >= NodeRowLayout::TightOffset(inModel->ModeCount());
        if (!std::isfinite(value) || (isRadius && value < 0.0f))
            throw Error("tree node " + std::to_string(k / stride) + " has an invalid sphere value");
    }
    // Each node except the root must be some node's child exactly once.
    std::vector<std::uint32_t> parents(nodeCount, 0);
    for (const BDTreeNode& node : inNodes)
    {
        if (!node.IsLeaf())
        {
            ++parents[node.firstChild];
            ++parents[node.firstChild + 1];
        }
    }
    for (std::size_t i = 1; i < nodeCount; ++i)
    {
        if (parents[i] != 1)
            throw Error("tree node " + std::to_string(i) + " is not reachable exactly once");
    }

    BDTree tree;
    tree.mModel = std::move(inModel);
    tree.mNodes = std::move(inNodes);
    tree.mRowStride = stride;
    tree.mRows.assign(inRows.begin(), inRows.end());
    tree.mTriangleOrder = std::move(inTriangleOrder);
    tree.ComputeLevels();
    return tree;
}

std::size_t BDTree::MemoryBytes() const
{
    const ModelData& data = mModel->Data();
    return mNodes.size() * sizeof(BDTreeNode) + mRows.size() * sizeof(float) +
           mTriangleOrder.size() * sizeof(std::uint32_t) + data.positions.size() * sizeof(Vec3f) +
           data.triangles.size() * sizeof(Triangle) + (data.basis.size() + data.normalBasis.size()) * sizeof(float);
}

} // namespace bdt
