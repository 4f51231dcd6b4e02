#include <bdt/core/ProxyLevel.h>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <vector>

namespace bdt
{

namespace
{

Vec3d Vec(const float* inValues) { return {inValues[0], inValues[1], inValues[2]}; }

// ‖A‖₂ of the 3×M matrix with columns inA_j − inB_j (rows laid out as in NodeRowLayout).
double SpectralNormOfDifference(const float* inA, const float* inB, std::uint32_t inModes)
{
    Mat3d gram = Mat3d::Zero();
    for (std::uint32_t j = 0; j < inModes; ++j)
    {
        const Vec3d d = Vec(inA + 4 * (j + 1)) - Vec(inB + 4 * (j + 1));
        gram.noalias() += d * d.transpose();
    }
    if (gram.isZero(0.0))
        return 0.0;
    Eigen::SelfAdjointEigenSolver<Mat3d> solver(gram, Eigen::EigenvaluesOnly);
    return std::sqrt(std::max(0.0, solver.eigenvalues().maxCoeff())) * (1.0 + 1e-9);
}

} // namespace

ProxyLevel::ProxyLevel(std::shared_ptr<const BDTree> inTree, std::uint32_t inLevel) : mTree(std::move(inTree))
{
    const BDTree& tree = *mTree;
    mLevel = std::min(inLevel, tree.LevelCount() - 1);
    mWrappedCount = tree.LevelBegin(mLevel);
    const std::uint32_t m = tree.ModeCount();
    const std::uint32_t stride = tree.RowStride();
    const std::uint32_t tight = NodeRowLayout::TightOffset(m);
    const double gamma = FloatUpdateSlack(m);
    mRows.assign(tree.Rows().begin(), tree.Rows().begin() + std::size_t(mWrappedCount) * stride);

    // Bottom-up: children have larger indices (breadth-first order), so a reverse sweep sees them first.
    std::vector<double> row(stride);
    for (std::uint32_t i = mWrappedCount; i-- > 0;)
    {
        const BDTreeNode& node = tree.Node(i);
        if (node.IsLeaf())
            continue;
        float* parent = mRows.data() + std::size_t(i) * stride;
        for (std::uint32_t k = 0; k < stride; ++k)
            row[k] = parent[k];
        const Vec3d c = Vec(parent);
        for (std::uint32_t childIndex : {node.firstChild, node.firstChild + 1})
        {
            const float* child = Row(childIndex);
            const Vec3d cc = Vec(child);
            // Each term carries the float rounding of both centres' updates (γ of their magnitudes), so the
            // nesting also holds for the float results, not only for exact arithmetic.
            row[3] = std::max(row[3], (cc - c).norm() + child[3] + gamma * (cc.norm() + c.norm() + child[3]));
            for (std::uint32_t j = 0; j < m; ++j)
            {
                const Vec3d uc = Vec(child + 4 * (j + 1));
                const Vec3d up = Vec(parent + 4 * (j + 1));
                const double growth = (uc - up).norm() + child[4 * (j + 1) + 3];
                row[4 * (j + 1) + 3] =
                    std::max(row[4 * (j + 1) + 3], growth + gamma * (uc.norm() + up.norm() + child[4 * (j + 1) + 3]));
            }
            double ucNorm2 = 0.0;
            double upNorm2 = 0.0;
            for (std::uint32_t j = 0; j < m; ++j)
            {
                ucNorm2 += Vec(child + 4 * (j + 1)).squaredNorm();
                upNorm2 += Vec(parent + 4 * (j + 1)).squaredNorm();
            }
            const double tightGrowth = SpectralNormOfDifference(child, parent, m) + child[tight];
            row[tight] = std::max(row[tight], tightGrowth + gamma * (std::sqrt(ucNorm2) + std::sqrt(upNorm2) + child[tight]));
            row[tight + 1] = std::max(row[tight + 1], double(child[tight + 1]));
        }
        for (std::uint32_t j = 0; j <= m; ++j)
            parent[4 * j + 3] = RoundUpToFloat(row[4 * j + 3] * (1.0 + 2.0 * gamma));
        parent[tight] = RoundUpToFloat(row[tight] * (1.0 + 2.0 * gamma));
        parent[tight + 1] = RoundUpToFloat(row[tight + 1]);
    }
}

} // namespace bdt
