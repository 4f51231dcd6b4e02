#include "core/geometry/MinimalSphere.h"
#include <bdt/core/bounds/ContactProxies.h>

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

// The proxies under node `inNode` (itself if it is one), in depth-first order.
void ProxiesBelow(const ContactProxies& inProxies, std::uint32_t inNode, std::vector<std::uint32_t>& outProxies,
                  std::vector<std::uint32_t>& ioStack)
{
    outProxies.clear();
    ioStack.assign(1, inNode);
    while (!ioStack.empty())
    {
        const std::uint32_t node = ioStack.back();
        ioStack.pop_back();
        if (inProxies.IsProxy(node))
        {
            outProxies.push_back(node);
            continue;
        }
        const BDTreeNode& tree = inProxies.Tree().Node(node);
        ioStack.push_back(tree.firstChild + 1);
        ioStack.push_back(tree.firstChild);
    }
}

// The centre, in float, of node `inNode`'s wrap of the proxies' balls in column `inColumn` of the rows (the
// point and the radius after it; column 0: c and R). The better of `EnclosingBallsCentre` and the node's own
// centre (the minimal sphere of its vertices), so a wrap never reaches further than its own centre would give
// it.
Vec3f WrapCentre(const BDTree& inTree, std::uint32_t inNode, std::span<const std::uint32_t> inProxies,
                 std::uint32_t inColumn, std::vector<Vec3d>& ioCentres, std::vector<double>& ioRadii)
{
    ioCentres.clear();
    ioRadii.clear();
    for (std::uint32_t p : inProxies)
    {
        const float* row = inTree.Row(p) + 4 * inColumn;
        ioCentres.push_back(Vec(row));
        ioRadii.push_back(row[3]);
    }
    const auto reach = [&](const Vec3f& inCentre)
    {
        double farthest = 0.0;
        for (std::size_t k = 0; k < ioCentres.size(); ++k)
            farthest = std::max(farthest, (ioCentres[k] - inCentre.cast<double>()).norm() + ioRadii[k]);
        return farthest;
    };
    const Vec3f chosen = EnclosingBallsCentre(ioCentres, ioRadii).cast<float>();
    const Vec3f own = Eigen::Map<const Vec3f>(inTree.Row(inNode) + 4 * inColumn);
    return reach(own) < reach(chosen) ? own : chosen;
}

} // namespace

