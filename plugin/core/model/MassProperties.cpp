// Rigid mass properties of a rest mesh: solid volume integrals by the divergence theorem for closed meshes, a
// uniform thin shell otherwise. Everything in double, about a reference point near the mesh (the centre of
// its bounding box) so that the moments do not lose digits to a far-away origin.

#include <bdt/core/base/Error.h>
#include <bdt/core/model/MassProperties.h>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace bdt
{

namespace
{

// A closed mesh counts as a solid only when |V| > cMinRelativeVolume·A^{3/2}: a ball has V ≈ 0.094·A^{3/2},
// a plate of thickness t and width w about 0.35·(t/w)·A^{3/2}, so only plates thinner than about 3e-8 of
// their width (and two-sided sheets, V = 0) fall back to the shell. The double rounding of the volume sum is
// far below this.
constexpr double cMinRelativeVolume = 1e-8;

// Principal moments are raised to at least this fraction of the largest (MassProperties::principalInertia).
constexpr double cMinRelativeMoment = 1e-3;

// Moments of a set (volume or surface) about the reference point o: its measure, first moment ∫x and second
// moment ∫x xᵀ, x relative to o.
struct Moments
{
    double measure = 0.0;
    Vec3d first = Vec3d::Zero();
    Mat3d second = Mat3d::Zero();

    void Add(double inMeasure, const Vec3d& inFirst, const Mat3d& inSecond)
    {
        measure += inMeasure;
        first += inFirst;
        second += inSecond;
    }
};

// Vertex indices with vertices of bitwise equal positions merged to one of them, so that a mesh with split
// vertices (flat shading, UV seams) still counts as closed. O(N log N).
std::vector<std::uint32_t> WeldIdenticalPositions(std::span<const Vec3f> inPositions)
{
    const std::uint32_t n = static_cast<std::uint32_t>(inPositions.size());
    std::vector<std::uint32_t> order(n);
    for (std::uint32_t i = 0; i < n; ++i)
        order[i] = i;
    const auto less = [&](std::uint32_t inA, std::uint32_t inB)
    {
        const Vec3f& a = inPositions[inA];
        const Vec3f& b = inPositions[inB];
        if (a.x() != b.x())
            return a.x() < b.x();
        if (a.y() != b.y())
            return a.y() < b.y();
        if (a.z() != b.z())
            return a.z() < b.z();
        return inA < inB;
    };
    std::sort(order.begin(), order.end(), less);
    std::vector<std::uint32_t> canonical(n);
    for (std::uint32_t k = 0; k < n; ++k)
    {
        const bool same = k > 0 && inPositions[order[k]] == inPositions[order[k - 1]];
        canonical[order[k]] = same ? canonical[order[k - 1]] : order[k];
    }
    return canonical;
}

// True when the triangle has a repeated (welded) index or zero area: it is skipped everywhere.
bool IsDegenerate(const Triangle& inWelded, const Vec3d& inA, const Vec3d& inB, const Vec3d& inC)
{
    return inWelded[0] == inWelded[1] || inWelded[1] == inWelded[2] || inWelded[0] == inWelded[2] ||
           (inB - inA).cross(inC - inA).squaredNorm() == 0.0;
}

// Every undirected edge of the non-degenerate triangles is used exactly twice, once in each direction: the
// surface is closed and consistently oriented (an oriented 2-manifold without boundary, where every edge is
// shared by exactly two faces). O(T log T).
bool IsClosed(std::span<const Triangle> inWeldedTriangles)
{
    std::vector<std::uint64_t> edges; // directed edge u → v as (u << 32) | v
    edges.reserve(3 * inWeldedTriangles.size());
    for (const Triangle& t : inWeldedTriangles)
        for (int k = 0; k < 3; ++k)
            edges.push_back((std::uint64_t(t[k]) << 32) | t[(k + 1) % 3]);
    if (edges.empty())
        return false;
    std::sort(edges.begin(), edges.end());
    if (std::adjacent_find(edges.begin(), edges.end()) != edges.end())
        return false; // a directed edge used twice: a non-manifold edge or inconsistent orientation
    // Each directed edge needs its reverse; with no duplicates, that makes every undirected edge used exactly
    // twice with opposite directions.
    for (std::uint64_t edge : edges)
    {
        const std::uint64_t reverse = (edge << 32) | (edge >> 32);
        if (!std::binary_search(edges.begin(), edges.end(), reverse))
            return false;
    }
    return true;
}

// Σ over the vertices k of v_k v_kᵀ, plus s sᵀ for s = Σ v_k: the common factor of the exact second moments
// of a triangle (∫ x xᵀ dA = A/12 · this) and of a tetrahedron with a vertex at the origin (V/20 · this),
// from ∫ λ_k λ_l = (1 + δ_kl)·measure/12 (triangle) or /20 (tetrahedron) for the barycentric coordinates λ.
Mat3d SecondMomentFactor(const Vec3d& inA, const Vec3d& inB, const Vec3d& inC)
{
    const Vec3d s = inA + inB + inC;
    return inA * inA.transpose() + inB * inB.transpose() + inC * inC.transpose() + s * s.transpose();
}

// Fills the centre of mass, inertia and principal frame from normalised moments about `inReference`.
void FinishFromMoments(const Moments& inMoments, const Vec3d& inReference, MassProperties& ioProperties)
{
    const Vec3d mean = inMoments.first / inMoments.measure; // centre of mass relative to the reference
    // Covariance about the centre of mass, per unit mass (parallel axis theorem).
    Mat3d covariance = inMoments.second / inMoments.measure - mean * mean.transpose();
    covariance = 0.5 * (covariance + covariance.transpose()).eval();
    ioProperties.centerOfMass = inReference + mean;
    // I = tr(C)·1 − C for C = ∫ r rᵀ dm: I_xx = ∫ (y² + z²) dm, I_xy = −∫ x y dm, ...
    ioProperties.inertia = covariance.trace() * Mat3d::Identity() - covariance;

    // Increasing eigenvalues; a right-handed frame by flipping the last axis if needed.
    const Eigen::SelfAdjointEigenSolver<Mat3d> solver(ioProperties.inertia);
    Mat3d axes = solver.eigenvectors();
    if (axes.determinant() < 0.0)
        axes.col(2) = -axes.col(2);
    ioProperties.principalAxes = axes;
    const Vec3d moments = solver.eigenvalues();
    const double floor = cMinRelativeMoment * std::max(moments[2], 0.0);
    ioProperties.principalInertia = moments.cwiseMax(floor);
}

} // namespace

Pose MassProperties::ToPrincipal() const
{
    Pose pose;
    pose.rotation = principalAxes.transpose();
    pose.translation = -(principalAxes.transpose() * centerOfMass);
    return pose;
}

MassProperties ComputeMassProperties(const Model& inModel)
{
    const std::span<const Vec3f> positions = inModel.Positions();
    const std::span<const Triangle> triangles = inModel.Triangles();
    const Eigen::AlignedBox3f bounds = inModel.RestBounds();
    const Vec3d reference = bounds.center().cast<double>();

    const std::vector<std::uint32_t> canonical = WeldIdenticalPositions(positions);
    std::vector<Triangle> kept, welded; // non-degenerate triangles, own and welded indices
    kept.reserve(triangles.size());
    welded.reserve(triangles.size());
    Moments volume;
    Moments shell;
    for (const Triangle& t : triangles)
    {
        const Triangle w = {canonical[t[0]], canonical[t[1]], canonical[t[2]]};
        const Vec3d a = positions[t[0]].cast<double>() - reference;
        const Vec3d b = positions[t[1]].cast<double>() - reference;
        const Vec3d c = positions[t[2]].cast<double>() - reference;
        if (IsDegenerate(w, a, b, c))
            continue;
        kept.push_back(t);
        welded.push_back(w);
        const Mat3d factor = SecondMomentFactor(a, b, c);
        // Thin shell: uniform density over the triangle.
        const double area = 0.5 * (b - a).cross(c - a).norm();
        shell.Add(area, area / 3.0 * (a + b + c), area / 12.0 * factor);
        // Solid: the signed tetrahedron (o, a, b, c); the signed sum over a closed surface is the integral
        // over the enclosed volume (divergence theorem), positive for outward counter-clockwise winding.
        const double tetVolume = a.dot(b.cross(c)) / 6.0;
        volume.Add(tetVolume, tetVolume / 4.0 * (a + b + c), tetVolume / 20.0 * factor);
    }
    if (!(shell.measure > 0.0))
        throw Error("model has zero surface area: no mass properties");

    MassProperties properties;
    properties.area = shell.measure;
    // An inward-wound mesh negates every signed tetrahedron: flip the whole sum.
    if (volume.measure < 0.0)
    {
        volume.measure = -volume.measure;
        volume.first = -volume.first;
        volume.second = -volume.second;
    }
    // Closed by its own indices, or once split vertices are merged. Both are needed: welding can also join
    // separate closed parts that merely touch (the chair's boxes share grid points), making their shared
    // edges non-manifold.
    properties.solid = volume.measure > cMinRelativeVolume * std::pow(shell.measure, 1.5) &&
                       (IsClosed(kept) || IsClosed(welded));
    if (properties.solid)
    {
        // A closed mesh with one part turned inside out (a cavity that is not inside anything) can still have
        // a positive signed volume; its second moment must then stay positive semi-definite about the centre
        // of mass, or the "solid" is not one and the shell is used instead.
        const Vec3d mean = volume.first / volume.measure;
        const Mat3d covariance = volume.second / volume.measure - mean * mean.transpose();
        const Eigen::SelfAdjointEigenSolver<Mat3d> check(covariance, Eigen::EigenvaluesOnly);
        properties.solid = check.eigenvalues()[0] >= -1e-9 * std::abs(check.eigenvalues()[2]);
    }
    if (properties.solid)
    {
        properties.volume = volume.measure;
        FinishFromMoments(volume, reference, properties);
    }
    else
    {
        FinishFromMoments(shell, reference, properties);
    }
    return properties;
}

} // namespace bdt
