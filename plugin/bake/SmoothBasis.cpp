#include <bdt/bake/SmoothBasis.h>
#include <bdt/core/base/Error.h>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <string>
#include <utility>

namespace bdt
{

namespace
{

// How the fields are made. Every candidate field is a function of the normalised coordinate
// x̂ = (p − c) / h, with c the bounding-box centre and h half the largest extent (one scale for all axes,
// so flat and thin meshes need no special case), of sup norm at most 1 on the box and Lipschitz constant
// at most π·k in x̂. A candidate becomes a field after its least-squares rigid part over the vertices
// (t + ω × x̂) is removed, if what is left is large enough and independent enough of the rigid motions and
// the fields already taken; it is then scaled to a largest vertex displacement of 1. The thresholds relax
// in later passes only when a mesh has too few vertices for M clearly independent fields.

enum class EKind : std::uint8_t
{
    Bend,    ///< x̂_a² e_b: a beam along a bending towards b.
    Twist,   ///< x̂_a (e_a × x̂): rotation growing along a.
    Stretch, ///< x̂_a e_a.
    Shear,   ///< x̂_b e_a + x̂_a e_b (symmetric, so no rotation part).
    Wave,    ///< sin(π·k/2 · n·x̂ + phase) e_b.
};

struct Candidate
{
    EKind kind = EKind::Stretch;
    int a = 0;
    int b = 0;
    Vec3d direction = Vec3d::UnitX(); // Wave direction n, unit length.
    double waveNumber = 0.0;
    double phase = 0.0;
};

struct Pass
{
    double minLargest;  // Smallest accepted largest vertex displacement after the rigid part is removed.
    double minResidual; // Smallest accepted relative residual against rigid motions and earlier fields.
};

// The first pass asks for a residual of half the field, which keeps the basis well conditioned (a
// condition number below about 100 for M = 200 on a 1500-vertex sphere, against 10^4 at a threshold of 0.1).
constexpr std::array<Pass, 4> cPasses = {{{0.25, 0.5}, {0.1, 0.1}, {0.02, 1e-3}, {1e-9, -1.0}}};
constexpr std::size_t cMaxSampleVertices = 1024; // Independence is tested on at most this many vertices.

Vec3d Evaluate(const Candidate& inCandidate, const Vec3d& inX)
{
    const int a = inCandidate.a, b = inCandidate.b;
    switch (inCandidate.kind)
    {
    case EKind::Bend:
        return inX[a] * inX[a] * Vec3d::Unit(b);
    case EKind::Twist:
        return inX[a] * Vec3d::Unit(a).cross(inX);
    case EKind::Stretch:
        return inX[a] * Vec3d::Unit(a);
    case EKind::Shear:
        return 0.5 * (inX[b] * Vec3d::Unit(a) + inX[a] * Vec3d::Unit(b));
    case EKind::Wave:
        return std::sin(0.5 * std::numbers::pi * inCandidate.waveNumber * inCandidate.direction.dot(inX) +
                        inCandidate.phase) *
               Vec3d::Unit(b);
    }
    return Vec3d::Zero();
}

// The candidate list: per axis its two bends and its twist, then stretches and shears, then waves of
// wave number 1, 2, ... (in half waves across the box) along the axes, face and body diagonals, each
// displacing along each axis, in sine and cosine phase.
std::vector<Candidate> MakeCandidates(std::uint32_t inModes)
{
    std::vector<Candidate> list;
    for (int axis = 0; axis < 3; ++axis)
    {
        const int u = (axis + 1) % 3, v = (axis + 2) % 3;
        list.push_back({EKind::Bend, u, v});
        list.push_back({EKind::Bend, v, u});
        list.push_back({EKind::Twist, axis, axis});
    }
    for (int axis = 0; axis < 3; ++axis)
        list.push_back({EKind::Stretch, axis, axis});
    for (int axis = 0; axis < 3; ++axis)
        list.push_back({EKind::Shear, axis, (axis + 1) % 3});
    std::vector<Vec3d> directions = {Vec3d::UnitX(), Vec3d::UnitY(), Vec3d::UnitZ()};
    for (int axis = 0; axis < 3; ++axis)
        for (const double sign : {1.0, -1.0})
            directions.push_back((Vec3d::Unit(axis) + sign * Vec3d::Unit((axis + 1) % 3)).normalized());
    for (const double sy : {1.0, -1.0})
        for (const double sz : {1.0, -1.0})
            directions.push_back(Vec3d(1.0, sy, sz).normalized());
    const std::uint32_t maxWaveNumber = 8 + inModes / 4;
    for (std::uint32_t k = 1; k <= maxWaveNumber; ++k)
        for (const double phase : {0.0, 0.5 * std::numbers::pi})
            for (const Vec3d& direction : directions)
                for (int b = 0; b < 3; ++b)
                    list.push_back({EKind::Wave, 0, b, direction, double(k), phase});
    return list;
}

// Least-squares rigid fit t + ω × (x̂ − x̄) over all vertices. About the vertex centroid x̄ the normal
// equations decouple: t is the mean displacement and ω solves I ω = Σ (x̂ − x̄) × f with the 3×3 "inertia"
// I = Σ (|r|² 1 − r rᵀ), inverted through its eigen-decomposition so that flat and collinear vertex sets
// (singular I) take the pseudo-inverse.
class RigidFit
{
public:
    explicit RigidFit(const std::vector<Vec3d>& inX) : mX(inX)
    {
        mCentroid = Vec3d::Zero();
        for (const Vec3d& x : mX)
            mCentroid += x;
        mCentroid /= double(mX.size());
        Mat3d inertia = Mat3d::Zero();
        for (const Vec3d& x : mX)
        {
            const Vec3d r = x - mCentroid;
            inertia += r.squaredNorm() * Mat3d::Identity() - r * r.transpose();
        }
        Eigen::SelfAdjointEigenSolver<Mat3d> eigen;
        eigen.computeDirect(inertia);
        const Vec3d values = eigen.eigenvalues();
        Vec3d inverse = Vec3d::Zero();
        for (int k = 0; k < 3; ++k)
            if (values[k] > 1e-10 * values.maxCoeff())
                inverse[k] = 1.0 / values[k];
        mInertiaInverse = eigen.eigenvectors() * inverse.asDiagonal() * eigen.eigenvectors().transpose();
    }

