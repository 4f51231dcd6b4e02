#include <bdt/core/ProxyLevel.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace bdt
{

namespace
{

Vec3d Vec(const float* inValues) { return {inValues[0], inValues[1], inValues[2]}; }

// Σ_j ‖Ū_j‖² of a row (rows laid out as in NodeRowLayout).
double MeanDisplacementNorm2(const float* inRow, std::uint32_t inModes)
{
    double sum = 0.0;
    for (std::uint32_t j = 0; j < inModes; ++j)
        sum += Vec(inRow + 4 * (j + 1)).squaredNorm();
    return sum;
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
    std::vector<Vec3d> differences(m); // Ū_ch,j − Ū_n,j, the columns of the tight bound's matrix
    for (std::uint32_t i = mWrappedCount; i-- > 0;)
    {
        const BDTreeNode& node = tree.Node(i);
        if (node.IsLeaf())
            continue;
        float* parent = mRows.data() + std::size_t(i) * stride;
        for (std::uint32_t k = 0; k < stride; ++k)
            row[k] = parent[k];
        const Vec3d c = Vec(parent);
        const double parentDisplacementNorm = std::sqrt(MeanDisplacementNorm2(parent, m));
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
                differences[j] = uc - up;
                const double growth = differences[j].norm() + child[4 * (j + 1) + 3];
                row[4 * (j + 1) + 3] =
                    std::max(row[4 * (j + 1) + 3], growth + gamma * (uc.norm() + up.norm() + child[4 * (j + 1) + 3]));
            }
            const double tightGrowth = SpectralNorm(differences) + child[tight];
            const double rounding =
                gamma * (std::sqrt(MeanDisplacementNorm2(child, m)) + parentDisplacementNorm + child[tight]);
            row[tight] = std::max(row[tight], tightGrowth + rounding);
            row[tight + 1] = std::max(row[tight + 1], double(child[tight + 1]));
        }
        for (std::uint32_t j = 0; j <= m; ++j)
            parent[4 * j + 3] = RoundUpToFloat(row[4 * j + 3] * (1.0 + 2.0 * gamma));
        parent[tight] = RoundUpToFloat(row[tight] * (1.0 + 2.0 * gamma));
        parent[tight + 1] = RoundUpToFloat(row[tight + 1]);
    }
}

} // namespace bdt
