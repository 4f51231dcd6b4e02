#include <algorithm>
#include <bdt/core/bounds/BDAabbTree.h>
#include <bdt/core/base/Error.h>
#include <cmath>
#include <limits>

namespace bdt
{

namespace
{

// The centre and half size of the range of `inValue(k)` over k in [0, inCount), per axis, in double.
template <class Value> void AxisRanges(std::size_t inCount, Value&& inValue, Vec3d& outMid, Vec3d& outHalf)
{
    Vec3d lo = Vec3d::Constant(std::numeric_limits<double>::infinity());
    Vec3d hi = -lo;
    for (std::size_t k = 0; k < inCount; ++k)
    {
        const Vec3d v = inValue(k);
        lo = lo.cwiseMin(v);
        hi = hi.cwiseMax(v);
    }
    outMid = 0.5 * (lo + hi);
    outHalf = 0.5 * (hi - lo);
}

// §3.5 per axis: the wrapped rest box and, per mode, the centre velocity Ū_j and half-extent growth ΔB_j
// of one node, from its vertices. Each stored extent is measured from the stored (float) centre and raised
// by the float update's rounding, as `BDTree` does for the radii.
void ComputeBoxRow(const Model& inModel, std::span<const std::uint32_t> inVertices, float* outRow)
{
    const std::uint32_t m = inModel.ModeCount();
    const double gamma = FloatUpdateSlack(m);
    const auto positions = inModel.Positions();

    // Writes a centre (rounded to float) and the extents about it: max_i |v_i − centre| per axis, each
    // raised by γ|centre| and by (1 + 2γ), so that the float sum Σ (extent · |q|) stays above the exact one.
    const auto store = [&](auto&& inValue, float* outCentre, float* outExtent)
    {
        Vec3d mid, half;
        AxisRanges(inVertices.size(), inValue, mid, half);
        const Vec3f centre = mid.cast<float>();
        Vec3d extent = Vec3d::Zero();
        for (std::size_t k = 0; k < inVertices.size(); ++k)
            extent = extent.cwiseMax((inValue(k) - centre.cast<double>()).cwiseAbs());
        for (int a = 0; a < 3; ++a)
        {
            outCentre[a] = centre[a];
            outExtent[a] =
                RoundUpToFloat((extent[a] + gamma * std::abs(double(centre[a]))) * (1.0 + 2.0 * gamma));
        }
        outCentre[3] = 0.0f;
        outExtent[3] = 0.0f;
    };
    store([&](std::size_t k) { return Vec3d(positions[inVertices[k]].cast<double>()); }, outRow, outRow + 4);
    for (std::uint32_t j = 0; j < m; ++j)
        store([&](std::size_t k) { return Vec3d(inModel.BasisVector(inVertices[k], j).cast<double>()); },
              outRow + 8 * (j + 1), outRow + 8 * (j + 1) + 4);
}

} // namespace

BDAabbTree BDAabbTree::Build(std::shared_ptr<const BDTree> inTree)
{
    if (!inTree)
        throw Error("BDAabbTree::Build: no tree given");
    BDAabbTree boxes;
    boxes.mTree = std::move(inTree);
    const BDTree& tree = *boxes.mTree;
    boxes.mRowStride = NodeBoxLayout::RowStride(tree.ModeCount());
    boxes.mRows.assign(std::size_t(tree.NodeCount()) * boxes.mRowStride, 0.0f);
    ForEachNodeVertices(tree.GetModel(), tree.Nodes(),
                        [&](std::uint32_t inNode, std::span<const std::uint32_t> inVertices) {
                            ComputeBoxRow(tree.GetModel(), inVertices,
                                          boxes.mRows.data() + std::size_t(inNode) * boxes.mRowStride);
                        });
    return boxes;
}

} // namespace bdt