ContactProxies::ContactProxies(std::shared_ptr<const BDTree> inTree, std::uint32_t inLevel) : mTree(std::move(inTree))
{
    const BDTree& tree = *mTree;
    mLevel = std::min(inLevel, tree.LevelCount() - 1);
    mWrappedCount = tree.LevelBegin(mLevel);
    const std::uint32_t m = tree.ModeCount();
    const std::uint32_t stride = tree.RowStride();
    const std::uint32_t tight = NodeRowLayout::TightOffset(m);
    const double gamma = FloatUpdateSlack(m);
    mRows.assign(tree.Rows().begin(), tree.Rows().begin() + std::size_t(mWrappedCount) * stride);
    mChildrenBelow.resize(VisitCount());
    for (std::uint32_t i = 0; i < VisitCount(); ++i)
        mChildrenBelow[i] = IsProxy(i) ? 0 : tree.Node(i).firstChild;

    // Each node above the proxies is measured against every proxy below it, not composed from its children's
    // wraps: composing adds the triangle inequality's slack at every level, and a looser coarse sphere overlaps
    // more of the other body's, which is most of a tree-vs-tree descent's cost (see the class comment). The
    // rest centre is chosen for the proxies (`EnclosingBallsCentre`). O(P·L·M) for P proxies, once per L.
    std::vector<std::uint32_t> below, stack;
    std::vector<Vec3d> centres, differences(m);
    std::vector<double> radii;
    std::vector<double> row(stride);
    for (std::uint32_t i = 0; i < mWrappedCount; ++i)
    {
        if (tree.Node(i).IsLeaf())
            continue; // a leaf above L is a proxy: its own row
        ProxiesBelow(*this, i, below, stack);
        float* wrapped = mRows.data() + std::size_t(i) * stride;
        // The rest centre is chosen for the proxies' balls; each Ū_j stays the node's own (the centre of its
        // vertices' displacements): choosing those too would triple the cost for next to no tighter spheres.
        const Vec3f centre = WrapCentre(tree, i, below, 0, centres, radii);
        for (int k = 0; k < 3; ++k)
            wrapped[k] = centre[k];
        for (std::uint32_t column = 0; column <= m; ++column)
            row[4 * column + 3] = 0.0;
        row[tight] = 0.0;
        row[tight + 1] = wrapped[tight + 1]; // δR of eq. 11 over the node's own vertices
        const double displacementNorm = std::sqrt(MeanDisplacementNorm2(wrapped, m));
        for (std::uint32_t p : below)
        {
            // For every q: ‖c'_p − c'_n‖ + R'_p ≤ R'_n. The centres differ by (c_p − c_n) + Σ_j (Ū_pj − Ū_nj) q_j
            // and R'_p grows by ΔR_pjᵀ|q| (eq. 7) or δR_tight,p‖q‖₂, so each coefficient of the node bounds its
            // proxy's plus the centres' difference. Each term carries the float rounding of both centres'
            // updates (γ of their magnitudes), so the nesting also holds for the float results.
            const float* proxy = tree.Row(p);
            for (std::uint32_t column = 0; column <= m; ++column)
            {
                const Vec3d own = Vec(wrapped + 4 * column);
                const Vec3d other = Vec(proxy + 4 * column);
                const double radius = proxy[4 * column + 3];
                if (column > 0)
                    differences[column - 1] = other - own;
                row[4 * column + 3] = std::max(row[4 * column + 3], (other - own).norm() + radius +
                                                                        gamma * (other.norm() + own.norm() + radius));
            }
            const double rounding =
                gamma * (std::sqrt(MeanDisplacementNorm2(proxy, m)) + displacementNorm + proxy[tight]);
            row[tight] = std::max(row[tight], SpectralNormBound(differences) + proxy[tight] + rounding);
            row[tight + 1] = std::max(row[tight + 1], double(proxy[tight + 1]));
        }
        for (std::uint32_t j = 0; j <= m; ++j)
            wrapped[4 * j + 3] = RoundUpToFloat(row[4 * j + 3] * (1.0 + 2.0 * gamma));
        wrapped[tight] = RoundUpToFloat(row[tight] * (1.0 + 2.0 * gamma));
        wrapped[tight + 1] = RoundUpToFloat(row[tight + 1]);
    }

    mCentreBounds.assign(m + 1, 0.0f);
    for (std::uint32_t i = 0; i < tree.NodeCount(); ++i)
        for (std::uint32_t column = 0; column <= m; ++column)
            mCentreBounds[column] =
                std::max(mCentreBounds[column], RoundUpToFloat(Vec(Row(i) + 4 * column).norm() * (1.0 + 1e-6)));

    mProxyRadiusBounds.assign(m + 2, 0.0f);
    mNodeRadiusBounds.assign(m + 2, 0.0f);
    const auto widen = [&](std::vector<float>& ioBounds, const float* inRow)
    {
        for (std::uint32_t column = 0; column <= m; ++column)
            ioBounds[column] = std::max(ioBounds[column], std::abs(inRow[4 * column + 3]));
        ioBounds[m + 1] = std::max(ioBounds[m + 1], std::abs(inRow[tight]));
    };
    for (std::uint32_t i = 0; i < VisitCount(); ++i)
    {
        widen(mNodeRadiusBounds, Row(i));
        if (IsProxy(i))
            widen(mProxyRadiusBounds, Row(i));
    }
}

} // namespace bdt
