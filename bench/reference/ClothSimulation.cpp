#include "ClothSimulation.h"

#include <algorithm>
#include <bdt/core/base/Error.h>
#include <cmath>
#include <string>
#include <tuple>

namespace bdt::bench
{
namespace
{

constexpr double cAirDensity = 1.2; // kg/m³
constexpr double cPi = 3.14159265358979323846;

// A distance link between two vertices: rest length and PBD stiffness.
struct Link
{
    std::uint32_t a = 0, b = 0;
    double rest = 0.0;
    double stiffness = 1.0;
};

void Check(bool inOk, const std::string& inMessage)
{
    if (!inOk)
        throw Error("cloth simulation: " + inMessage);
}

// Every edge once (an inextensible link), and for every edge shared by two triangles a bending link between
// the two vertices opposite it.
std::vector<Link> MakeLinks(std::span<const Vec3f> inRest, std::span<const Triangle> inTriangles,
                            double inBend)
{
    // (low, high, opposite) per triangle edge, sorted so the triangles of an edge are adjacent.
    std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> halfEdges;
    halfEdges.reserve(3 * inTriangles.size());
    for (const Triangle& t : inTriangles)
        for (int k = 0; k < 3; ++k)
        {
            const std::uint32_t a = t[k], b = t[(k + 1) % 3], opposite = t[(k + 2) % 3];
            halfEdges.emplace_back(std::min(a, b), std::max(a, b), opposite);
        }
    std::sort(halfEdges.begin(), halfEdges.end());
    const auto length = [&](std::uint32_t inA, std::uint32_t inB)
    { return double((inRest[inA] - inRest[inB]).norm()); };
    std::vector<Link> links;
    for (std::size_t i = 0; i < halfEdges.size();)
    {
        const auto [a, b, opposite] = halfEdges[i];
        std::size_t end = i + 1;
        while (end < halfEdges.size() && std::get<0>(halfEdges[end]) == a && std::get<1>(halfEdges[end]) == b)
            ++end;
        if (a != b)
            links.push_back({a, b, length(a, b), 1.0});
        if (end - i == 2 && inBend > 0.0)
        {
            const std::uint32_t other = std::get<2>(halfEdges[i + 1]);
            if (other != opposite)
                links.push_back({opposite, other, length(opposite, other), inBend});
        }
        i = end;
    }
    return links;
}

} // namespace

std::vector<std::vector<Vec3f>> SimulateCloth(std::span<const Vec3f> inRest,
                                              std::span<const Triangle> inTriangles,
                                              std::span<const std::uint8_t> inPinned,
                                              const ClothSettings& inSettings)
{
    const std::size_t n = inRest.size();
    Check(n > 0 && !inTriangles.empty(), "the mesh is empty");
    Check(inPinned.size() == n, "the pinned mask has " + std::to_string(inPinned.size()) + " entries for " +
                                    std::to_string(n) + " vertices");
    Check(std::any_of(inPinned.begin(), inPinned.end(), [](std::uint8_t p) { return p != 0; }),
          "no vertex is pinned: the cloth would fall for ever");
    for (const Triangle& t : inTriangles)
        for (const std::uint32_t v : t)
            Check(v < n, "triangle index " + std::to_string(v) + " out of range (" + std::to_string(n) +
                             " vertices)");
    for (const Vec3f& p : inRest)
        Check(p.allFinite(), "a rest position is not finite");
    const ClothSettings& s = inSettings;
    Check(s.frames > 0 && s.substeps > 0 && s.iterations > 0,
          "frames, substeps and iterations must be positive");
    Check(std::isfinite(s.framesPerSecond) && s.framesPerSecond > 0.0 && std::isfinite(s.density) &&
              s.density > 0.0 && std::isfinite(s.gustPeriod) && s.gustPeriod > 0.0 &&
              std::isfinite(s.gustWavelength) && s.gustWavelength > 0.0,
          "frame rate, density, gust period and wavelength must be positive and finite");
    Check(std::isfinite(s.gravity) && std::isfinite(s.windSpeed) && std::isfinite(s.gustFraction) &&
              std::isfinite(s.drag) && std::isfinite(s.damping) && s.damping >= 0.0 &&
              s.bendStiffness >= 0.0 && s.bendStiffness <= 1.0,
          "gravity, wind and drag must be finite, damping non-negative, bend stiffness in [0, 1]");

    const std::vector<Link> links = MakeLinks(inRest, inTriangles, s.bendStiffness);
    std::vector<Vec3d> x(n), v(n, Vec3d::Zero()), predicted(n), areaNormal(n);
    std::vector<double> inverseMass(n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        x[i] = inRest[i].cast<double>();
    // Lumped masses: a third of each triangle's area to each of its vertices.
    std::vector<double> mass(n, 0.0);
    for (const Triangle& t : inTriangles)
    {
        const double area = 0.5 * (x[t[1]] - x[t[0]]).cross(x[t[2]] - x[t[0]]).norm();
        for (const std::uint32_t k : t)
            mass[k] += s.density * area / 3.0;
    }
    for (std::size_t i = 0; i < n; ++i)
        inverseMass[i] = inPinned[i] != 0 || mass[i] <= 0.0 ? 0.0 : 1.0 / mass[i];

    const double h = 1.0 / (s.framesPerSecond * double(s.substeps));
    std::vector<std::vector<Vec3f>> frames;
    frames.reserve(s.frames);
    double time = 0.0;
    for (std::uint32_t frame = 0; frame < s.frames; ++frame)
    {
        for (std::uint32_t sub = 0; sub < s.substeps; ++sub)
        {
            // Area-weighted normals (the sum of each adjacent triangle's area vector / 3).
            std::fill(areaNormal.begin(), areaNormal.end(), Vec3d::Zero());
            for (const Triangle& t : inTriangles)
            {
                const Vec3d areaVector = 0.5 * (x[t[1]] - x[t[0]]).cross(x[t[2]] - x[t[0]]);
                for (const std::uint32_t k : t)
                    areaNormal[k] += areaVector / 3.0;
            }
            const double damping = std::max(0.0, 1.0 - s.damping * h);
            for (std::size_t i = 0; i < n; ++i)
            {
                if (inverseMass[i] == 0.0)
                {
                    predicted[i] = x[i];
                    continue;
                }
                // The gust: a wave travelling across x, ramping up over the first second.
                const double ramp = std::min(1.0, time);
                const double gust =
                    1.0 + s.gustFraction *
                              std::sin(2.0 * cPi * (time / s.gustPeriod - x[i].x() / s.gustWavelength));
                const Vec3d wind(0.15 * s.windSpeed * std::sin(2.0 * cPi * time / (2.3 * s.gustPeriod)), 0.0,
                                 ramp * s.windSpeed * gust);
                // Pressure on both faces: along the normal, proportional to the relative normal speed
                // (signed).
                const double area = areaNormal[i].norm();
                Vec3d force = Vec3d::Zero();
                if (area > 0.0)
                {
                    const Vec3d normal = areaNormal[i] / area;
                    const double normalSpeed = (wind - v[i]).dot(normal);
                    force = 0.5 * cAirDensity * s.drag * area * normalSpeed * std::abs(normalSpeed) * normal;
                }
                v[i] = damping * (v[i] + h * (inverseMass[i] * force - Vec3d(0.0, s.gravity, 0.0)));
                predicted[i] = x[i] + h * v[i];
            }
            for (std::uint32_t pass = 0; pass < s.iterations; ++pass)
                for (const Link& link : links)
                {
                    const double wa = inverseMass[link.a], wb = inverseMass[link.b];
                    if (wa + wb == 0.0)
                        continue;
                    const Vec3d d = predicted[link.b] - predicted[link.a];
                    const double length = d.norm();
                    if (length <= 0.0)
                        continue;
                    const Vec3d correction =
                        (link.stiffness * (length - link.rest) / (length * (wa + wb))) * d;
                    predicted[link.a] += wa * correction;
                    predicted[link.b] -= wb * correction;
                }
            for (std::size_t i = 0; i < n; ++i)
            {
                v[i] = (predicted[i] - x[i]) / h;
                x[i] = predicted[i];
            }
            time += h;
        }
        std::vector<Vec3f>& out = frames.emplace_back(n);
        for (std::size_t i = 0; i < n; ++i)
        {
            Check(x[i].allFinite(), "the simulation diverged at frame " + std::to_string(frame));
            out[i] = x[i].cast<float>();
        }
    }
    return frames;
}

} // namespace bdt::bench
