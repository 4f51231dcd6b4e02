#include "MinimalSphere.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace bdt
{

namespace
{

// Relative tolerance of the containment test inside the recursion. Points this close to the surface are
// treated as inside; the final pass makes the radius exact, so this only decides which points become
// support points and keeps duplicates and cocircular points from being pushed into degenerate supports.
constexpr double cContainTolerance = 1e-12;

bool Contains(const Sphere& inSphere, const Vec3d& inPoint)
{
    const double r = inSphere.radius;
    const double slack = cContainTolerance * (r + inSphere.center.cwiseAbs().maxCoeff() + 1e-300);
    return (inPoint - inSphere.center).norm() <= r + slack;
}

bool ContainsAll(const Sphere& inSphere, std::span<const Vec3d> inPoints)
{
    return std::all_of(inPoints.begin(), inPoints.end(), [&](const Vec3d& p) { return Contains(inSphere, p); });
}

Sphere FromTwo(const Vec3d& inA, const Vec3d& inB) { return {0.5 * (inA + inB), 0.5 * (inB - inA).norm()}; }

// Circumsphere of a triangle (centre in its plane); nullopt-like flag when the points are collinear.
bool Circumcircle(const Vec3d& inA, const Vec3d& inB, const Vec3d& inC, Sphere& outSphere)
{
    const Vec3d u = inB - inA;
    const Vec3d v = inC - inA;
    const Vec3d w = u.cross(v);
    const double w2 = w.squaredNorm();
    if (!(w2 > 1e-24 * u.squaredNorm() * v.squaredNorm()) || w2 == 0.0)
        return false;
    const Vec3d offset = (u.squaredNorm() * v.cross(w) + v.squaredNorm() * w.cross(u)) / (2.0 * w2);
    outSphere = {inA + offset, offset.norm()};
    return std::isfinite(outSphere.radius);
}

bool Circumsphere(const Vec3d& inA, const Vec3d& inB, const Vec3d& inC, const Vec3d& inD, Sphere& outSphere)
{
    Mat3d rows;
    rows.row(0) = (inB - inA).transpose();
    rows.row(1) = (inC - inA).transpose();
    rows.row(2) = (inD - inA).transpose();
    const double det = rows.determinant();
    const double scale = rows.row(0).norm() * rows.row(1).norm() * rows.row(2).norm();
    if (!(std::abs(det) > 1e-12 * scale))
        return false;
    const Vec3d rhs(0.5 * rows.row(0).squaredNorm(), 0.5 * rows.row(1).squaredNorm(), 0.5 * rows.row(2).squaredNorm());
    const Vec3d offset = rows.partialPivLu().solve(rhs);
    outSphere = {inA + offset, offset.norm()};
    return std::isfinite(outSphere.radius);
}

// Smallest sphere enclosing up to four points, by trying every pair and triple as the support.
Sphere SmallestOfFew(std::span<const Vec3d> inPoints)
{
    Sphere best{inPoints[0], 0.0};
    if (inPoints.size() == 1)
        return best;
    best.radius = std::numeric_limits<double>::infinity();
    auto consider = [&](const Sphere& inCandidate)
    {
        if (inCandidate.radius < best.radius && ContainsAll(inCandidate, inPoints))
            best = inCandidate;
    };
    const std::size_t n = inPoints.size();
    for (std::size_t a = 0; a < n; ++a)
        for (std::size_t b = a + 1; b < n; ++b)
        {
            consider(FromTwo(inPoints[a], inPoints[b]));
            for (std::size_t c = b + 1; c < n; ++c)
            {
                Sphere s;
                if (Circumcircle(inPoints[a], inPoints[b], inPoints[c], s))
                    consider(s);
            }
        }
    if (n == 4)
    {
        Sphere s;
        if (Circumsphere(inPoints[0], inPoints[1], inPoints[2], inPoints[3], s))
            consider(s);
    }
    if (!std::isfinite(best.radius))
    {
        // Only reachable through rounding on nearly identical points: the box centre is always enclosing.
        Eigen::AlignedBox3d box;
        box.setEmpty();
        for (const Vec3d& p : inPoints)
            box.extend(p);
        best.center = box.center();
        best.radius = 0.5 * box.diagonal().norm();
    }
    return best;
}

// Randomised incremental Welzl: the smallest sphere enclosing inPoints[0..inCount) with the support
// points on its surface. Recursion depth is at most four.
Sphere Welzl(const std::vector<Vec3d>& inPoints, std::size_t inCount, std::array<Vec3d, 4>& ioSupport,
             std::size_t inSupportSize)
{
    Sphere sphere = inSupportSize == 0 ? Sphere{inPoints.empty() ? Vec3d::Zero() : inPoints[0], -1.0}
                                       : SphereFromSupport({ioSupport.data(), inSupportSize});
    if (inSupportSize == 4)
        return sphere;
    for (std::size_t i = 0; i < inCount; ++i)
    {
        if (sphere.radius >= 0.0 && Contains(sphere, inPoints[i]))
            continue;
        ioSupport[inSupportSize] = inPoints[i];
        sphere = Welzl(inPoints, i, ioSupport, inSupportSize + 1);
    }
    return sphere;
}

} // namespace

Sphere SphereFromSupport(std::span<const Vec3d> inSupport)
{
    switch (inSupport.size())
    {
    case 0:
        return {};
    case 1:
        return {inSupport[0], 0.0};
    case 2:
        return FromTwo(inSupport[0], inSupport[1]);
    case 3:
    {
        Sphere s;
        if (Circumcircle(inSupport[0], inSupport[1], inSupport[2], s))
            return s;
        return SmallestOfFew(inSupport);
    }
    default:
    {
        Sphere s;
        if (Circumsphere(inSupport[0], inSupport[1], inSupport[2], inSupport[3], s))
            return s;
        return SmallestOfFew(inSupport.first(4));
    }
    }
}

Sphere MinimalEnclosingSphere(std::span<const Vec3d> inPoints)
{
    if (inPoints.empty())
        return {};
    std::vector<Vec3d> points(inPoints.begin(), inPoints.end());
    // Deterministic Fisher-Yates shuffle (xorshift64), so results do not depend on the standard library.
    std::uint64_t state = 0x9E3779B97F4A7C15ull ^ points.size();
    for (std::size_t i = points.size(); i > 1; --i)
    {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        std::swap(points[i - 1], points[state % i]);
    }
    std::array<Vec3d, 4> support;
    Sphere sphere = Welzl(points, points.size(), support, 0);
    // Exact wrap (paper eq. 2) around the computed centre: enclosing whatever the rounding did.
    double r2 = 0.0;
    for (const Vec3d& p : inPoints)
        r2 = std::max(r2, (p - sphere.center).squaredNorm());
    sphere.radius = std::sqrt(r2);
    return sphere;
}

Vec3d EnclosingBallsCentre(std::span<const Vec3d> inCenters, std::span<const double> inRadii)
{
    if (inCenters.empty())
        return Vec3d::Zero();
    // The farthest reach max_k ‖x_k − c‖ + r_k from c, and the far side of the ball that reaches it.
    const auto farthest = [&](const Vec3d& inCentre, Vec3d& outFarPoint)
    {
        double reach = -1.0;
        for (std::size_t k = 0; k < inCenters.size(); ++k)
        {
            const Vec3d offset = inCenters[k] - inCentre;
            const double distance = offset.norm();
            const double candidate = distance + inRadii[k];
            if (candidate > reach)
            {
                reach = candidate;
                outFarPoint = distance > 0.0 ? Vec3d(inCentre + offset * (candidate / distance)) : inCenters[k];
            }
        }
        return reach;
    };
    // Equal radii make the minimal sphere of the centres the answer; unequal ones pull it towards the larger
    // balls, which the steps do. Step k moves a quarter of the way, divided by k + 1: 16 steps wrap the proxies
    // (`ContactProxies`) about as tightly as 64, at a quarter of the cost.
    constexpr int cSteps = 16;
    constexpr double cFirstStep = 0.25;
    Vec3d centre = MinimalEnclosingSphere(inCenters).center;
    Vec3d best = centre;
    double bestReach = std::numeric_limits<double>::infinity();
    for (int step = 0; step <= cSteps; ++step)
    {
        Vec3d farPoint = centre;
        const double reach = farthest(centre, farPoint);
        if (reach < bestReach)
        {
            bestReach = reach;
            best = centre;
        }
        centre += (farPoint - centre) * (cFirstStep / (step + 1.0));
    }
    return best;
}

} // namespace bdt