    /// Removes the rigid part from `ioField` (one vector per vertex).
    void Remove(std::vector<Vec3d>& ioField) const
    {
        Vec3d translation = Vec3d::Zero(), torque = Vec3d::Zero();
        for (std::size_t i = 0; i < mX.size(); ++i)
        {
            translation += ioField[i];
            torque += (mX[i] - mCentroid).cross(ioField[i]);
        }
        translation /= double(mX.size());
        const Vec3d rotation = mInertiaInverse * torque;
        for (std::size_t i = 0; i < mX.size(); ++i)
            ioField[i] -= translation + rotation.cross(mX[i] - mCentroid);
    }

    /// A unit translation (`inColumn` 0..2) or unit rotation about the origin (3..5), evaluated at `inX`.
    static Vec3d RigidMotion(const Vec3d& inX, int inColumn)
    {
        return inColumn < 3 ? Vec3d(Vec3d::Unit(inColumn)) : Vec3d(Vec3d::Unit(inColumn - 3).cross(inX));
    }

private:
    const std::vector<Vec3d>& mX;
    Vec3d mCentroid;
    Mat3d mInertiaInverse;
};

// Orthonormal basis of the span of the rigid motions and the fields taken so far, restricted to a fixed
// subset of vertices. Independence on the subset implies independence on the whole mesh. Because the rigid
// motions are in the span, a candidate's residual is the same before and after its rigid part is removed,
// so candidates are screened here at O(sample) cost before being evaluated on every vertex. Plain loops
// rather than Eigen dynamic vectors: GCC 12 warns falsely on Eigen's AVX-512 reductions.
class SpanTracker
{
public:
    using Vector = std::vector<double>;

    explicit SpanTracker(const std::vector<Vec3d>& inX) : mX(inX)
    {
        const std::size_t count = std::min(inX.size(), cMaxSampleVertices);
        for (std::size_t s = 0; s < count; ++s)
            mSample.push_back(s * inX.size() / count);
        for (int column = 0; column < 6; ++column)
        {
            Vector residual;
            const double relative = Residual(
                [column](const Vec3d& inPoint) { return RigidFit::RigidMotion(inPoint, column); }, residual);
            if (relative > 1e-8)
                Add(residual);
        }
    }

