#include "AffinePieceBounds.h"
#include "ContactPieces.h"

#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/base/Error.h>
#include <Eigen/Cholesky>
#include <algorithm>
#include <array>
#include <cmath>

namespace bdt
{

namespace
{

// How strongly a fit's slopes are held to zero, relative to the node's spread of vertices: along a direction
// the node barely extends in (a flat patch's normal) the displacement's slope is left out of the map rather
// than fitted to the flatness' rounding, so a bending patch's map stays a turn of its plane.
constexpr double cSlopeRidge = 1e-6;

// Floats a fit keeps per mode: A_j row-major (9), t_j (3), r_j (1).
constexpr std::uint32_t cFloatsPerMode = 13;

// Fits mode by mode the affine map of node `inVertices`' displacements about the rest centre of `inRow`,
// writing A_j (row-major), t_j and the residual bound r_j to `outFit` (`cFloatsPerMode` floats a mode). The
// residual is measured against the stored floats, in double, over every vertex, summed over the axes.
void FitNode(const Model& inModel, const float* inRow, std::span<const std::uint32_t> inVertices, float* outFit)
{
    const std::uint32_t m = inModel.ModeCount();
    const Vec3d c(inRow[0], inRow[1], inRow[2]);
    const auto positions = inModel.Positions();
    thread_local std::vector<Eigen::Vector4d> offsets; // (p − c, 1) per vertex
    offsets.resize(inVertices.size());
    Eigen::Matrix4d normal = Eigen::Matrix4d::Zero();
    for (std::size_t i = 0; i < inVertices.size(); ++i)
    {
        offsets[i] << positions[inVertices[i]].cast<double>() - c, 1.0;
        normal += offsets[i] * offsets[i].transpose();
    }
    const double ridge = cSlopeRidge * normal.topLeftCorner<3, 3>().trace() + 1e-300;
    normal.topLeftCorner<3, 3>() += ridge * Mat3d::Identity();
    const Eigen::LDLT<Eigen::Matrix4d> solver(normal);
    for (std::uint32_t j = 0; j < m; ++j)
    {
        Eigen::Matrix<double, 4, 3> moments = Eigen::Matrix<double, 4, 3>::Zero();
        for (std::size_t i = 0; i < inVertices.size(); ++i)
            moments += offsets[i] * inModel.BasisVector(inVertices[i], j).cast<double>().transpose();
        const Eigen::Matrix<double, 4, 3> solution = solver.solve(moments);
        float* fit = outFit + cFloatsPerMode * std::size_t(j);
        Mat3d a;
        Vec3d t;
        for (int r = 0; r < 3; ++r)
        {
            for (int k = 0; k < 3; ++k)
            {
                fit[3 * r + k] = std::isfinite(solution(k, r)) ? float(solution(k, r)) : 0.0f;
                a(r, k) = double(fit[3 * r + k]);
            }
            fit[9 + r] = std::isfinite(solution(3, r)) ? float(solution(3, r)) : 0.0f;
            t[r] = double(fit[9 + r]);
        }
        Vec3d worst = Vec3d::Zero(), largest = Vec3d::Zero();
        for (std::size_t i = 0; i < inVertices.size(); ++i)
        {
            const Vec3d u = inModel.BasisVector(inVertices[i], j).cast<double>();
            const Vec3d off = u - (a * offsets[i].head<3>() + t);
            worst = worst.cwiseMax(off.cwiseAbs());
            largest = largest.cwiseMax(u.cwiseAbs());
        }
        // A relative allowance for the run-time sums in double and the reference's own rounding.
        fit[12] = RoundUpToFloat((worst.sum() + 1e-6 * largest.sum()) * (1.0 + 1e-6));
    }
}

} // namespace

AffinePieceBounds::AffinePieceBounds(const BDAabbTree& inBoxes, std::span<const ContactPiece> inPieces)
    : mBoxes(&inBoxes), mModes(inBoxes.ModeCount())
{
    const BDTree& tree = inBoxes.Tree();
    const std::uint32_t count = std::min<std::uint32_t>(std::uint32_t(inPieces.size()), tree.NodeCount());
    mSlot.assign(count, cNoIndex);
    std::uint32_t fits = 0;
    for (std::uint32_t node = 0; node < count; ++node)
        if (inPieces[node].IsPiece())
            mSlot[node] = fits++;
    if (fits == 0 || mModes == 0)
    {
        mSlot.clear();
        return;
    }
    const std::size_t stride = std::size_t(cFloatsPerMode) * mModes;
    mFits.assign(stride * fits, 0.0f);
    ForEachNodeVertices(tree.GetModel(), tree.Nodes().first(count),
                        [&](std::uint32_t inNode, std::span<const std::uint32_t> inVertices)
                        {
                            if (mSlot[inNode] != cNoIndex)
                                FitNode(tree.GetModel(), inBoxes.Row(inNode), inVertices,
                                        mFits.data() + stride * mSlot[inNode]);
                        });
}

void AffinePieceBounds::Map(std::uint32_t inNode, std::span<const float> inQ, Mat3d& outMap, Vec3d& outMove,
                            double& outResidual) const
{
    const float* fit = mFits.data() + std::size_t(cFloatsPerMode) * mModes * mSlot[inNode];
    outMap = Mat3d::Identity();
    outMove = Vec3d::Zero();
    outResidual = 0.0;
    for (std::uint32_t j = 0; j < mModes; ++j, fit += cFloatsPerMode)
    {
        const double q = double(inQ[j]);
        if (q == 0.0)
            continue; // an undeformed body's map is exactly the identity
        for (int r = 0; r < 3; ++r)
        {
            for (int k = 0; k < 3; ++k)
                outMap(r, k) += q * double(fit[3 * r + k]);
            outMove[r] += q * double(fit[9 + r]);
        }
        outResidual += std::abs(q) * double(fit[12]);
    }
}

bool AffinePieceBounds::Frame(std::uint32_t inNode, const ContactPiece& inPiece, std::span<const float> inQ,
                              PieceFrame& outFrame) const
{
    if (!Has(inNode) || inQ.size() != mModes)
        return false;
    Mat3d map;
    Vec3d move;
    double residual;
    Map(inNode, inQ, map, move, residual);
    if (!map.allFinite() || !move.allFinite() || !std::isfinite(residual))
        return false;

    const float* row = mBoxes->Row(inNode);
    const Vec3d half(row[4], row[5], row[6]);
    // Gram-Schmidt of the map's columns, the node's longest side first: what the shear left over moves, it
    // moves along the shorter sides, and a flat patch (its normal the shortest) turns with its plane.
    std::array<int, 3> order = {0, 1, 2};
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return half[a] > half[b]; });
    Mat3d axes;
    const double first = map.col(order[0]).norm();
    if (!(first > 0.0))
        return false;
    axes.col(order[0]) = map.col(order[0]) / first;
    const Vec3d across = map.col(order[1]) - axes.col(order[0]).dot(map.col(order[1])) * axes.col(order[0]);
    const double second = across.norm();
    if (!(second > 0.0))
        return false;
    axes.col(order[1]) = across / second;
    const int last = order[2];
    axes.col(last) = axes.col((last + 1) % 3).cross(axes.col((last + 2) % 3));

    const Mat3d onAxes = axes.transpose() * map;
    const Vec3d stretch = onAxes.diagonal();
    if (!(stretch.minCoeff() >= 0.5))
        return false;
    double shear = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k)
            if (k != i)
                shear += std::abs(onAxes(i, k)) * half[k];
    outFrame.centre = Vec3d(row[0], row[1], row[2]) + move + axes * stretch.cwiseProduct(inPiece.offset.cast<double>());
    outFrame.axes = axes;
    outFrame.stretch = stretch;
    outFrame.halfExtents = stretch.cwiseProduct(inPiece.halfExtents.cast<double>());
    outFrame.growth = shear + residual;
    outFrame.turned = true;

    return std::isfinite(outFrame.growth) && outFrame.centre.allFinite();
}

} // namespace bdt
