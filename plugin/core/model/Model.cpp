#include <bdt/core/base/Error.h>
#include <bdt/core/model/Model.h>

#include <cmath>
#include <string>

namespace bdt
{

namespace
{

// Values this large are never geometry; they would overflow the float sphere updates.
constexpr double cMaxAbsValue = 1e18;

bool IsSane(float inValue) { return std::isfinite(inValue) && std::abs(inValue) < cMaxAbsValue; }

void CheckArray(std::span<const float> inValues, const char* inWhat)
{
    for (std::size_t k = 0; k < inValues.size(); ++k)
    {
        if (!IsSane(inValues[k]))
            throw Error(std::string(inWhat) + " entry " + std::to_string(k) + " is not finite (" +
                        std::to_string(inValues[k]) + ")");
    }
}

} // namespace

Model Model::Create(ModelData inData)
{
    const std::size_t n = inData.positions.size();
    const std::size_t m = inData.modeCount;
    if (n == 0)
        throw Error("model has no vertices");
    if (inData.triangles.empty())
        throw Error("model has no triangles");
    if (inData.basis.size() != 3 * n * m)
        throw Error("basis has " + std::to_string(inData.basis.size()) + " entries, expected 3*N*M = " +
                    std::to_string(3 * n * m));
    if (!inData.normalBasis.empty() && inData.normalBasis.size() != inData.basis.size())
        throw Error("normal basis has " + std::to_string(inData.normalBasis.size()) + " entries, expected " +
                    std::to_string(inData.basis.size()));
    if (!inData.modes.empty() && inData.modes.size() != m)
        throw Error("model has " + std::to_string(inData.modes.size()) + " mode records for " +
                    std::to_string(m) + " modes");

    for (std::size_t i = 0; i < n; ++i)
    {
        const Vec3f& p = inData.positions[i];
        if (!IsSane(p.x()) || !IsSane(p.y()) || !IsSane(p.z()))
            throw Error("vertex " + std::to_string(i) + " has a non-finite position");
    }
    if (!inData.animation.empty() && (m == 0 || inData.animation.size() % m != 0))
        throw Error("animation track has " + std::to_string(inData.animation.size()) +
                    " entries, not a whole number of frames of " + std::to_string(m) + " modes");
    CheckArray(inData.basis, "basis");
    CheckArray(inData.normalBasis, "normal basis");
    CheckArray(inData.animation, "animation track");
    for (std::size_t j = 0; j < inData.modes.size(); ++j)
    {
        const ModeInfo& mode = inData.modes[j];
        if (!IsSane(mode.frequency) || mode.frequency < 0 || !IsSane(mode.damping) || mode.damping < 0)
            throw Error("mode " + std::to_string(j) + " has an invalid frequency or damping");
    }

    Model model;
    for (std::size_t t = 0; t < inData.triangles.size(); ++t)
    {
        const Triangle& tri = inData.triangles[t];
        for (std::uint32_t v : tri)
        {
            if (v >= n)
                throw Error("triangle " + std::to_string(t) + " has vertex index " + std::to_string(v) +
                            " out of range (" + std::to_string(n) + " vertices)");
        }
        const Vec3d a = inData.positions[tri[0]].cast<double>();
        const Vec3d b = inData.positions[tri[1]].cast<double>();
        const Vec3d c = inData.positions[tri[2]].cast<double>();
        if (tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2] || (b - a).cross(c - a).squaredNorm() == 0.0)
            ++model.mDegenerateTriangles;
    }

    model.mRestBounds.setEmpty();
    for (const Vec3f& p : inData.positions)
        model.mRestBounds.extend(p);
    model.mData = std::move(inData);
    return model;
}

Vec3d Model::DeformedPosition(std::size_t inVertex, std::span<const float> inQ) const
{
    const std::size_t m = mData.modeCount;
    Vec3d p = mData.positions[inVertex].cast<double>();
    const float* u = mData.basis.data() + inVertex * m * 3;
    for (std::size_t j = 0; j < m; ++j)
    {
        const double q = inQ[j];
        p += q * Vec3d(u[3 * j], u[3 * j + 1], u[3 * j + 2]);
    }
    return p;
}

Model Model::WithTriangleOrder(std::span<const std::uint32_t> inOrder) const
{
    if (inOrder.size() != mData.triangles.size())
        throw Error("triangle order has the wrong size");
    Model copy = *this;
    std::vector<bool> seen(inOrder.size(), false);
    for (std::size_t k = 0; k < inOrder.size(); ++k)
    {
        if (inOrder[k] >= mData.triangles.size() || seen[inOrder[k]])
            throw Error("triangle order is not a permutation");
        seen[inOrder[k]] = true;
        copy.mData.triangles[k] = mData.triangles[inOrder[k]];
    }
    return copy;
}

} // namespace bdt