    /// Relative residual |r| / |f| against the span of `inField` (a function of x̂) on the sample vertices;
    /// r in `outResidual`.
    template <class Field> double Residual(const Field& inField, Vector& outResidual) const
    {
        outResidual.resize(3 * mSample.size());
        for (std::size_t s = 0; s < mSample.size(); ++s)
        {
            const Vec3d value = inField(mX[mSample[s]]);
            for (int k = 0; k < 3; ++k)
                outResidual[3 * s + k] = value[k];
        }
        const double norm = Norm(outResidual);
        // Modified Gram-Schmidt, applied twice for accuracy.
        for (int repeat = 0; repeat < 2; ++repeat)
            for (const Vector& q : mBasis)
            {
                const double dot = Dot(q, outResidual);
                for (std::size_t e = 0; e < q.size(); ++e)
                    outResidual[e] -= dot * q[e];
            }
        return norm > 0.0 ? Norm(outResidual) / norm : 0.0;
    }

    /// Adds a residual returned by `Residual` to the span.
    void Add(Vector inResidual)
    {
        const double norm = Norm(inResidual);
        if (!(norm > 0.0) || mBasis.size() >= inResidual.size())
            return;
        for (double& value : inResidual)
            value /= norm;
        mBasis.push_back(std::move(inResidual));
    }

private:
    static double Dot(const Vector& inA, const Vector& inB)
    {
        double sum = 0.0;
        for (std::size_t e = 0; e < inA.size(); ++e)
            sum += inA[e] * inB[e];
        return sum;
    }

    static double Norm(const Vector& inV) { return std::sqrt(Dot(inV, inV)); }

