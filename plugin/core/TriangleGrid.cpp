#include "TriangleGrid.h"

#include "TriangleGeometry.h"

#include <algorithm>
#include <bdt/core/Error.h>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace bdt
{

namespace
{

// The most cells and references per triangle: a few huge triangles (a floor under a detailed body) coarsen
// the grid rather than fill it.
constexpr double cCellsPerTriangle = 8.0;
constexpr std::size_t cReferencesPerTriangle = 8;
constexpr double cMaxCellsAlongAxis = 1024.0;

} // namespace

TriangleGrid::TriangleGrid(std::span<const Vec3f> inPositions, std::span<const Triangle> inTriangles)
{
    const auto count = std::uint32_t(inTriangles.size());
    mCorners.resize(3 * std::size_t(count));
    mBounds.resize(2 * std::size_t(count));
    Vec3d lower = Vec3d::Constant(std::numeric_limits<double>::infinity());
    Vec3d upper = -lower;
    double extentSum = 0.0;
    for (std::uint32_t t = 0; t < count; ++t)
    {
        for (int k = 0; k < 3; ++k)
        {
            const std::uint32_t v = inTriangles[t][std::size_t(k)];
            if (v >= inPositions.size())
                throw Error("TriangleGrid: triangle " + std::to_string(t) + " names vertex " +
                            std::to_string(v) + " of " + std::to_string(inPositions.size()));
            if (!inPositions[v].allFinite())
                throw Error("TriangleGrid: vertex " + std::to_string(v) + " is not finite");
            mCorners[3 * t + std::size_t(k)] = inPositions[v];
        }
        const Vec3f* corners = &mCorners[3 * t];
        mBounds[2 * t] = corners[0].cwiseMin(corners[1]).cwiseMin(corners[2]);
        mBounds[2 * t + 1] = corners[0].cwiseMax(corners[1]).cwiseMax(corners[2]);
        lower = lower.cwiseMin(mBounds[2 * t].cast<double>());
        upper = upper.cwiseMax(mBounds[2 * t + 1].cast<double>());
        extentSum += double((mBounds[2 * t + 1] - mBounds[2 * t]).maxCoeff());
    }
    mGridded = count;
    if (count == 0)
        return;

    // A cell about a triangle wide, or wider where the bounds are sparse; coarser until the cells and the
    // references fit their budgets.
    const Vec3d size = upper - lower;
    const double volume = std::max(size.x(), 1e-9) * std::max(size.y(), 1e-9) * std::max(size.z(), 1e-9);
    double cell = std::max({extentSum / double(count), std::cbrt(volume / (2.0 * double(count))),
                            1e-6 * size.maxCoeff(), std::numeric_limits<double>::min()});
    std::vector<Eigen::Vector3i> first(count), last(count);
    for (;; cell *= 1.25)
    {
        mCell = cell;
        mOrigin = lower;
        const Vec3d along = (size / cell).array().floor() + 1.0;
        if (along.maxCoeff() > cMaxCellsAlongAxis || along.prod() > cCellsPerTriangle * double(count) + 64.0)
            continue;
        mDims = along.cast<int>();
        std::size_t references = 0;
        for (std::uint32_t t = 0; t < count; ++t)
        {
            first[t] = CellOf(mBounds[2 * t].cast<double>());
            last[t] = CellOf(mBounds[2 * t + 1].cast<double>());
            references += std::size_t(((last[t] - first[t]).array() + 1).prod());
        }
        if (references <= cReferencesPerTriangle * count + 64)
            break;
    }

    // Counting sort into cells; triangles go in ascending order, so each cell's list ascends.
    const std::size_t cellCount = std::size_t(mDims.x()) * std::size_t(mDims.y()) * std::size_t(mDims.z());
    mCellBegin.assign(cellCount + 1, 0);
    const auto forEachCell = [&](std::uint32_t inTriangle, const auto& inVisit)
    {
        for (int z = first[inTriangle].z(); z <= last[inTriangle].z(); ++z)
            for (int y = first[inTriangle].y(); y <= last[inTriangle].y(); ++y)
                for (int x = first[inTriangle].x(); x <= last[inTriangle].x(); ++x)
                    inVisit(CellIndex(x, y, z));
    };
    for (std::uint32_t t = 0; t < count; ++t)
        forEachCell(t, [&](std::uint32_t inCell) { ++mCellBegin[inCell + 1]; });
    for (std::size_t c = 0; c < cellCount; ++c)
        mCellBegin[c + 1] += mCellBegin[c];
    mCellTriangles.resize(mCellBegin.back());
    std::vector<std::uint32_t> fill(mCellBegin.begin(), mCellBegin.end() - 1);
    for (std::uint32_t t = 0; t < count; ++t)
        forEachCell(t, [&](std::uint32_t inCell) { mCellTriangles[fill[inCell]++] = t; });
}

Eigen::Vector3i TriangleGrid::CellOf(const Vec3d& inPoint) const
{
    Eigen::Vector3i cell;
    for (int k = 0; k < 3; ++k)
    {
        const double at = std::floor((inPoint[k] - mOrigin[k]) / mCell);
        cell[k] = int(std::clamp(at, 0.0, double(mDims[k] - 1)));
    }
    return cell;
}

double TriangleGrid::SquaredDistance(std::uint32_t inTriangle, const Vec3d& inPoint) const
{
    const Vec3d corners[3] = {mCorners[3 * inTriangle].cast<double>(),
                              mCorners[3 * inTriangle + 1].cast<double>(),
                              mCorners[3 * inTriangle + 2].cast<double>()};
    return (ClosestPointOnTriangle(inPoint, corners) - inPoint).squaredNorm();
}

Vec3d TriangleGrid::Barycentric(std::uint32_t inTriangle, const Vec3d& inPoint) const
{
    const Vec3d corners[3] = {mCorners[3 * inTriangle].cast<double>(),
                              mCorners[3 * inTriangle + 1].cast<double>(),
                              mCorners[3 * inTriangle + 2].cast<double>()};
    return ClosestBarycentric(inPoint, corners);
}

std::uint32_t TriangleGrid::Nearest(const Vec3d& inPoint, Vec3d& outBarycentric) const
{
    outBarycentric = Vec3d(1.0, 0.0, 0.0);
    if (mGridded == 0 || !inPoint.allFinite())
        return cNoIndex;
    std::uint32_t best = cNoIndex;
    double best2 = std::numeric_limits<double>::infinity();
    // As near within rounding: a shared edge's distance from its two triangles differs in the last bits.
    const double absoluteTie = 1e-18 * (1.0 + inPoint.squaredNorm());
    const auto tieOf = [&](double inDistance2) { return inDistance2 + 1e-9 * inDistance2 + absoluteTie; };
    const auto open = [&](double inDistance2) { return inDistance2 <= tieOf(best2); };

    thread_local std::vector<std::pair<double, std::uint32_t>> candidates;
    const Eigen::Vector3i centre = CellOf(inPoint);
    // Rings of cells round the point's, nearest first, each cell opened only where it comes near enough;
    // done when every cell beyond the rings is further.
    for (int ring = 0;; ++ring)
    {
        const Eigen::Vector3i low = (centre.array() - ring).cwiseMax(0);
        const Eigen::Vector3i high = (centre.array() + ring).cwiseMin(mDims.array() - 1);
        for (int z = low.z(); z <= high.z(); ++z)
            for (int y = low.y(); y <= high.y(); ++y)
                for (int x = low.x(); x <= high.x(); ++x)
                {
                    if (std::max({std::abs(x - centre.x()), std::abs(y - centre.y()),
                                  std::abs(z - centre.z())}) != ring)
                        continue;
                    const Vec3d cellLow = mOrigin + mCell * Vec3d(x, y, z);
                    if (!open((cellLow - inPoint)
                                  .cwiseMax(inPoint - cellLow - Vec3d::Constant(mCell))
                                  .cwiseMax(0.0)
                                  .squaredNorm()))
                        continue;
                    // The cell's triangles by their bounding boxes' distance, nearest first: the first tested
                    // is mostly the one under the point, and the rest stop at the first box further than the
                    // answer.
                    const std::uint32_t index = CellIndex(x, y, z);
                    candidates.clear();
                    for (std::uint32_t i = mCellBegin[index]; i < mCellBegin[index + 1]; ++i)
                    {
                        const std::uint32_t t = mCellTriangles[i];
                        if (const double box2 = BoxDistance2(t, inPoint); open(box2))
                            candidates.emplace_back(box2, t);
                    }
                    std::sort(candidates.begin(), candidates.end());
                    for (const auto& [box2, t] : candidates)
                    {
                        if (!open(box2))
                            break;
                        const double gap2 = SquaredDistance(t, inPoint);
                        if (gap2 <= tieOf(best2) && (t < best || tieOf(gap2) < best2))
                        {
                            best2 = std::min(best2, gap2);
                            best = t;
                        }
                    }
                }
        // The nearest any cell outside the rings so far can be: the block's nearest open face.
        double beyond = std::numeric_limits<double>::infinity();
        for (int k = 0; k < 3; ++k)
        {
            if (centre[k] - ring > 0)
                beyond = std::min(beyond, inPoint[k] - (mOrigin[k] + mCell * double(centre[k] - ring)));
            if (centre[k] + ring < mDims[k] - 1)
                beyond = std::min(beyond, mOrigin[k] + mCell * double(centre[k] + ring + 1) - inPoint[k]);
        }
        if (beyond == std::numeric_limits<double>::infinity() || (beyond > 0.0 && !open(beyond * beyond)))
            break;
    }
    outBarycentric = Barycentric(best, inPoint);
    return best;
}

} // namespace bdt
