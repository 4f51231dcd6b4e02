#pragma once

#include <bdt/core/base/Math.h>
#include <cstdint>
#include <span>
#include <vector>

namespace bdt::bench
{

/// Settings of `SimulateCloth`. SI units, the mesh's frame (y up).
struct ClothSettings
{
    std::uint32_t frames = 110;    ///< Frames recorded (frame 0 is the first step's end).
    double framesPerSecond = 30.0; ///< Recording rate, frames/s.
    std::uint32_t substeps = 6;    ///< Integration steps per frame.
    std::uint32_t iterations = 3;  ///< Constraint passes per substep (Gauss-Seidel).
    double density = 0.25;         ///< Areal density, kg/m².
    double gravity = 9.81;         ///< Downwards (−y) acceleration, m/s².
    double windSpeed = 1.5;        ///< Mean wind speed along +z, m/s.
    double gustFraction = 0.6;     ///< Gust amplitude as a fraction of `windSpeed`.
    double gustPeriod = 1.6;       ///< Period of the gusts, s.
    double gustWavelength = 1.5;   ///< Wavelength of the gusts along x, m (gusts travel across the cloth).
    double drag = 1.2;          ///< Pressure coefficient: force = ½ ρ_air · drag · A · ((w − v)·n) n.
    double bendStiffness = 0.2; ///< PBD stiffness of the bending links (0..1); edges are inextensible (1).
    double damping = 0.5;       ///< Velocity damping rate, 1/s.
};

/// A simple cloth simulation that makes the BD-Tree paper's curtain animation (§4, Table 2: a cloth curtain
/// blowing in the wind, 110 frames at 30 FPS). Position-based dynamics (Müller et al. 2007): every mesh edge
/// is an inextensible distance link, every pair of triangles sharing an edge adds a softer bending link
/// between their opposite vertices, vertices with `inPinned` set do not move. Forces: gravity and a gusty
/// wind along +z that pushes on each vertex's area-weighted normal in proportion to the relative normal speed
/// (both faces). Semi-implicit steps of 1/(fps · substeps) s.
///
/// Returns `settings.frames` frames of N positions (the mesh's units, metres). Deterministic: serial loops
/// in a fixed order. Cost O(frames · substeps · iterations · edges); about 1 s for the paper's 6184-vertex
/// curtain with the defaults. Throws `bdt::Error` for an empty mesh, an index out of range, a pinned mask of
/// another size, no pinned vertex, or impossible settings (non-positive or non-finite rates and counts).
std::vector<std::vector<Vec3f>> SimulateCloth(std::span<const Vec3f> inRest,
                                              std::span<const Triangle> inTriangles,
                                              std::span<const std::uint8_t> inPinned,
                                              const ClothSettings& inSettings = {});

} // namespace bdt::bench