    const std::vector<Vec3d>& mX;
    std::vector<std::size_t> mSample;
    std::vector<Vector> mBasis;
};

// Normalised coordinates x̂ of the vertices; throws if there are none or they all coincide.
std::vector<Vec3d> NormalisedCoordinates(std::span<const Vec3f> inPositions)
{
    if (inPositions.empty())
        throw Error("smooth basis: the mesh has no vertices");
    Eigen::AlignedBox3d box;
    for (const Vec3f& p : inPositions)
    {
        if (!p.allFinite())
            throw Error("smooth basis: non-finite vertex position");
        box.extend(p.cast<double>());
    }
    const double half = 0.5 * box.sizes().maxCoeff();
    if (!(half > 0.0))
        throw Error("smooth basis: all " + std::to_string(inPositions.size()) + " vertices coincide");
    std::vector<Vec3d> x;
    x.reserve(inPositions.size());
    for (const Vec3f& p : inPositions)
        x.push_back((p.cast<double>() - box.center()) / half);
    return x;
}

} // namespace

std::vector<float> MakeSmoothBasis(std::span<const Vec3f> inPositions, std::uint32_t inModes)
{
    if (inModes == 0)
        return {};
    const std::vector<Vec3d> x = NormalisedCoordinates(inPositions);
    const std::size_t n = x.size();
    const std::vector<Candidate> candidates = MakeCandidates(inModes);
    const RigidFit rigid(x);
    SpanTracker span(x);
    std::vector<float> basis(3 * n * inModes);
    std::vector<bool> taken(candidates.size(), false);
    std::vector<Vec3d> field(n);
    SpanTracker::Vector residual;
    std::uint32_t mode = 0;
    std::size_t pass = 0;
    bool allowRepeats = false; // Only for meshes with fewer independent non-rigid fields than M.
    while (mode < inModes)
    {
        const std::uint32_t before = mode;
        for (std::size_t c = 0; c < candidates.size() && mode < inModes; ++c)
        {
            if (taken[c] && !allowRepeats)
                continue;
            const Candidate& candidate = candidates[c];
            const auto evaluate = [&candidate](const Vec3d& inX) { return Evaluate(candidate, inX); };
            if (span.Residual(evaluate, residual) < cPasses[pass].minResidual)
                continue;
            for (std::size_t i = 0; i < n; ++i)
                field[i] = evaluate(x[i]);
            rigid.Remove(field);
            double largest = 0.0;
            for (const Vec3d& u : field)
                largest = std::max(largest, u.norm());
            if (!(largest >= cPasses[pass].minLargest))
                continue;
            span.Add(residual);
            taken[c] = true;
            for (std::size_t i = 0; i < n; ++i)
                for (int k = 0; k < 3; ++k)
                    basis[(i * inModes + mode) * 3 + k] = float(field[i][k] / largest);
            ++mode;
        }
        if (pass + 1 < cPasses.size())
            ++pass;
        else if (mode == before)
        {
            if (allowRepeats)
                throw Error("smooth basis: no non-rigid field exists on these vertices");
            allowRepeats = true;
        }
    }
    return basis;
}

std::vector<float> MakeNormalBasis(std::span<const Vec3f> inPositions, std::span<const Triangle> inTriangles,
                                   std::span<const float> inBasis, std::uint32_t inModes)
{
    const std::size_t n = inPositions.size();
    if (inBasis.size() != 3 * n * inModes)
        throw Error("normal basis: basis has " + std::to_string(inBasis.size()) + " entries, expected " +
                    std::to_string(3 * n * inModes));
    // Analytic derivative. With m_i = Σ_t (p1 − p0) × (p2 − p0) over the triangles at vertex i (twice the
    // area-weighted normal) and n_i = m_i / |m_i|:
    //   dm_i/dq_j = Σ_t (U1 − U0) × (p2 − p0) + (p1 − p0) × (U2 − U0),
    //   dn_i/dq_j = (I − n_i n_iᵀ) dm_i/dq_j / |m_i|.
    // Zero where m_i vanishes. Cost O(T·M); modes go in blocks so the scratch stays O(N·block).
    std::vector<Vec3d> m(n, Vec3d::Zero());
    for (const Triangle& t : inTriangles)
    {
        for (const std::uint32_t index : t)
            if (index >= n)
                throw Error("normal basis: triangle index " + std::to_string(index) + " out of range");
        const Vec3d area = (inPositions[t[1]] - inPositions[t[0]])
                               .cast<double>()
                               .cross((inPositions[t[2]] - inPositions[t[0]]).cast<double>());
        for (const std::uint32_t index : t)
            m[index] += area;
    }
    const auto u = [&](std::size_t inVertex, std::size_t inMode)
    {
        const float* v = inBasis.data() + (inVertex * inModes + inMode) * 3;
        return Vec3d(v[0], v[1], v[2]);
    };
    constexpr std::uint32_t block = 16;
    std::vector<float> normals(3 * n * inModes, 0.0f);
    std::vector<Vec3d> dm;
    for (std::uint32_t first = 0; first < inModes; first += block)
    {
        const std::uint32_t count = std::min(block, inModes - first);
        dm.assign(n * count, Vec3d::Zero());
        for (const Triangle& t : inTriangles)
        {
            const Vec3d e1 = (inPositions[t[1]] - inPositions[t[0]]).cast<double>();
            const Vec3d e2 = (inPositions[t[2]] - inPositions[t[0]]).cast<double>();
            for (std::uint32_t j = 0; j < count; ++j)
            {
                const std::size_t mode = first + j;
                const Vec3d change =
                    (u(t[1], mode) - u(t[0], mode)).cross(e2) + e1.cross(u(t[2], mode) - u(t[0], mode));
                for (const std::uint32_t index : t)
                    dm[std::size_t(index) * count + j] += change;
            }
        }
        for (std::size_t i = 0; i < n; ++i)
        {
            const double length = m[i].norm();
            if (!(length > 0.0))
                continue;
            const Vec3d normal = m[i] / length;
            for (std::uint32_t j = 0; j < count; ++j)
            {
                const Vec3d& d = dm[i * count + j];
                const Vec3d change = (d - normal * normal.dot(d)) / length;
                for (int k = 0; k < 3; ++k)
                    normals[(i * inModes + first + j) * 3 + k] = float(change[k]);
            }
        }
    }
    return normals;
}

Model MakeSmoothModel(std::vector<Vec3f> inPositions, std::vector<Triangle> inTriangles, std::uint32_t inModes)
{
    ModelData data;
    data.modeCount = inModes;
    data.basis = MakeSmoothBasis(inPositions, inModes);
    data.normalBasis = MakeNormalBasis(inPositions, inTriangles, data.basis, inModes);
    data.positions = std::move(inPositions);
    data.triangles = std::move(inTriangles);
    return Model::Create(std::move(data));
}

} // namespace bdt
